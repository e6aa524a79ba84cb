#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#extension GL_EXT_scalar_block_layout : require
#include "shared/raytracing.h"

layout(location = PAYLOAD_SHADOW) rayPayloadInEXT ShadowPayload shadowPayload;

void main() { shadowPayload.missed = 1u; }
