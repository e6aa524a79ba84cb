#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "shared/selftest.h"

layout(buffer_reference, scalar) buffer UintArray { uint values[]; };
layout(push_constant, scalar) uniform Push { SelftestPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

// A value that depends non-trivially on the index, so that a shifted or skipped write shows.
uint expectedValue(uint index) { return index * push.multiplier + (index ^ 0x5bd1e995u); }

void main() {
  uint index = gl_GlobalInvocationID.x;
  if (index >= push.count) return;
  UintArray(push.values).values[index] = expectedValue(index);
}
