#version 460
#extension GL_GOOGLE_include_directive : require
// generate: the camera ray of every pixel for this sample, in the wavefront's tile order (so
// that the trace stage reads them as coherently as the wavefront's extend does), from the
// path tracers' sample stream.
#define RAYCAST
#include "raycast/state.glsl"
#include "common/pixel_order.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint ray = kernelIndex();
  if (ray >= rayCount(RAY_SET_CAMERA)) return;
  uint pixel = tiledPixel(ray);
  vec3 origin, direction;
  cameraRay(uvec2(pixel % FRAME.width, pixel / FRAME.width), sampleStream(pixel, push.sampleIndex), origin,
            direction);
  storeRay(RAY_SET_CAMERA, ray, origin, direction, RAY_T_MAX, pixel);
  // Spawned rays take the pixel over from the camera ray (spawn).
  UintBuffer(RAYCAST_PARAMS.rayOfPixel).u[pixel] = ray;
}
