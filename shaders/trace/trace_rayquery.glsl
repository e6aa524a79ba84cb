// traceClosest and traceAny through GL_EXT_ray_query, inline in a compute shader.
#ifndef PTBENCH_TRACE_GLSL
#define PTBENCH_TRACE_GLSL
#extension GL_EXT_ray_query : require

layout(set = SCENE_SET, binding = BINDING_TLAS) uniform accelerationStructureEXT tlas;

// Runs the traversal, asking the alpha test about every non-opaque candidate.
void traverse(rayQueryEXT query) {
  while (rayQueryProceedEXT(query)) {
    if (rayQueryGetIntersectionTypeEXT(query, false) == gl_RayQueryCandidateIntersectionTriangleEXT &&
        alphaTestPasses(rayQueryGetIntersectionInstanceCustomIndexEXT(query, false),
                        rayQueryGetIntersectionGeometryIndexEXT(query, false),
                        rayQueryGetIntersectionPrimitiveIndexEXT(query, false),
                        rayQueryGetIntersectionBarycentricsEXT(query, false), rayQueryGetWorldRayOriginEXT(query),
                        rayQueryGetWorldRayDirectionEXT(query)))
      rayQueryConfirmIntersectionEXT(query);
  }
}

bool traceClosest(vec3 origin, vec3 direction, out SurfaceHit hit) {
  rayQueryEXT query;
  rayQueryInitializeEXT(query, tlas, gl_RayFlagsNoneEXT, 0xff, origin, 0.0, direction, RAY_T_MAX);
  traverse(query);
  if (rayQueryGetIntersectionTypeEXT(query, true) == gl_RayQueryCommittedIntersectionNoneEXT) return false;
  hit.t = rayQueryGetIntersectionTEXT(query, true);
  hit.instance = rayQueryGetIntersectionInstanceCustomIndexEXT(query, true);
  hit.geometry = rayQueryGetIntersectionGeometryIndexEXT(query, true);
  hit.primitive = rayQueryGetIntersectionPrimitiveIndexEXT(query, true);
  hit.barycentrics = rayQueryGetIntersectionBarycentricsEXT(query, true);
  return true;
}

// Whether anything blocks the segment from origin to origin + tMax * direction.
bool traceAny(vec3 origin, vec3 direction, float tMax) {
  rayQueryEXT query;
  rayQueryInitializeEXT(query, tlas, gl_RayFlagsTerminateOnFirstHitEXT, 0xff, origin, 0.0, direction, tMax);
  traverse(query);
  return rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT;
}

// What reaches origin + tMax * direction from origin: 0 where something blocks the segment, else
// the product of what each smooth thin wall on it lets through (shadowCandidateTransmittance, in
// any order: opaque geometry ends the traversal, and a product does not care).
vec3 traceShadow(vec3 origin, vec3 direction, float tMax) {
  rayQueryEXT query;
  rayQueryInitializeEXT(query, tlas, gl_RayFlagsTerminateOnFirstHitEXT, 0xff, origin, 0.0, direction, tMax);
  vec3 transmittance = vec3(1.0);
  while (rayQueryProceedEXT(query)) {
    if (rayQueryGetIntersectionTypeEXT(query, false) != gl_RayQueryCandidateIntersectionTriangleEXT) continue;
    vec3 passed = shadowCandidateTransmittance(rayQueryGetIntersectionInstanceCustomIndexEXT(query, false),
                                               rayQueryGetIntersectionGeometryIndexEXT(query, false),
                                               rayQueryGetIntersectionPrimitiveIndexEXT(query, false),
                                               rayQueryGetIntersectionBarycentricsEXT(query, false),
                                               rayQueryGetWorldRayOriginEXT(query),
                                               rayQueryGetWorldRayDirectionEXT(query));
    if (maxComponent(passed) > 0.0)
      transmittance *= passed;
    else
      rayQueryConfirmIntersectionEXT(query);
  }
  return rayQueryGetIntersectionTypeEXT(query, true) == gl_RayQueryCommittedIntersectionNoneEXT ? transmittance
                                                                                                : vec3(0.0);
}

#endif
