#version 460
#extension GL_GOOGLE_include_directive : require
// Each block's count of every digit, the sort pass's first kernel.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { RadixSortPush push; };
layout(local_size_x = RADIX_SORT_WORKGROUP_SIZE) in;

shared uint digitCounts[RADIX_SORT_DIGITS];

void main() {
  const uint block = gl_WorkGroupID.x, blocks = gl_NumWorkGroups.x, local = gl_LocalInvocationID.x;
  digitCounts[local] = 0;
  barrier();
  for (uint chunk = 0; chunk < RADIX_SORT_CHUNKS; ++chunk) {
    const uint index = block * RADIX_SORT_BLOCK + chunk * RADIX_SORT_WORKGROUP_SIZE + local;
    if (index < push.count) {
      const uint digit = (UintArray(push.keysIn).values[index] >> push.shift) & (RADIX_SORT_DIGITS - 1);
      atomicAdd(digitCounts[digit], 1);
    }
  }
  barrier();
  UintArray(push.blockHistograms).values[local * blocks + block] = digitCounts[local];
}
