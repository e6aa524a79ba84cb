// What the BVH builder's kernels share: the buffer types their push constants point to.
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "shared/bvh_build.h"

layout(buffer_reference, scalar) buffer UintArray { uint values[]; };
layout(buffer_reference, scalar) buffer BoundsArray { BuildBounds bounds[]; };
layout(buffer_reference, scalar) buffer KarrasNodeArray { KarrasNode nodes[]; };
layout(buffer_reference, scalar) buffer BuildNodeArray { BuildNode nodes[]; };

// Every element of a per-element kernel, however many workgroups were launched.
#define FOR_EACH_ELEMENT(index, count) \
  for (uint index = gl_GlobalInvocationID.x; index < (count); index += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
