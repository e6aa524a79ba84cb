#version 460
#extension GL_GOOGLE_include_directive : require
// accumulate: every path that ended this iteration adds its radiance to its pixel, as the
// megakernel's thread does (common/film.glsl).
#define WAVEFRONT
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint index;
  if (!claimItem(LAUNCH_ACCUMULATE, QUEUE_FINISHED, index)) return;
  filmAddSample(UintBuffer(FINISHED_ARRAYS.pixel).u[index], Vec3Buffer(FINISHED_ARRAYS.radiance).v[index]);
  if (!COMPACTION) setMembership(index, MEMBER_FREE, 1u << QUEUE_FINISHED);
}
