#version 460
#extension GL_GOOGLE_include_directive : require
// prepare: one invocation turns a ray set's count into its launch record and counts the
// frame's rays, so that the CPU reads nothing inside a frame.
#include "raycast/state.glsl"
#include "common/launch_record.glsl"

layout(local_size_x = 1) in;

void main() {
  if (push.set == RAYCAST_PREPARE_CAMERA) {
    uint count = pixelCount() * push.samples;
    RAYCAST_COUNTERS.rayCount[RAY_SET_CAMERA] = count;
    RAYCAST_COUNTERS.rayCount[RAY_SET_SPAWNED] = 0u;
    RAYCAST_COUNTERS.cameraRays += uint64_t(count);
    if (push.rays == RAYS_PRIMARY) RAYCAST_COUNTERS.tracedRays += uint64_t(count);
    LaunchRecords(RAYCAST_PARAMS.launches).r[RAY_SET_CAMERA] = launchRecord(count);
  } else {
    uint count = RAYCAST_COUNTERS.rayCount[RAY_SET_SPAWNED];
    RAYCAST_COUNTERS.tracedRays += uint64_t(count);
    LaunchRecords(RAYCAST_PARAMS.launches).r[RAY_SET_SPAWNED] = launchRecord(count);
  }
}
