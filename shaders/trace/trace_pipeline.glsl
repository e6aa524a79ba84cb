// traceClosest, traceAny and traceShadow through GL_EXT_ray_tracing, from a ray-generation
// shader: traversal by the driver, hits reported by rt_closest_hit.rchit, alpha by
// rt_any_hit.rahit, thin walls on shadow rays by rt_shadow_any_hit.rahit.
#ifndef PTBENCH_TRACE_GLSL
#define PTBENCH_TRACE_GLSL
#extension GL_EXT_ray_tracing : require
#include "shared/raytracing.h"

layout(set = SCENE_SET, binding = BINDING_TLAS) uniform accelerationStructureEXT tlas;
layout(location = PAYLOAD_HIT) rayPayloadEXT HitPayload hitPayload;
layout(location = PAYLOAD_SHADOW) rayPayloadEXT ShadowPayload shadowPayload;

bool traceClosest(vec3 origin, vec3 direction, out SurfaceHit hit) {
  traceRayEXT(tlas, gl_RayFlagsNoneEXT, 0xff, HIT_GROUP_CLOSEST, 0, MISS_CLOSEST, origin, 0.0, direction, RAY_T_MAX,
              int(PAYLOAD_HIT));
  if (hitPayload.t < 0.0) return false;
  hit.t = hitPayload.t;
  hit.instance = hitPayload.instance;
  hit.geometry = hitPayload.geometry;
  hit.primitive = hitPayload.primitive;
  hit.barycentrics = hitPayload.barycentrics;
  return true;
}

bool traceAny(vec3 origin, vec3 direction, float tMax) {
  shadowPayload.missed = 0u;  // the shadow miss shader sets it
  traceRayEXT(tlas, gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT, 0xff, HIT_GROUP_CLOSEST, 0,
              MISS_SHADOW, origin, 0.0, direction, tMax, int(PAYLOAD_SHADOW));
  return shadowPayload.missed == 0u;
}

// A hit the shadow any-hit shader accepts (or opaque geometry) ends the ray before it misses.
vec3 traceShadow(vec3 origin, vec3 direction, float tMax) {
  shadowPayload.transmittance = vec3(1.0);
  shadowPayload.missed = 0u;
  traceRayEXT(tlas, gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT, 0xff, HIT_GROUP_SHADOW, 0,
              MISS_SHADOW, origin, 0.0, direction, tMax, int(PAYLOAD_SHADOW));
  return shadowPayload.missed != 0u ? shadowPayload.transmittance : vec3(0.0);
}

#endif
