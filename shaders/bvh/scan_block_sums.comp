#version 460
#extension GL_GOOGLE_include_directive : require
// A long scan's first pass: each workgroup sums blocks of SCAN_ROUND values. The sums are then
// scanned by radix_scan.comp, and scan_blocks.comp scans each block from its sum's prefix: three
// passes, none of which waits for another workgroup.
#include "bvh/build.glsl"
#include "bvh/scan.glsl"

layout(push_constant, scalar) uniform Push { BlockScanPush push; };
layout(local_size_x = RADIX_SORT_WORKGROUP_SIZE) in;

shared uint partialSums[RADIX_SORT_WORKGROUP_SIZE];

void main() {
  const uint local = gl_LocalInvocationID.x;
  const uint blocks = (push.count + SCAN_ROUND - 1) / SCAN_ROUND;
  for (uint block = gl_WorkGroupID.x; block < blocks; block += gl_NumWorkGroups.x) {
    uint sum = 0;
    for (uint i = local; i < SCAN_ROUND; i += RADIX_SORT_WORKGROUP_SIZE) {
      const uint index = block * SCAN_ROUND + i;
      if (index < push.count) sum += UintArray(push.values).values[index];
    }
    partialSums[local] = sum;
    barrier();
    for (uint half_ = RADIX_SORT_WORKGROUP_SIZE / 2; half_ > 0; half_ /= 2) {
      if (local < half_) partialSums[local] += partialSums[local + half_];
      barrier();
    }
    if (local == 0) UintArray(push.blockSums).values[block] = partialSums[0];
    barrier();
  }
}
