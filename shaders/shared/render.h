// What every path-tracing kernel reads: the frame's parameters and the film it writes.
#ifndef PTBENCH_RENDER_H
#define PTBENCH_RENDER_H
#include "bindings.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

PTBENCH_CONST uint SAMPLER_HALTON = 0;
PTBENCH_CONST uint SAMPLER_PCG = 1;

PTBENCH_CONST uint MEGAKERNEL_TILE = 8;  // 8x8 threads a workgroup

// Sample dimensions: two for the pixel, then DIMENSIONS_PER_BOUNCE for each path vertex.
PTBENCH_CONST uint DIMENSION_CAMERA = 0;
PTBENCH_CONST uint DIMENSIONS_PER_BOUNCE = 7;
PTBENCH_CONST uint DIMENSION_LIGHT_CHOICE = 0;
PTBENCH_CONST uint DIMENSION_LIGHT_POINT = 1;  // two
PTBENCH_CONST uint DIMENSION_LOBE = 3;
PTBENCH_CONST uint DIMENSION_BSDF = 4;         // two
PTBENCH_CONST uint DIMENSION_ROULETTE = 6;

struct CameraParams {
  vec3 position;
  float tanHalfFovY;
  vec3 forward;
  float aspect;
  vec3 right;
  float pad0;
  vec3 up;
  float pad1;
};

// Per-pixel counts of the work done, summed on the host (DESIGN.md, fairness rule 3).
struct PixelCounters {
  uint extensionRays;
  uint shadowRays;
  uint pathSegments;
  uint paths;
};

struct FrameParams {
  SceneAddresses scene;
  CameraParams camera;
  uint64_t radianceSum;         // vec4 per pixel: radiance (rgb), samples (a)
  uint64_t radianceSquaredSum;  // vec4 per pixel: squared radiance (rgb)
  uint64_t counters;            // PixelCounters per pixel
  vec3 environment;             // constant environment radiance
  uint width;
  uint height;
  uint samplesPerPixel;
  uint maxDepth;  // the most segments a path may have; 1 sees only what the camera ray hits
  uint rrDepth;   // Russian roulette from this segment on
  uint seed;
  uint samplerKind;  // SAMPLER_HALTON or SAMPLER_PCG
  uint pad0;
  uint pad1;
};

struct FramePush {
  uint64_t params;  // FrameParams
  uint sampleIndex; // the sample a pass renders (megakernel), or the first one (regen)
  uint pad;
};

PTBENCH_END_NAMESPACE
#endif
