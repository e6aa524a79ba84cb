// Buffer references for the scene and frame. Every kernel declares its own push block after this
// (its integrator's: FramePush, WavefrontPush, RaycastPush), named `push`, whose `params` is the
// FrameParams address FRAME reads; none is read before.
#ifndef PTBENCH_FRAME_GLSL
#define PTBENCH_FRAME_GLSL
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_nonuniform_qualifier : require
#include "shared/render.h"
#include "shared/scene.h"
#include "common/alias_table.glsl"

layout(buffer_reference, scalar) readonly buffer Vertices { Vertex v[]; };
layout(buffer_reference, scalar) readonly buffer Indices { uint i[]; };
layout(buffer_reference, scalar) readonly buffer Geometries { Geometry g[]; };
layout(buffer_reference, scalar) readonly buffer Instances { Instance i[]; };
layout(buffer_reference, scalar) readonly buffer Materials { Material m[]; };
layout(buffer_reference, scalar) readonly buffer EmissiveTriangles { EmissiveTriangle t[]; };
layout(buffer_reference, scalar) readonly buffer PunctualLights { PunctualLight l[]; };
layout(buffer_reference, scalar) readonly buffer UintArray { uint u[]; };
layout(buffer_reference, scalar) buffer CounterArray { PixelCounters c[]; };
layout(buffer_reference, scalar) readonly buffer FrameParamsRef { FrameParams p; };

layout(set = SCENE_SET, binding = BINDING_TEXTURES) uniform sampler2D textures[];
layout(constant_id = SPEC_SHADED_CLASS_LIMIT) const uint SCENE_CLASS_LIMIT = MATERIAL_CLASS_COUNT;
layout(constant_id = SPEC_MS_COMPENSATION) const bool MS_COMPENSATION = true;

#define FRAME (FrameParamsRef(push.params).p)
#define SCENE (FRAME.scene)

#endif
