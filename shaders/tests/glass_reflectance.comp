#version 460
// Test kernel: the tinted glass reflectance (common/fresnel.glsl) at given cosines, for
// tests/integrators/light_transport_test.cpp.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "shared/shared.h"
#include "common/fresnel.glsl"

layout(buffer_reference, scalar) buffer Floats { float f[]; };
layout(buffer_reference, scalar) buffer Vec4s { vec4 v[]; };
layout(push_constant, scalar) uniform Push {
  uint64_t cosines;      // float per invocation
  uint64_t reflectance;  // vec4 per invocation: the tinted rgb, and the untinted Fresnel term
  vec3 specularColor;
  float specularWeight;
  float eta;
  uint count;
} push;
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= push.count) return;
  float cosI = Floats(push.cosines).f[i];
  Vec4s(push.reflectance).v[i] =
      vec4(tintedGlassReflectance(cosI, push.eta, push.specularColor, push.specularWeight), fresnelDielectric(cosI, push.eta));
}
