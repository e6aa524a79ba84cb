#version 460
// Test kernel: traces given rays through the software backend's traceClosest or traceAny, so
// that tests/scene/software_trace_test.cpp can hold the GPU traversal to the C++ reference.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "shared/shared.h"

layout(push_constant, scalar) uniform PushBlock {
  uint64_t params;  // FrameParams: only its scene addresses are read
  uint64_t rays;    // TestRay[count]
  uint64_t hits;    // TestHit[count]
  uint count;
  uint anyHit;      // 1: traceAny over [0, tMax]; 0: traceClosest
} push;
#include "common/frame.glsl"
#include "common/sampling.glsl"
#include "common/surface.glsl"
#include "common/bsdf.glsl"
#include "trace/trace.glsl"

struct TestRay {
  vec3 origin;
  float tMax;
  vec3 direction;
  float pad;
};
struct TestHit {
  float t;  // -1: no hit (closest), or 1 / 0: blocked or not (any)
  uint instance;
  uint geometry;
  uint primitive;
  vec2 barycentrics;
};
layout(buffer_reference, scalar) readonly buffer TestRays { TestRay r[]; };
layout(buffer_reference, scalar) writeonly buffer TestHits { TestHit h[]; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= push.count) return;
  TestRay ray = TestRays(push.rays).r[i];
  TestHit result = TestHit(-1.0, 0u, 0u, 0u, vec2(0.0));
  if (push.anyHit != 0u) {
    result.t = traceAny(ray.origin, ray.direction, ray.tMax) ? 1.0 : 0.0;
  } else {
    SurfaceHit hit;
    if (traceClosest(ray.origin, ray.direction, hit)) result = TestHit(hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics);
  }
  TestHits(push.hits).h[i] = result;
}
