#version 460
#extension GL_GOOGLE_include_directive : require
// An exclusive prefix sum in one workgroup, round after round with a carry: the blocks'
// histograms of the sort, and the block sums of a longer scan (scan_blocks.comp). One workgroup
// keeps it free of any wait between workgroups, which lavapipe (workgroups on CPU threads, no
// forward-progress guarantee between them) could deadlock on.
#include "bvh/build.glsl"
#include "bvh/scan.glsl"

layout(push_constant, scalar) uniform Push { RadixScanPush push; };
layout(local_size_x = RADIX_SORT_WORKGROUP_SIZE) in;

void main() {
  uint carry = 0;
  for (uint base = 0; base < push.count; base += SCAN_ROUND)
    carry += scanRound(UintArray(push.values), base, push.count, carry);
}
