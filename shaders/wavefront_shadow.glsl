// shadow: any-hit visibility of every light sample in the shadow queue; an unblocked one adds
// its contribution to its path's radiance (accumulate runs after, so a path that ended at this
// vertex still gets its last light sample).
#define WAVEFRONT
#include "wavefront/state.glsl"
#include "common/trace.glsl"

void shadow() {
  uint slot;
  if (!claimSlot(LAUNCH_SHADOW, QUEUE_SHADOW, slot)) return;
  if (!traceAny(Vec3Buffer(PATHS.shadowOrigin).v[slot], Vec3Buffer(PATHS.shadowDirection).v[slot],
                FloatBuffer(PATHS.shadowTMax).f[slot]))
    Vec3Buffer(PATHS.radiance).v[slot] += Vec3Buffer(PATHS.shadowContribution).v[slot];
  if (!COMPACTION) setMembership(slot, 0u, 1u << QUEUE_SHADOW);
}
