// The indirect launch record (shared/wavefront.h, LaunchRecord) of a 1-D launch of `count`
// invocations, as compute and as ray generation take it, for the prepare kernels.
#ifndef PTBENCH_LAUNCH_RECORD_GLSL
#define PTBENCH_LAUNCH_RECORD_GLSL

LaunchRecord launchRecord(uint count) {
  LaunchRecord record;
  uint groups = (count + WORKGROUP_SIZE_1D - 1u) / WORKGROUP_SIZE_1D;
  // Only 65535 workgroups in X are guaranteed: larger launches fold into rows (kernelIndex).
  record.groupsX = min(groups, 65535u);
  record.groupsY = record.groupsX == 0u ? 1u : (groups + record.groupsX - 1u) / record.groupsX;
  record.groupsZ = 1u;
  record.width = min(count, FRAME.traceRowWidth);
  record.height = record.width == 0u ? 1u : (count + record.width - 1u) / record.width;
  record.depth = 1u;
  record.count = count;
  record.pad = 0u;
  return record;
}

#endif
