// ReSTIR DI (Bitterli et al. 2020) at the primary vertex: what its passes share (DESIGN.md,
// "ReSTIR"). The path tracer writes each pixel's primary vertex (RestirSurface) and its initial
// reservoir; temporal reuse, spatial reuse and the final shading follow as kernels of their own
// (shaders/restir/), the same in every architecture.
#ifndef PTBENCH_RESTIR_H
#define PTBENCH_RESTIR_H
#include "render.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// Specialisation constant of the path tracers' kernels: RESTIR_OFF or RESTIR_DI. Off, the
// primary vertex's code is the plain path tracer's, compiled out.
PTBENCH_CONST uint SPEC_RESTIR = 19;
PTBENCH_CONST uint RESTIR_OFF = 0;
PTBENCH_CONST uint RESTIR_DI = 1;

// Light samples drawn at the primary vertex and resampled into its initial reservoir (RIS):
// Bitterli et al.'s 32.
PTBENCH_CONST uint RESTIR_INITIAL_CANDIDATES = 32;
// Temporal reuse caps the history's sample count at this many times the current pixel's, so
// that old samples (and what changed since they were drawn) fade: Bitterli et al.'s 20.
PTBENCH_CONST uint RESTIR_HISTORY_CAP = 20;
// Spatial reuse: this many neighbours, each uniformly in a disk of this many pixels about the
// pixel (Bitterli et al.'s unbiased variant: 3 neighbours, 30 pixels).
PTBENCH_CONST uint RESTIR_SPATIAL_NEIGHBOURS = 3;
PTBENCH_CONST float RESTIR_SPATIAL_RADIUS = 30.0f;
// A neighbour, or the history's pixel, is the same surface when its normal is within about
// 25 degrees of the pixel's and its depth within 10%; history that fails is disoccluded and
// dropped. Neighbours are chosen by geometry alone, so the test biases nothing (the MIS
// weights are over the reservoirs taken).
PTBENCH_CONST float RESTIR_NORMAL_COSINE = 0.906f;
PTBENCH_CONST float RESTIR_DEPTH_TOLERANCE = 0.1f;
// Random numbers of the resampling passes: dimensions of the pixel's sample stream far beyond
// any path vertex's (bounceDimension reaches 8196 at the deepest path), so always PCG draws.
PTBENCH_CONST uint RESTIR_DIMENSION_CANDIDATES = 1u << 20;  // five per candidate
PTBENCH_CONST uint RESTIR_DIMENSION_TEMPORAL = (1u << 20) + 4096u;
PTBENCH_CONST uint RESTIR_DIMENSION_SPATIAL = (1u << 20) + 8192u;  // three per neighbour

// A light sample as a reservoir keeps it, so that any shading point can evaluate it: the
// light's kind and index, and where on it (barycentrics on a triangle, a direction of the
// environment; nothing for a punctual light).
PTBENCH_CONST uint RESTIR_LIGHT_NONE = 0;
PTBENCH_CONST uint RESTIR_LIGHT_TRIANGLE = 1;
PTBENCH_CONST uint RESTIR_LIGHT_ENVIRONMENT = 2;
PTBENCH_CONST uint RESTIR_LIGHT_PUNCTUAL = 3;
struct LightRef {
  uint kind;
  uint index;
  vec3 point;
};

// A pixel's reservoir: the sample kept, its unbiased contribution weight W (the reciprocal of
// its effective pdf, in the light's measure: area on a triangle, solid angle for the
// environment, counting for a punctual light), the candidates it stands for (its confidence in
// the MIS weights of reuse), and the target the pixel that resampled it had at it (unshadowed
// in an initial reservoir, shadowed after reuse), which a reuse pass needs for its MIS weights.
struct Reservoir {
  LightRef light;
  float weight;  // W
  float count;   // M
  float target;  // p-hat of the kept sample at the reservoir's own pixel
};

// A pixel's primary vertex, as the resampling passes rebuild its shading point: the camera
// ray's hit and direction, the path's throughput there, and position and normal for the reuse
// tests. hit.t < 0: no vertex (the camera ray escaped, or max_depth 1).
struct RestirSurface {
  float t;
  uint instance;
  uint geometry;
  uint primitive;
  vec2 barycentrics;
  vec3 direction;
  vec3 throughput;
  vec3 position;
  vec3 normal;  // geometric, facing the camera
};

// What the passes of one frame read, uploaded with the frame's parameters (FrameParams::restir).
// Surfaces alternate between two arrays, one pass's and the one before's (for temporal reuse);
// reservoirs go initial (the path tracer's) -> temporal -> spatial, the last being the next
// pass's history and the one the final shading uses.
struct RestirFrame {
  uint64_t surfaces[2];
  uint64_t initial;         // Reservoir per pixel
  uint64_t temporal;        // Reservoir per pixel
  uint64_t spatial;         // Reservoir per pixel: the final reservoirs and the next pass's history
  uint64_t pathRadiance;    // vec3 per pixel: the path's radiance but the primary vertex's direct light
  CameraParams previousCamera;  // the history's camera
  uint firstPass;           // the number of the frame's first sample pass since the integrator began
  uint historyValid;        // whether the frame's first pass has history (later passes always do)
};

PTBENCH_END_NAMESPACE
#endif
