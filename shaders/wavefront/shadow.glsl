// shadow: any-hit visibility of every light sample in the shadow queue; an unblocked one adds
// its contribution to its path's radiance, where shade left the path (accumulate runs after,
// so a path that ended at this vertex still gets its last light sample).
#define WAVEFRONT
#include "wavefront/state.glsl"
#include "trace/trace.glsl"

void shadow() {
  uint index;
  if (!claimItem(LAUNCH_SHADOW, QUEUE_SHADOW, index)) return;
  if (!traceAny(Vec3Buffer(SHADOW_ARRAYS.origin).v[index], Vec3Buffer(SHADOW_ARRAYS.direction).v[index],
                FloatBuffer(SHADOW_ARRAYS.tMax).f[index])) {
    uint target = UintBuffer(SHADOW_ARRAYS.target).u[index];
    Vec3Buffer radiance = Vec3Buffer((target & SHADOW_TARGET_FINISHED) != 0u ? FINISHED_ARRAYS.radiance
                                                                             : PATHS(nextPathArrays()).radiance);
    radiance.v[target & ~SHADOW_TARGET_FINISHED] += Vec3Buffer(SHADOW_ARRAYS.contribution).v[index];
  }
  if (!COMPACTION) setMembership(index, 0u, 1u << QUEUE_SHADOW);
}
