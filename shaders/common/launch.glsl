// The index of an invocation of a 1-D launch (Kernel::launch over a count, or an indirect
// LaunchRecord): compute workgroups fold into rows past 65535, ray generation into rows of
// FrameParams::traceRowWidth. Kernels check it against their count.
#ifndef PTBENCH_LAUNCH_GLSL
#define PTBENCH_LAUNCH_GLSL

uint kernelIndex() {
#ifdef RAY_GENERATION
  return gl_LaunchIDEXT.y * gl_LaunchSizeEXT.x + gl_LaunchIDEXT.x;
#else
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WORKGROUP_SIZE_1D + gl_LocalInvocationIndex;
#endif
}

#endif
