// The raycast's state in device memory (DESIGN.md, "The roofline"): two sets of rays as
// structure of arrays (the camera rays, and the rays spawned from their hits), the trace
// stage's results, ray counts with the launch records the prepare kernel sizes from them, and
// the frame's totals.
#ifndef PTBENCH_RAYCAST_H
#define PTBENCH_RAYCAST_H
#include "render.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// RaycastParams::rays: the camera rays, and the diffuse or shadow rays spawned from their hits.
PTBENCH_CONST uint RAY_SET_CAMERA = 0;
PTBENCH_CONST uint RAY_SET_SPAWNED = 1;
PTBENCH_CONST uint RAY_SET_COUNT = 2;

PTBENCH_CONST uint NO_RAY = 0xffffffffu;  // RaycastParams::rayOfSlot: the slot traces nothing

// A batch traces several samples of every pixel at once, so that the trace stage's launch
// fills the GPU even where few camera rays hit (a helmet against the sky spawns diffuse rays
// from a tenth of the pixels): as many samples as keep it under this many rays, at least one.
// A slot is (sample within the batch, pixel): sample * pixels + pixel.
PTBENCH_CONST uint RAYCAST_MAX_BATCH_RAYS = 1u << 22;

// The prepare kernel's phases (RaycastPush::phase): the launch over a set, from its count.
PTBENCH_CONST uint RAYCAST_PREPARE_CAMERA = 0;   // the camera rays' launch; clears the spawned count
PTBENCH_CONST uint RAYCAST_PREPARE_SPAWNED = 1;  // the spawned rays' launch

// A set of rays, one array per field, indexed by ray. Only shadow rays read tMax.
struct RaySet {
  uint64_t origin;     // vec3
  uint64_t direction;  // vec3
  uint64_t tMax;       // float
  uint64_t slot;       // uint: the ray's (sample, pixel) slot
};

struct RaycastCounters {
  uint rayCount[RAY_SET_COUNT];
  uint64_t tracedRays;  // the frame's rays of the trace stage, summed over its passes
  uint64_t cameraRays;  // the frame's camera rays
};

struct RaycastParams {
  RaySet rays[RAY_SET_COUNT];
  uint64_t hits;        // HitRecord per ray of the set traced last (closest hit)
  uint64_t occluded;    // uint per ray (any hit): 1 if something blocks it
  uint64_t rayOfSlot;   // uint per slot: its ray in the set the trace stage measures, or NO_RAY
  uint64_t counters;    // RaycastCounters
  uint64_t launches;    // LaunchRecord[RAY_SET_COUNT]
};

struct RaycastPush {
  uint64_t params;   // FrameParams
  uint64_t raycast;  // RaycastParams
  uint sampleIndex;  // the batch's first sample
  uint rays;         // the rays the trace stage measures: RAYS_*
  uint set;          // the ray set a kernel reads (trace), or a prepare phase (prepare)
  uint samples;      // the batch's samples per pixel
};

PTBENCH_CONST uint RAYS_PRIMARY = 0;
PTBENCH_CONST uint RAYS_DIFFUSE = 1;
PTBENCH_CONST uint RAYS_SHADOW = 2;

// Specialisation constant of raycast_trace: any hit (shadow rays) rather than closest hit.
PTBENCH_CONST uint SPEC_ANY_HIT = 0;

PTBENCH_END_NAMESPACE
#endif
