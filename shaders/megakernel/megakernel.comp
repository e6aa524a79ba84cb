#version 460
#extension GL_GOOGLE_include_directive : require
#include "megakernel.glsl"

layout(local_size_x = MEGAKERNEL_TILE, local_size_y = MEGAKERNEL_TILE) in;

void main() { megakernel(gl_GlobalInvocationID.xy); }
