#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#include "shared/raytracing.h"

layout(location = PAYLOAD_SHADOW) rayPayloadInEXT uint shadowPayload;

void main() { shadowPayload = 0u; }
