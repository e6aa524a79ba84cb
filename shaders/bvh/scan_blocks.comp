#version 460
#extension GL_GOOGLE_include_directive : require
// A long scan's last pass: each block of SCAN_ROUND values scanned in place from its prefix,
// the scanned block sums (scan_block_sums.comp).
#include "bvh/build.glsl"
#include "bvh/scan.glsl"

layout(push_constant, scalar) uniform Push { BlockScanPush push; };
layout(local_size_x = RADIX_SORT_WORKGROUP_SIZE) in;

void main() {
  const uint blocks = (push.count + SCAN_ROUND - 1) / SCAN_ROUND;
  for (uint block = gl_WorkGroupID.x; block < blocks; block += gl_NumWorkGroups.x)
    scanRound(UintArray(push.values), block * SCAN_ROUND, push.count, UintArray(push.blockSums).values[block]);
}
