// Shader-binding-table layout and payloads of the ray-tracing-pipeline backend.
#ifndef PTBENCH_RAYTRACING_H
#define PTBENCH_RAYTRACING_H
#include "shared.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

PTBENCH_CONST uint MISS_CLOSEST = 0;  // miss-shader index of closest-hit rays
PTBENCH_CONST uint MISS_SHADOW = 1;   // miss-shader index of shadow rays
PTBENCH_CONST uint PAYLOAD_HIT = 0;
PTBENCH_CONST uint PAYLOAD_SHADOW = 1;
// Hit groups, as traceRayEXT's SBT record offset (no per-geometry records: stride 0). Closest-hit
// rays and traceAny's occlusion rays ask the alpha test; traceShadow's rays pass thin walls too.
PTBENCH_CONST uint HIT_GROUP_CLOSEST = 0;
PTBENCH_CONST uint HIT_GROUP_SHADOW = 1;
PTBENCH_CONST uint HIT_GROUP_COUNT = 2;

struct HitPayload {
  float t;  // negative: missed
  uint instance;
  uint geometry;
  uint primitive;
  vec2 barycentrics;
};

// traceAny's and traceShadow's: the shadow miss shader sets `missed`; traceShadow's any-hit
// shader multiplies in what each thin wall the ray crosses lets through.
struct ShadowPayload {
  vec3 transmittance;
  uint missed;
};

PTBENCH_END_NAMESPACE
#endif
