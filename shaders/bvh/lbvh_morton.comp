#version 460
#extension GL_GOOGLE_include_directive : require
// Each primitive's 30-bit Morton code: its box's centre on a 1024³ grid over the centroids' box.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { LbvhPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

// The 10 low bits of v spread to every third bit.
uint spreadBits(uint v) {
  v = (v * 0x00010001u) & 0xFF0000FFu;
  v = (v * 0x00000101u) & 0x0F00F00Fu;
  v = (v * 0x00000011u) & 0xC30C30C3u;
  v = (v * 0x00000005u) & 0x49249249u;
  return v;
}

void main() {
  FOR_EACH_ELEMENT(primitive, push.count) {
    const BuildBounds box = BoundsArray(push.primitives).bounds[primitive];
    const vec3 cell = ((box.min + box.max) * 0.5 - push.centroidMin) * push.centroidScale;
    const uvec3 q = uvec3(clamp(cell, vec3(0), vec3(1023)));
    UintArray(push.keys).values[primitive] = spreadBits(q.x) << 2 | spreadBits(q.y) << 1 | spreadBits(q.z);
    UintArray(push.order).values[primitive] = primitive;
  }
}
