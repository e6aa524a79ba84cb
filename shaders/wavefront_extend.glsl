// extend: the closest hit of every ray in the current extension queue, into the path's hit record.
#define WAVEFRONT
#include "wavefront/state.glsl"
#include "common/trace.glsl"

void extend() {
  uint slot;
  if (!claimSlot(LAUNCH_EXTEND, currentExtensionQueue(), slot)) return;
  SurfaceHit hit;
  HitRecord record = HitRecord(-1.0, 0u, 0u, 0u, vec2(0.0));
  if (traceClosest(Vec3Buffer(PATHS.rayOrigin).v[slot], Vec3Buffer(PATHS.rayDirection).v[slot], hit))
    record = HitRecord(hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics);
  HitBuffer(PATHS.hit).h[slot] = record;
}
