#version 460
#extension GL_GOOGLE_include_directive : require
// accumulate: every path that ended this iteration adds its radiance to its pixel with the film's
// atomics, where several paths of a pixel may be in flight (where the pass owns its pixels, shade
// and shadow commit with plain stores, and this kernel is not launched).
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint index;
  if (!claimItem(LAUNCH_ACCUMULATE, QUEUE_FINISHED, index)) return;
  commitPathSample(Vec3Buffer(FINISHED_ARRAYS.radiance).v[index], UintBuffer(FINISHED_ARRAYS.pixel).u[index]);
  if (!COMPACTION) setMembership(index, MEMBER_FREE, 1u << QUEUE_FINISHED);
}
