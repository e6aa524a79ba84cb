// shadow: any-hit visibility of every light sample in the shadow queue; an unblocked one adds
// its contribution to its path's radiance, where shade left the path. A path that ended at this
// vertex (in the finished queue) then commits its sample to the film: the megakernel's last
// film write, so no accumulate launch follows.
#define WAVEFRONT
#include "wavefront/state.glsl"
#include "trace/trace.glsl"

void shadow() {
  uint index;
  if (!claimItem(LAUNCH_SHADOW, QUEUE_SHADOW, index)) return;
  bool visible = !traceAny(Vec3Buffer(SHADOW_ARRAYS.origin).v[index], Vec3Buffer(SHADOW_ARRAYS.direction).v[index],
                           FloatBuffer(SHADOW_ARRAYS.tMax).f[index]);
  uint target = UintBuffer(SHADOW_ARRAYS.target).u[index];
  uint position = target & ~SHADOW_TARGET_FINISHED;
  bool finished = (target & SHADOW_TARGET_FINISHED) != 0u;
  if (finished) {
    vec3 radiance = Vec3Buffer(FINISHED_ARRAYS.radiance).v[position];
    if (visible) radiance += Vec3Buffer(SHADOW_ARRAYS.contribution).v[index];
    commitPathSample(radiance, UintBuffer(FINISHED_ARRAYS.pixel).u[position]);
  } else if (visible) {
    Vec3Buffer(PATHS(nextPathArrays()).radiance).v[position] += Vec3Buffer(SHADOW_ARRAYS.contribution).v[index];
  }
  // Without compaction the slot is the path's: free once its sample is in the film.
  if (!COMPACTION)
    setMembership(index, finished ? MEMBER_FREE : 0u,
                  finished ? (1u << QUEUE_SHADOW) | (1u << QUEUE_FINISHED) : 1u << QUEUE_SHADOW);
}
