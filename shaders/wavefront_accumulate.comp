#version 460
#extension GL_GOOGLE_include_directive : require
// accumulate: every path that ended this iteration adds its radiance to its pixel, as the
// megakernel's thread does (common/film.glsl).
#define WAVEFRONT
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint slot;
  if (!claimSlot(LAUNCH_ACCUMULATE, QUEUE_FINISHED, slot)) return;
  filmAddSample(UintBuffer(PATHS.pixel).u[slot], Vec3Buffer(PATHS.radiance).v[slot]);
  if (!COMPACTION) setMembership(slot, MEMBER_FREE, 1u << QUEUE_FINISHED);
}
