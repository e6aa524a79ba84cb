// Included by C++ and GLSL alike: plain types, binding numbers and workgroup sizes, declared once.
#ifndef PTBENCH_SHARED_H
#define PTBENCH_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace ptbench::gpu {
using uint = uint32_t;
// Scalar block layout: vectors are tightly packed floats, as GLSL sees them under
// GL_EXT_scalar_block_layout.
struct vec2 {
  float x, y;
};
struct vec3 {
  float x, y, z;
};
struct vec4 {
  float x, y, z, w;
};
struct uvec2 {
  uint x, y;
};
#define PTBENCH_CONST static constexpr
#define PTBENCH_END_NAMESPACE }
#else
#define PTBENCH_CONST const
#define PTBENCH_END_NAMESPACE
#endif

PTBENCH_CONST uint WORKGROUP_SIZE_1D = 64;

PTBENCH_END_NAMESPACE
#endif
