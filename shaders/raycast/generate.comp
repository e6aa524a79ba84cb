#version 460
#extension GL_GOOGLE_include_directive : require
// generate: the camera ray of every pixel for each sample of the batch, sample by sample, the
// pixels in the wavefront's tile order (so that the trace stage reads them as coherently as the
// wavefront's extend does), from the path tracers' sample stream.
#include "raycast/state.glsl"
#include "common/pixel_order.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint ray = kernelIndex();
  if (ray >= rayCount(RAY_SET_CAMERA)) return;
  uint pixel = tiledPixel(ray % pixelCount());
  uint slot = ray - ray % pixelCount() + pixel;
  vec3 origin, direction;
  cameraRay(uvec2(pixel % FRAME.width, pixel / FRAME.width), sampleStream(pixel, slotSample(slot)), origin,
            direction);
  storeRay(RAY_SET_CAMERA, ray, origin, direction, RAY_T_MAX, slot);
  // Spawned rays take the slot over from the camera ray (spawn).
  UintBuffer(RAYCAST_PARAMS.rayOfSlot).u[slot] = ray;
}
