#version 460
#extension GL_GOOGLE_include_directive : require
// Compiled as compute or, with RAY_GENERATION (the pipeline backend), as ray generation.
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// trace: the measured stage. Each ray of a set traced, closest hit into a hit record (the
// wavefront extend's loads and stores, so the two are comparable) or any hit into one word;
// nothing else.
#include "raycast/state.glsl"
#include "common/bsdf.glsl"
#include "trace/trace.glsl"

layout(constant_id = SPEC_ANY_HIT) const bool ANY_HIT = false;

void traceRays() {
  uint ray = kernelIndex();
  if (ray >= rayCount(push.set)) return;
  RaySet rays = RAYCAST_PARAMS.rays[push.set];
  vec3 origin = Vec3Buffer(rays.origin).v[ray];
  vec3 direction = Vec3Buffer(rays.direction).v[ray];
  if (ANY_HIT) {
    UintBuffer(RAYCAST_PARAMS.occluded).u[ray] = traceAny(origin, direction, FloatBuffer(rays.tMax).f[ray]) ? 1u : 0u;
    return;
  }
  SurfaceHit hit;
  HitRecord record = HitRecord(-1.0, 0u, 0u, 0u, vec2(0.0));
  if (traceClosest(origin, direction, hit))
    record = HitRecord(hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics);
  HitBuffer(RAYCAST_PARAMS.hits).h[ray] = record;
}

#ifndef RAY_GENERATION
layout(local_size_x = WORKGROUP_SIZE_1D) in;
#endif

void main() { traceRays(); }
