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

// The far end of a ray that has none. Shading code needs it as well as the trace backends.
PTBENCH_CONST float RAY_T_MAX = 1e30f;

// Radiance sums are 64-bit fixed point in units of 1/FILM_FIXED_POINT_SCALE: integer addition
// is exact and associative, so a pixel's sum neither drifts at high sample counts (float32
// sums of 0.1 land 1% off after 10^6 additions) nor depends on the order in which the
// wavefront's many paths of one pixel arrive. Resolution 6e-8; a pixel's sum may reach 1.1e12.
PTBENCH_CONST float FILM_FIXED_POINT_SCALE = 16777216.0f;  // 2^24

// Below this GGX alpha (roughness^2) the specular lobe is a perfect mirror: a delta lobe,
// sampled but never evaluated, and so outside MIS and light sampling. Near it, GGX's D spans
// orders of magnitude across half vectors closer to the normal than float32 resolves, and any
// two evaluations that round differently give f / pdf off by large factors (an NVIDIA H200 gave
// 0.70 in the mirror furnace). pbrt-v4 draws the line at the same place. core/verify's known
// answers use the same constant.
PTBENCH_CONST float SPECULAR_DELTA_ALPHA = 1e-3f;

// KHR_materials_sheen: the directional-albedo table's size in each of cos theta and roughness,
// and the least roughness shaded (the Charlie distribution degenerates at 0).
PTBENCH_CONST uint SHEEN_ALBEDO_SIZE = 32;

// Multiple-scattering compensation of the rough GGX lobes (core/scene/multiple_scattering.h),
// one table of floats: the white conductor's directional albedo E at MS_ALBEDO_SIZE evenly
// spaced cosines (rows) and roughnesses (columns) from 0 to 1; its average E_avg per roughness
// (MS_AVERAGE_OFFSET); then the white rough glass's E (MS_GLASS_OFFSET) for light arriving from
// outside (relative IOR eta = IOR) and from inside (1 / IOR), each at MS_GLASS_IORS IORs evenly
// spaced in (IOR - 1) / (IOR + 1) from 0 to MS_GLASS_IOR_PARAMETER_MAX (IOR 1 to 3).
// SPEC_MS_COMPENSATION (every kernel): 0 compiles the compensation out (ms_compensation: false).
PTBENCH_CONST uint MS_ALBEDO_SIZE = 32;
PTBENCH_CONST uint MS_GLASS_IORS = 11;
PTBENCH_CONST float MS_GLASS_IOR_PARAMETER_MAX = 0.5f;
PTBENCH_CONST uint MS_AVERAGE_OFFSET = MS_ALBEDO_SIZE * MS_ALBEDO_SIZE;
PTBENCH_CONST uint MS_GLASS_OFFSET = MS_AVERAGE_OFFSET + MS_ALBEDO_SIZE;
PTBENCH_CONST uint MS_TABLE_SIZE = MS_GLASS_OFFSET + 2 * MS_GLASS_IORS * MS_ALBEDO_SIZE * MS_ALBEDO_SIZE;
PTBENCH_CONST uint SPEC_MS_COMPENSATION = 18;

// Specialisation constant of every kernel: the highest material class (scene.h) its scene has.
// Shading code of the classes above it compiles out, in every integrator alike, so that no
// kernel carries the registers of materials its scene does not use.
PTBENCH_CONST uint SPEC_SHADED_CLASS_LIMIT = 17;
PTBENCH_CONST float SHEEN_MIN_ROUGHNESS = 0.07f;

// megakernel-ser (VK_NV_ray_tracing_invocation_reorder): its coherence hint, and the bounce
// (1: the camera rays' hits) from which it reorders, as specialisation constants.
PTBENCH_CONST uint SPEC_SER_HINT = 0;
PTBENCH_CONST uint SPEC_SER_REORDER_FROM = 1;
PTBENCH_CONST uint SER_HINT_NONE = 0;      // reorder by the hit object alone (hit group, miss)
PTBENCH_CONST uint SER_HINT_MATERIAL = 1;  // and by the hit's material class
PTBENCH_CONST uint SER_HINT_BITS = 3;      // material classes 0..6 (scene.h)
PTBENCH_CONST uint HIT_OBJECT_ATTRIBUTES = 0;  // location of the hit object's barycentrics

