#version 460
#extension GL_GOOGLE_include_directive : require
// An exclusive prefix sum over the blocks' histograms in one workgroup: each invocation sums a
// run of consecutive entries, the workgroup scans those sums, and a carry joins the rounds. One
// workgroup keeps it free of any wait between workgroups, which lavapipe (workgroups on CPU
// threads, no forward-progress guarantee between them) could deadlock on.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { RadixScanPush push; };
layout(local_size_x = RADIX_SORT_WORKGROUP_SIZE) in;

shared uint runSums[RADIX_SORT_WORKGROUP_SIZE];

void main() {
  const uint local = gl_LocalInvocationID.x;
  UintArray values = UintArray(push.values);
  uint carry = 0;
  for (uint base = 0; base < push.count; base += RADIX_SORT_WORKGROUP_SIZE * RADIX_SCAN_ITEMS) {
    const uint first = base + local * RADIX_SCAN_ITEMS;
    uint items[RADIX_SCAN_ITEMS];
    uint runSum = 0;
    for (uint i = 0; i < RADIX_SCAN_ITEMS; ++i) {
      items[i] = first + i < push.count ? values.values[first + i] : 0;
      runSum += items[i];
    }
    // Hillis-Steele over the runs' sums: inclusive, each step reading before any writes.
    runSums[local] = runSum;
    barrier();
    for (uint offset = 1; offset < RADIX_SORT_WORKGROUP_SIZE; offset *= 2) {
      const uint add = local >= offset ? runSums[local - offset] : 0;
      barrier();
      runSums[local] += add;
      barrier();
    }
    uint running = carry + runSums[local] - runSum;
    for (uint i = 0; i < RADIX_SCAN_ITEMS; ++i) {
      if (first + i < push.count) values.values[first + i] = running;
      running += items[i];
    }
    carry += runSums[RADIX_SORT_WORKGROUP_SIZE - 1];
    // Every invocation has read the round's total before the next round overwrites it.
    barrier();
  }
}
