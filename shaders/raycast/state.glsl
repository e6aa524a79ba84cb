// What every raycast kernel shares: its parameters and the ray sets' accessors.
#ifndef PTBENCH_RAYCAST_STATE_GLSL
#define PTBENCH_RAYCAST_STATE_GLSL
#include "common/frame.glsl"
#include "shared/raycast.h"
layout(push_constant, scalar) uniform PushBlock { RaycastPush push; };
#include "common/sampling.glsl"
#include "common/camera.glsl"
#include "common/surface.glsl"
#include "common/lights.glsl"
#include "common/launch.glsl"

layout(buffer_reference, scalar) readonly buffer RaycastParamsRef { RaycastParams p; };
layout(buffer_reference, scalar) buffer RaycastCountersRef { RaycastCounters c; };
layout(buffer_reference, scalar) buffer LaunchRecords { LaunchRecord r[]; };
layout(buffer_reference, scalar) buffer Vec3Buffer { vec3 v[]; };
layout(buffer_reference, scalar) buffer FloatBuffer { float f[]; };
layout(buffer_reference, scalar) buffer UintBuffer { uint u[]; };
layout(buffer_reference, scalar) buffer HitBuffer { HitRecord h[]; };

#define RAYCAST_PARAMS (RaycastParamsRef(push.raycast).p)
#define RAYCAST_COUNTERS (RaycastCountersRef(RAYCAST_PARAMS.counters).c)

// The rays of a set a launch covers: the count the prepare kernel wrote with the launch.
uint rayCount(uint set) { return LaunchRecords(RAYCAST_PARAMS.launches).r[set].count; }

void storeRay(uint set, uint ray, vec3 origin, vec3 direction, float tMax, uint slot) {
  RaySet rays = RAYCAST_PARAMS.rays[set];
  Vec3Buffer(rays.origin).v[ray] = origin;
  Vec3Buffer(rays.direction).v[ray] = direction;
  FloatBuffer(rays.tMax).f[ray] = tMax;
  UintBuffer(rays.slot).u[ray] = slot;
}

uint pixelCount() { return FRAME.width * FRAME.height; }
uint slotPixel(uint slot) { return slot % pixelCount(); }
uint slotSample(uint slot) { return push.sampleIndex + slot / pixelCount(); }

#endif
