// ReSTIR at the primary vertex: DI (Bitterli et al. 2020) and GI (Ouyang et al. 2021), what
// their passes share (DESIGN.md, "ReSTIR"). The path tracer writes each pixel's primary vertex
// (RestirSurface), its initial DI reservoir and the start of its GI sample; temporal reuse,
// spatial reuse and the final shading follow as kernels of their own (shaders/restir/), the same
// in every architecture.
#ifndef PTBENCH_RESTIR_H
#define PTBENCH_RESTIR_H
#include "render.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// Specialisation constant of the path tracers' kernels and ReSTIR's passes: RESTIR_OFF, or a
// set of the bits RESTIR_DI and RESTIR_GI. Off, the primary vertex's code is the plain path
// tracer's, compiled out; each bit compiles in its own part.
PTBENCH_CONST uint SPEC_RESTIR = 19;
PTBENCH_CONST uint RESTIR_OFF = 0;
PTBENCH_CONST uint RESTIR_DI = 1;
PTBENCH_CONST uint RESTIR_GI = 2;

// The defaults of the options that size ReSTIR's work (RestirFrame holds a run's values):
// light samples drawn at the primary vertex and resampled into its initial reservoir (RIS),
// Bitterli et al.'s 32; the history's sample count capped at this many times the current
// pixel's, so that old samples (and what changed since they were drawn) fade, their 20; spatial
// reuse's neighbours, each uniformly in a disk of this many pixels about the pixel, their
// unbiased variant's 3 and 30.
PTBENCH_CONST uint RESTIR_DEFAULT_CANDIDATES = 32;
PTBENCH_CONST uint RESTIR_DEFAULT_HISTORY_CAP = 20;
PTBENCH_CONST uint RESTIR_DEFAULT_NEIGHBOURS = 3;
PTBENCH_CONST float RESTIR_DEFAULT_RADIUS = 30.0f;
// The largest values the options take: the passes' sample dimensions leave room for this many
// candidates (five dimensions each) and neighbours (three each).
PTBENCH_CONST uint RESTIR_MAX_CANDIDATES = 512;
PTBENCH_CONST uint RESTIR_MAX_NEIGHBOURS = 64;
// A neighbour, or the history's pixel, is the same surface when its normal is within about
// 25 degrees of the pixel's and its depth within 10%; history that fails is disoccluded and
// dropped. Neighbours are chosen by geometry alone, so the test biases nothing (the MIS
// weights are over the reservoirs taken).
PTBENCH_CONST float RESTIR_NORMAL_COSINE = 0.906f;
PTBENCH_CONST float RESTIR_DEPTH_TOLERANCE = 0.1f;
// Random numbers of the resampling passes: dimensions of the pixel's sample stream far beyond
// any path vertex's (bounceDimension reaches 8196 at the deepest path), so always PCG draws.
PTBENCH_CONST uint RESTIR_DIMENSION_CANDIDATES = 1u << 20;  // five per candidate
PTBENCH_CONST uint RESTIR_DIMENSION_BSDF_CANDIDATE = (1u << 20) + 5u * RESTIR_MAX_CANDIDATES;
PTBENCH_CONST uint RESTIR_DIMENSION_TEMPORAL = (1u << 20) + 4096u;
PTBENCH_CONST uint RESTIR_DIMENSION_SPATIAL = (1u << 20) + 8192u;  // three per neighbour
PTBENCH_CONST uint RESTIR_DIMENSION_GI_TEMPORAL = (1u << 20) + 12288u;
PTBENCH_CONST uint RESTIR_DIMENSION_GI_SPATIAL = (1u << 20) + 16384u;  // three per neighbour
// ReSTIR GI reconnects other pixels' primary vertices to a sample point and reuses the radiance
// the path found leaving it, as if it left the same way towards every vertex: exact on a
// Lambertian surface, and close enough only on rough opaque ones. Sample points on smoother
// surfaces (or transmissive ones, or car paint) stay their own path's (not resampled).
PTBENCH_CONST float RESTIR_GI_MIN_ROUGHNESS = 0.5f;

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

// ReSTIR GI's sample: a point the path's first indirect ray found (x_s), its geometric normal
// facing the vertex that found it (the side whose outgoing radiance was measured), and that
// radiance L_o, what the rest of the path brought back to it.
struct GiSample {
  vec3 position;
  vec3 normal;
  vec3 radiance;
};

// A pixel's GI reservoir: the sample kept, its unbiased contribution weight W (in area measure at
// the sample point, so that it carries from vertex to vertex: the reconnection's Jacobian is in
// the target), the candidates it stands for, and the target the pixel that resampled it had at
// it, which reuse's pairwise MIS weights need (as Reservoir's).
struct GiReservoir {
  GiSample kept;
  float weight;  // W
  float count;   // M
  float target;  // p-hat of the kept sample at the reservoir's own pixel (area measure, shadowed)
};

// What the path tracer records of its first indirect bounce, from which temporal reuse builds the
// pixel's initial GI reservoir: pdf 0 when the bounce is not a GI sample (no bounce, a delta lobe,
// a transmission: its light stays in the path's radiance), else the path's radiance (RestirFrame's
// pathRadiance) is L_o at the sample point, which this holds.
struct GiStart {
  vec3 emission;    // what the path gathered before leaving the primary vertex
  vec3 throughput;  // the path's throughput leaving it: weighs L_o back when the point is not reusable
  float pdf;        // the BSDF's sampling density of the direction, solid angle
  vec3 position;    // x_s
  vec3 normal;      // x_s's geometric normal, facing the primary vertex
  uint reusable;    // the ray found x_s and its surface is rough enough (RESTIR_GI_MIN_ROUGHNESS)
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
                            // (with GI, from its GI sample's point on: L_o)
  uint64_t giStart;         // GiStart per pixel (0 without GI)
  uint64_t giTemporal;      // GiReservoir per pixel
  uint64_t giSpatial;       // GiReservoir per pixel: the final ones and the next pass's history
  CameraParams previousCamera;  // the history's camera
  uint firstPass;           // the number of the frame's first sample pass since the integrator began
  uint historyValid;        // whether the frame's first pass has history (later passes always do)
  // The run's options (RestirOptions): initial DI candidates, spatial neighbours and their disk's
  // radius in pixels, and the history's cap as a multiple of the current pixel's sample count.
  uint candidates;
  uint neighbours;
  float radius;
  float historyCap;
  // GI's bias-trading knob, 0 for off: a neighbour's or the history's sample whose
  // reconnection Jacobian to this pixel's vertex lies outside [1 / limit, limit] is not reused.
  float giJacobianLimit;
  // 1: DI's initial reservoir takes the primary vertex's BSDF sample as a candidate beside the
  // light samples and estimates all of the direct light; 0: light samples only, for light
  // sampling's MIS-weighted share (the path's BSDF sample keeps the rest).
  uint bsdfCandidate;
};

PTBENCH_END_NAMESPACE
#endif
