// The megakernel's SER variant (MEGAKERNEL_SER, ray generation on the pipeline backend only):
// the closest hit traced into a hit object, and the threads reordered by it before shading.
// Reads the pipeline backend's acceleration structure and payload (trace/trace_pipeline.glsl).
#ifndef PTBENCH_MEGAKERNEL_SER_GLSL
#define PTBENCH_MEGAKERNEL_SER_GLSL
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
