#version 460
#extension GL_GOOGLE_include_directive : require
// The sort pass's second kernel: each block's keys to their places, stably. The block goes by
// chunks of one key per invocation; a key's place is its digit's running offset in the block
// plus its rank, the number of keys of its digit before it in the chunk. The rank is counted
// over the chunk's digits packed four to a word in shared memory: a few barriers a chunk, where
// ranking by one stable split per bit needs a scan with barriers for each of the 8 bits, which
// lavapipe (each barrier a switch between all of a workgroup's invocations) runs far slower.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { RadixSortPush push; };
layout(local_size_x = RADIX_SORT_WORKGROUP_SIZE) in;

shared uint digitOffsets[RADIX_SORT_DIGITS];  // where the block's next key of each digit goes
shared uint chunkCounts[RADIX_SORT_DIGITS];
shared uint packedDigits[RADIX_SORT_WORKGROUP_SIZE / 4];

// The bytes of `word` equal to `digit`, below byte `end` (4: all of them).
uint equalBytes(uint word, uint digit, uint end) {
  const uint x = word ^ (digit * 0x01010101u);
  // Bit 7 of each byte set where that byte of x is zero.
  const uint zero = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
  return bitCount(end >= 4 ? zero : zero & ((1u << (8 * end)) - 1));
}

void main() {
  const uint block = gl_WorkGroupID.x, blocks = gl_NumWorkGroups.x, local = gl_LocalInvocationID.x;
  digitOffsets[local] = UintArray(push.blockHistograms).values[local * blocks + block];
  for (uint chunk = 0; chunk < RADIX_SORT_CHUNKS; ++chunk) {
    const uint chunkStart = block * RADIX_SORT_BLOCK + chunk * RADIX_SORT_WORKGROUP_SIZE;
    if (chunkStart >= push.count) break;  // the same for the whole workgroup
    const uint index = chunkStart + local;
    const bool hasKey = index < push.count;
    const uint key = hasKey ? UintArray(push.keysIn).values[index] : 0;
    const uint digit = (key >> push.shift) & (RADIX_SORT_DIGITS - 1);
    chunkCounts[local] = 0;
    if (local < RADIX_SORT_WORKGROUP_SIZE / 4) packedDigits[local] = 0;
    barrier();
    // Invocations without a key are the chunk's last: no key with one ranks behind them.
    if (hasKey) {
      atomicOr(packedDigits[local / 4], digit << (8 * (local % 4)));
      atomicAdd(chunkCounts[digit], 1);
    }
    barrier();
    if (hasKey) {
      uint rank = 0;
      for (uint word = 0; word < local / 4; ++word) rank += equalBytes(packedDigits[word], digit, 4);
      rank += equalBytes(packedDigits[local / 4], digit, local % 4);
      const uint place = digitOffsets[digit] + rank;
      UintArray(push.keysOut).values[place] = key;
      UintArray(push.valuesOut).values[place] = UintArray(push.valuesIn).values[index];
    }
    barrier();
    digitOffsets[local] += chunkCounts[local];
    barrier();
  }
}
