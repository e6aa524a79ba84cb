#version 460
#extension GL_GOOGLE_include_directive : require
// Compiled as compute or, with RAY_GENERATION (the pipeline backend), as ray generation.
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// shadow: any-hit visibility of every light sample in the shadow queue; an unblocked one adds
// its contribution, times what the thin walls on its way let through, to its path's radiance,
// where shade left the path. Where the pass owns its pixels, a path that ended at this vertex (in
// the finished queue) then commits its sample to the film with plain stores; elsewhere
// accumulate commits it after.
#include "wavefront/state.glsl"
#include "trace/trace.glsl"

void shadow() {
  CLOCKS_START();
  uint index;
  if (!claimItem(LAUNCH_SHADOW, QUEUE_SHADOW, index)) return;
  vec3 origin = Vec3Buffer(SHADOW_ARRAYS.origin).v[index];
  vec3 direction = Vec3Buffer(SHADOW_ARRAYS.direction).v[index];
  float tMax = FloatBuffer(SHADOW_ARRAYS.tMax).f[index];
  CLOCK_PHASE(CLOCK_PHASE_TRAVERSAL);
  vec3 transmittance = traceShadow(origin, direction, tMax);
  CLOCK_PHASE(CLOCK_PHASE_REST);
  uint target = UintBuffer(SHADOW_ARRAYS.target).u[index];
  uint position = target & ~SHADOW_TARGET_FINISHED;
  bool finished = (target & SHADOW_TARGET_FINISHED) != 0u;
  bool visible = maxComponent(transmittance) > 0.0;
  bool commit = finished && WAVEFRONT_PARAMS.pixelsOwned != 0u;
  Vec3Buffer radiance = Vec3Buffer(finished ? FINISHED_ARRAYS.radiance : PATHS(nextPathArrays()).radiance);
  if (commit) {
    vec3 sum = radiance.v[position];
    if (visible) sum += Vec3Buffer(SHADOW_ARRAYS.contribution).v[index] * transmittance;
    commitPathSample(sum, UintBuffer(FINISHED_ARRAYS.pixel).u[position]);
  } else if (visible) {
    radiance.v[position] += Vec3Buffer(SHADOW_ARRAYS.contribution).v[index] * transmittance;
  }
  // Without compaction the slot is the path's: free once its sample is in the film.
  if (!COMPACTION)
    setMembership(index, commit ? MEMBER_FREE : 0u,
                  commit ? (1u << QUEUE_SHADOW) | (1u << QUEUE_FINISHED) : 1u << QUEUE_SHADOW);
  CLOCKS_COMMIT(CLOCK_BIN_SHADOW);
}

#ifndef RAY_GENERATION
layout(local_size_x = WORKGROUP_SIZE_1D) in;
#endif

void main() { shadow(); }
