// traceClosest and traceAny through GL_EXT_ray_tracing, from a ray-generation shader:
// traversal by the driver, hits reported by rt_closest_hit.rchit, alpha by rt_any_hit.rahit.
#ifndef PTBENCH_TRACE_GLSL
#define PTBENCH_TRACE_GLSL
#extension GL_EXT_ray_tracing : require
#include "shared/raytracing.h"

layout(set = SCENE_SET, binding = BINDING_TLAS) uniform accelerationStructureEXT tlas;
layout(location = PAYLOAD_HIT) rayPayloadEXT HitPayload hitPayload;
layout(location = PAYLOAD_SHADOW) rayPayloadEXT uint shadowPayload;

bool traceClosest(vec3 origin, vec3 direction, out SurfaceHit hit) {
  traceRayEXT(tlas, gl_RayFlagsNoneEXT, 0xff, 0, 0, MISS_CLOSEST, origin, 0.0, direction, RAY_T_MAX, int(PAYLOAD_HIT));
  if (hitPayload.t < 0.0) return false;
  hit.t = hitPayload.t;
  hit.instance = hitPayload.instance;
  hit.geometry = hitPayload.geometry;
  hit.primitive = hitPayload.primitive;
  hit.barycentrics = hitPayload.barycentrics;
  return true;
}

bool traceAny(vec3 origin, vec3 direction, float tMax) {
  shadowPayload = 1u;  // the shadow miss shader clears it
  traceRayEXT(tlas, gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT, 0xff, 0, 0, MISS_SHADOW,
              origin, 0.0, direction, tMax, int(PAYLOAD_SHADOW));
  return shadowPayload != 0u;
}

#ifdef MEGAKERNEL_SER
#extension GL_NV_shader_invocation_reorder : require
layout(location = HIT_OBJECT_ATTRIBUTES) hitObjectAttributeNV vec2 hitObjectBarycentrics;
layout(constant_id = SPEC_SER_HINT) const uint SER_HINT = SER_HINT_MATERIAL;
layout(constant_id = SPEC_SER_REORDER_FROM) const uint SER_REORDER_FROM = 1;

// traceClosest through a hit object (traversal and alpha tests only; no closest-hit shader)
// and, from bounce SER_REORDER_FROM on, a reorder: the GPU may regroup the threads by the hit
// object and the hint before the shading that follows. Only what the hint needs is read from
// the hit before the reorder, so that little state travels with a thread.
bool traceClosestReordered(vec3 origin, vec3 direction, uint bounce, out SurfaceHit hit) {
  hitObjectNV hitObject;
  hitObjectTraceRayNV(hitObject, tlas, gl_RayFlagsNoneEXT, 0xff, 0, 0, MISS_CLOSEST, origin, 0.0, direction, RAY_T_MAX,
                      int(PAYLOAD_HIT));
  if (bounce >= SER_REORDER_FROM) {
    if (SER_HINT == SER_HINT_MATERIAL) {
      uint materialClass = hitObjectIsHitNV(hitObject) ? materialClassOfHit(hitObjectGetInstanceCustomIndexNV(hitObject),
                                                                            hitObjectGetGeometryIndexNV(hitObject))
                                                       : MATERIAL_CLASS_ESCAPED;
      reorderThreadNV(hitObject, materialClass, SER_HINT_BITS);
    } else {
      reorderThreadNV(hitObject);
    }
  }
  if (!hitObjectIsHitNV(hitObject)) return false;
  hitObjectGetAttributesNV(hitObject, int(HIT_OBJECT_ATTRIBUTES));
  hit.t = hitObjectGetRayTMaxNV(hitObject);
  hit.instance = hitObjectGetInstanceCustomIndexNV(hitObject);
  hit.geometry = hitObjectGetGeometryIndexNV(hitObject);
  hit.primitive = hitObjectGetPrimitiveIndexNV(hitObject);
  hit.barycentrics = hitObjectBarycentrics;
  return true;
}
#endif

#endif