// Sample dimensions: two for the pixel, two for the lens, then DIMENSIONS_PER_BOUNCE for each
// path vertex.
PTBENCH_CONST uint DIMENSION_CAMERA = 0;
PTBENCH_CONST uint DIMENSION_LENS = 2;  // two: the point on a thin lens
PTBENCH_CONST uint DIMENSION_FIRST_BOUNCE = 4;
PTBENCH_CONST uint DIMENSIONS_PER_BOUNCE = 8;
PTBENCH_CONST uint DIMENSION_LIGHT_CHOICE = 0;
PTBENCH_CONST uint DIMENSION_LIGHT_POINT = 1;  // two
PTBENCH_CONST uint DIMENSION_LOBE = 3;
PTBENCH_CONST uint DIMENSION_BSDF = 4;  // two
PTBENCH_CONST uint DIMENSION_ROULETTE = 6;
PTBENCH_CONST uint DIMENSION_LIGHT_INDEX = 7;  // 32 bits (sampleBits), not a float

struct CameraParams {
  vec3 position;
  float tanHalfFovY;
  vec3 forward;
  float aspect;
  vec3 right;
  float lensRadius;  // 0: a pinhole
  vec3 up;
  float focusDistance;  // along forward: the plane the lens focuses on
};

// One pixel of the film. Every integrator adds to it with atomics, so any number of paths of
// one pixel may be in flight at once.
struct FilmPixel {
  uint64_t radianceSum[3];         // fixed point, FILM_FIXED_POINT_SCALE
  uint radianceSquaredSumBits[3];  // float32 bits, added by compare-and-swap: for the noise estimate only
  uint sampleCount;
  uint invalidSamples;  // NaN, infinite, negative or >= 1e12 samples, counted as black
  uint pad;
};

// A thread's samples of one pixel, summed in registers and added to the film once
// (common/film.glsl says when with atomics and when with plain loads and stores; on an H200
// atomics to the film inside the megakernel cost 19%, and a separate resolve kernel after every
// megakernel launch 5-30%).
struct FilmSample {
  uint64_t radianceSum[3];  // fixed point, FILM_FIXED_POINT_SCALE
  float radianceSquaredSum[3];
  uint sampleCount;
  uint invalidSamples;
  uint pad;
};

// Per-pixel counts of the megakernel's work, summed on the host (DESIGN.md, fairness rule 3).
// The wavefront counts per bounce instead (wavefront.h).
struct PathCounts {
  uint extensionRays;
  uint shadowRays;  // the path's and ReSTIR's passes' (which count theirs in restirRays as well)
  uint pathSegments;
  uint paths;
};

struct PixelCounters {
  // The megakernels carry only these through their loops, so that ReSTIR's counts cost the
  // plain path tracers no registers (a 4% slower megakernel-regen on an H200 when they did).
  PathCounts path;
  // ReSTIR's visibility rays, per pass: temporal reuse, spatial reuse, the final shading.
  uint restirRays[3];
  uint pad;
};

// Divergence counters (counters: simt; DESIGN.md, "Divergence counters"). At its shading point
// each subgroup records, per bounce, its share of one subgroup event (lanes there / lanes
// active, in units of 1/SIMT_SHARE_SCALE), those lanes, and the same share of the distinct
// material classes its active lanes hold. A subgroup whose lanes are all at one bounce adds a
// whole event to it; lanes at several (megakernel-regen, the pool schedule) split it. Then per
// bounce: utilisation = lanes / (events x subgroup size), coherence = class share / events.
PTBENCH_CONST uint SIMT_SHARE_SCALE = 1u << 20;
PTBENCH_CONST uint SIMT_MAX_BOUNCES = 1024;  // the largest max_depth a config may ask
struct SimtBounce {
  uint64_t subgroupShare;  // SIMT_SHARE_SCALE per subgroup event
  uint64_t lanes;
  uint64_t classShare;  // SIMT_SHARE_SCALE x distinct classes per subgroup event
};
struct SimtCountersHeader {
  uint subgroupSize;  // gl_SubgroupSize where the counters were recorded
  uint pad;
};  // followed by SimtBounce[SIMT_MAX_BOUNCES]

