// extend: the closest hit of every ray in the current extension queue, into its hit record.
#define WAVEFRONT
#include "wavefront/state.glsl"
#include "trace/trace.glsl"

void extend() {
  uint index;
  if (!claimItem(currentExtendLaunch(), currentExtensionQueue(), index)) return;
  SurfaceHit hit;
  HitRecord record = HitRecord(-1.0, 0u, 0u, 0u, vec2(0.0));
  uint set = currentPathArrays();
  if (traceClosest(Vec3Buffer(PATHS(set).rayOrigin).v[index], Vec3Buffer(PATHS(set).rayDirection).v[index], hit))
    record = HitRecord(hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics);
  HitBuffer(WAVEFRONT_PARAMS.hits).h[index] = record;
}
