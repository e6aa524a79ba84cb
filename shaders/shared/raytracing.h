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

struct HitPayload {
  float t;  // negative: missed
  uint instance;
  uint geometry;
  uint primitive;
  vec2 barycentrics;
};

PTBENCH_END_NAMESPACE
#endif