// Where a kernel's time goes (counters: clocks; common/phase_clocks.glsl). Each invocation adds
// the subgroup clock's cycles between its phase changes to the phase it was in; a subgroup sums
// its lanes' and adds them to a bin: the megakernels' bin is the path's bounce (index 0: the
// camera ray's segment), the wavefront's its stage (CLOCK_BIN_EXTEND...). Lane-cycles: a lane
// that waits for its subgroup counts the wait in the phase it waits in.
PTBENCH_CONST uint CLOCK_PHASE_TRAVERSAL = 0;  // traceClosest, traceAny
PTBENCH_CONST uint CLOCK_PHASE_MATERIAL = 1;   // the shading point, BSDF evaluation and sampling
PTBENCH_CONST uint CLOCK_PHASE_LIGHT = 2;      // light sampling, emission and MIS
PTBENCH_CONST uint CLOCK_PHASE_REST = 3;       // everything else: path state, queues, film
PTBENCH_CONST uint CLOCK_PHASES = 4;
PTBENCH_CONST uint CLOCK_MAX_BINS = SIMT_MAX_BOUNCES;
PTBENCH_CONST uint CLOCK_BIN_EXTEND = 0;
PTBENCH_CONST uint CLOCK_BIN_SHADE = 1;
PTBENCH_CONST uint CLOCK_BIN_SHADOW = 2;
struct ClockBin {
  uint64_t cycles[CLOCK_PHASES];  // lane-cycles, by phase
};

struct FrameParams {
  SceneAddresses scene;
  CameraParams camera;
  uint64_t film;          // FilmPixel per pixel
  uint64_t counters;      // PixelCounters per pixel (megakernel)
  uint64_t simtCounters;  // SimtCountersHeader and bounces; 0 without counters: simt
  uint64_t clockCounters;  // ClockBin[CLOCK_MAX_BINS]; 0 without counters: clocks
  vec3 environment;      // constant environment radiance
  uint width;
  uint height;
  uint samplesPerPixel;
  uint maxDepth;  // the most segments a path may have; 1 sees only what the camera ray hits
  uint rrDepth;   // Russian roulette from this segment on
  uint seed;
  uint samplerKind;  // SAMPLER_HALTON or SAMPLER_PCG
  uint traceRowWidth;  // DeviceCapabilities::traceRowWidth: 1-D ray-generation launches fold into rows this wide
  uint pad;
  uint64_t restir;  // RestirFrame (shared/restir.h); 0 with restir: off
};

// A launch sized on the device (common/launch_record.glsl, for the wavefront's and raycast's
// indirect launches) as compute and as ray generation would take it, and the exact item count,
// which kernels check their index against (the launch may round up).
struct LaunchRecord {
  uint groupsX;  // VkDispatchIndirectCommand
  uint groupsY;
  uint groupsZ;
  uint width;  // VkTraceRaysIndirectCommandKHR
  uint height;
  uint depth;
  uint count;
  uint pad;
};

// A closest hit as the wavefront's extend and the raycast's trace store it, one per ray.
struct HitRecord {
  float t;  // negative: the ray escaped
  uint instance;
  uint geometry;
  uint primitive;
  vec2 barycentrics;
};

struct FramePush {
  uint64_t params;   // FrameParams
  uint sampleIndex;  // the sample a pass renders (megakernel), or the first one (regen)
  uint pad;
};

PTBENCH_END_NAMESPACE
#endif
