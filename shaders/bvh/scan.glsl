// An exclusive prefix sum of up to SCAN_ROUND consecutive uints in place, by one workgroup of
// RADIX_SORT_WORKGROUP_SIZE invocations: each sums a run of RADIX_SCAN_ITEMS, the workgroup scans
// those sums (Hillis-Steele), and each writes its run's prefixes from `carry`. Returns the
// round's total. Every invocation must call it (it has barriers).
const uint SCAN_ROUND = RADIX_SORT_WORKGROUP_SIZE * RADIX_SCAN_ITEMS;

shared uint runSums[RADIX_SORT_WORKGROUP_SIZE];

uint scanRound(UintArray values, uint base, uint count, uint carry) {
  const uint local = gl_LocalInvocationID.x;
  const uint first = base + local * RADIX_SCAN_ITEMS;
  uint items[RADIX_SCAN_ITEMS];
  uint runSum = 0;
  for (uint i = 0; i < RADIX_SCAN_ITEMS; ++i) {
    items[i] = first + i < count ? values.values[first + i] : 0;
    runSum += items[i];
  }
  // Inclusive, each step reading before any writes.
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
    if (first + i < count) values.values[first + i] = running;
    running += items[i];
  }
  const uint total = runSums[RADIX_SORT_WORKGROUP_SIZE - 1];
  // Every invocation has read the round's total before a next round overwrites it.
  barrier();
  return total;
}
