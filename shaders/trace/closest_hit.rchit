#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require
#extension GL_EXT_scalar_block_layout : require
#include "shared/raytracing.h"

layout(location = PAYLOAD_HIT) rayPayloadInEXT HitPayload hitPayload;
hitAttributeEXT vec2 barycentrics;

void main() {
  hitPayload.t = gl_HitTEXT;
  hitPayload.instance = gl_InstanceCustomIndexEXT;
  hitPayload.geometry = gl_GeometryIndexEXT;
  hitPayload.primitive = gl_PrimitiveID;
  hitPayload.barycentrics = barycentrics;
}
