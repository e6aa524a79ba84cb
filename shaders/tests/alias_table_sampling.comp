#version 460
// Test kernel: draws from an alias table with the renderer's own aliasTableSample and counts
// how often each entry comes out (tests/integrators/light_transport_test.cpp).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "shared/shared.h"
#include "common/alias_table.glsl"

layout(buffer_reference, scalar) buffer Counts { uint c[]; };
layout(push_constant, scalar) uniform Push {
  uint64_t table;
  uint64_t counts;
  uint entryCount;
  uint drawsPerInvocation;
} push;
layout(local_size_x = WORKGROUP_SIZE_1D) in;

// Random bits of the test's own (a different generator from the renderer's on purpose).
uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

void main() {
  uint first = gl_GlobalInvocationID.x * push.drawsPerInvocation;
  for (uint k = 0u; k < push.drawsPerInvocation; ++k) {
    uint indexBits = mix32(2u * (first + k) + 1u);
    float coin = float(mix32(2u * (first + k) + 0x9e3779b9u) >> 8) * (1.0 / 16777216.0);
    uint entry = aliasTableSample(AliasTable(push.table), push.entryCount, indexBits, coin);
    atomicAdd(Counts(push.counts).c[entry], 1u);
  }
}
