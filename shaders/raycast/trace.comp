#version 460
#extension GL_GOOGLE_include_directive : require
#include "raycast/trace.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() { traceRays(); }
