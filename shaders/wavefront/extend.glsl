#version 460
#extension GL_GOOGLE_include_directive : require
// Compiled as compute or, with RAY_GENERATION (the pipeline backend), as ray generation.
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// extend: the closest hit of every ray in the current extension queue, into its hit record.
#include "wavefront/state.glsl"
#include "trace/trace.glsl"

void extend() {
  CLOCKS_START();
  uint index;
  if (!claimItem(currentExtendLaunch(), currentExtensionQueue(), index)) return;
  SurfaceHit hit;
  HitRecord record = HitRecord(-1.0, 0u, 0u, 0u, vec2(0.0));
  uint set = currentPathArrays();
  vec3 origin = Vec3Buffer(PATHS(set).origin).v[index];
  vec3 direction = Vec3Buffer(PATHS(set).direction).v[index];
  CLOCK_PHASE(CLOCK_PHASE_TRAVERSAL);
  bool found = traceClosest(origin, direction, hit);
  CLOCK_PHASE(CLOCK_PHASE_REST);
  if (found) record = HitRecord(hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics);
  HitBuffer(WAVEFRONT_PARAMS.hits).h[index] = record;
  CLOCKS_COMMIT(CLOCK_BIN_EXTEND);
}

#ifndef RAY_GENERATION
layout(local_size_x = WORKGROUP_SIZE_1D) in;
#endif

void main() { extend(); }
