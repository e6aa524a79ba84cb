// What every integrator takes and gives: settings in, a timed frame and its image out.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/integrators/kernel.h"
#include "core/linear_image.h"
#include "core/named_values.h"
#include "core/scene/scene_data.h"
#include "core/stage.h"
#include "core/vk/timestamps.h"

namespace ptbench {

// The extension megakernel-ser needs, for messages.
inline constexpr std::string_view invocationReorderExtension = "VK_NV_ray_tracing_invocation_reorder";

// What sets an integrator apart where code outside core/integrators/ must know it.
struct IntegratorTraits {
  // Renders an image of the light transport, which `ptbench verify` and the image tests hold to
  // known answers (raycast traces rays without shading: the roofline).
  bool pathTracer = false;
  // What relative times divide by: "relative to the megakernel".
  bool baseline = false;
  // Reorders its invocations (SER): runs only on a backend whose kernels are ray generation, on
  // a device that has VK_NV_ray_tracing_invocation_reorder (none that CI has).
  bool reorders = false;
  // Its stages launch once a bounce (or pool iteration): reports time them per bounce.
  bool perBounce = false;
  // Keeps its paths in device memory between launches: a pool sized from the device, and the
  // memory traffic reports estimate.
  bool pathState = false;
};

enum class IntegratorKind {
#define PTBENCH_INTEGRATOR(enumerator, name, traits) enumerator,
#include "core/integrators/integrators.def"
};

// Every integrator a config or the command line may name.
inline constexpr std::array allIntegrators = {
#define PTBENCH_INTEGRATOR(enumerator, name, traits) IntegratorKind::enumerator,
#include "core/integrators/integrators.def"
};

constexpr IntegratorTraits integratorTraits(IntegratorKind kind) {
  switch (kind) {
#define PTBENCH_INTEGRATOR(enumerator, name, traits) \
  case IntegratorKind::enumerator:                   \
    return traits;
#include "core/integrators/integrators.def"
  }
  return {};
}

constexpr std::string_view integratorName(IntegratorKind kind) {
  switch (kind) {
#define PTBENCH_INTEGRATOR(enumerator, name, traits) \
  case IntegratorKind::enumerator:                   \
    return name;
#include "core/integrators/integrators.def"
  }
  return "?";
}

constexpr bool isPathTracer(IntegratorKind kind) {
  return integratorTraits(kind).pathTracer;
}

// The path tracers, in allIntegrators' order.
inline constexpr auto pathTracers = [] {
  std::array<IntegratorKind, std::ranges::count_if(allIntegrators, isPathTracer)> tracers{};
  std::ranges::copy_if(allIntegrators, tracers.begin(), isPathTracer);
  return tracers;
}();

// The integrator every other one's time is relative to.
inline constexpr IntegratorKind baselineIntegrator = [] {
  constexpr auto isBaseline = [](IntegratorKind kind) { return integratorTraits(kind).baseline; };
  static_assert(std::ranges::count_if(allIntegrators, isBaseline) == 1,
                "integrators.def marks one integrator the baseline");
  return *std::ranges::find_if(allIntegrators, isBaseline);
}();

// Whether a list of integrators says, after each that reorders, what it needs (help texts).
enum class IntegratorNeeds { Omitted, Named };

// The names of `kinds`, "a, b, c or d" (with `last` before the last).
inline std::string integratorNameList(std::span<const IntegratorKind> kinds, std::string_view last = " or ",
                                      IntegratorNeeds needs = IntegratorNeeds::Omitted) {
  std::string list;
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) list += i + 1 == kinds.size() ? last : std::string_view(", ");
    list += integratorName(kinds[i]);
    if (needs == IntegratorNeeds::Named && integratorTraits(kinds[i]).reorders)
      list += " (pipeline backend, " + std::string(invocationReorderExtension) + ")";
  }
  return list;
}

constexpr std::optional<IntegratorKind> parseIntegrator(std::string_view name) {
  for (IntegratorKind kind : allIntegrators)
    if (integratorName(kind) == name) return kind;
  return std::nullopt;
}

enum class SamplerKind { Halton, Pcg };

// How the wavefront feeds its pool of paths (DESIGN.md, "Wavefront stages").
enum class WavefrontSchedule {
  Depth,  // the paths of a pass start together and advance one bounce per iteration
  Pool,   // a persistent pool: every iteration fills the pool's room with the frame's next samples
};

// The wavefront's options (options.wavefront in configs, render --option key=value);
// core/integrators/options.h parses and describes them.
struct WavefrontOptions {
  WavefrontSchedule schedule = WavefrontSchedule::Depth;
  uint32_t poolSize = 0;  // paths in flight; 0: the device's default (options.h, defaultWavefrontPool)
  bool compaction = true;
  bool materialQueues = false;
  // Stages that share no data run with no barrier between them: a bounce's shadow beside the
  // next bounce's extend (depth schedule), or beside the next iteration's generate (pool).
  bool shadowOverlap = true;
};

// The rays `raycast` traces in its measured stage (DESIGN.md, "The roofline").
enum class RaycastRays {
  Primary,  // camera rays, closest hit: the most coherent rays there are
  Diffuse,  // from the camera rays' hits, cosine-distributed about the normal, closest hit (incoherent)
  Shadow,   // from the camera rays' hits to points sampled on the lights, as next-event estimation makes them; any hit
};

inline constexpr NamedValues<RaycastRays, 3> raycastRaysNames{
    {{{RaycastRays::Primary, "primary"}, {RaycastRays::Diffuse, "diffuse"}, {RaycastRays::Shadow, "shadow"}}}};
constexpr std::string_view raycastRaysName(RaycastRays rays) {
  return raycastRaysNames.name(rays);
}

// megakernel-ser's options (options.megakernel-ser in configs, render --option key=value).
enum class SerHint {
  None,      // reorder by the hit object alone
  Material,  // and by the material class of the hit (3 hint bits)
};
struct SerOptions {
  SerHint hint = SerHint::Material;
  uint32_t reorderFrom = 1;  // the first bounce reordered: 1, the camera rays' hits; 2, from the first indirect ray
};

// The raycast's options (options.raycast in configs, render --option key=value).
struct RaycastOptions {
  RaycastRays rays = RaycastRays::Diffuse;
};

// restir: ReSTIR at the primary vertex (DESIGN.md, "ReSTIR"), an option of megakernel and
// wavefront: its direct light (DI), its indirect light (GI), or both.
enum class Restir { Off, Di, Gi, DiGi };
inline constexpr NamedValues<Restir, 4> restirNames{
    {{{Restir::Off, "off"}, {Restir::Di, "di"}, {Restir::Gi, "gi"}, {Restir::DiGi, "di+gi"}}}};
inline constexpr std::array<Restir, 4> allRestir = restirNames.values();
constexpr std::string_view restirName(Restir restir) {
  return restirNames.name(restir);
}

// What sizes ReSTIR's work and what it trades for bias (options restir_candidates,
// restir_neighbours, restir_history_cap, restir_gi_jacobian, restir_bsdf_candidate; DESIGN.md,
// "ReSTIR"). The defaults
// are shaders/shared/restir.h's, chosen from measurements (docs/config.md says which).
struct RestirOptions {
  uint32_t candidates = 32;   // DI's light samples resampled into a pixel's initial reservoir
  uint32_t neighbours = 3;    // spatial reuse's neighbours, each pair one visibility ray each way
  float historyCap = 20;      // the history's sample count at most this many times the pixel's
  float giJacobianLimit = 0;  // GI reuse rejects a reconnection Jacobian outside [1/limit, limit]; 0, none
  bool bsdfCandidate = false;  // DI resamples the primary vertex's BSDF sample too, for all of the direct light
};

// counters: what the path tracers' kernels measure beside the image, each in kernels compiled for
// it (a variant), since each perturbs the timing: reports flag such runs. simt: divergence at the
// shading point (FrameResult::simt); clocks: where a kernel's time goes (FrameResult::clocks).
enum class Counters { Off, Simt, Clocks };
inline constexpr NamedValues<Counters, 3> countersNames{
    {{{Counters::Off, "off"}, {Counters::Simt, "simt"}, {Counters::Clocks, "clocks"}}}};
inline constexpr std::array<Counters, 3> allCounters = countersNames.values();
constexpr std::string_view countersName(Counters counters) {
  return countersNames.name(counters);
}

struct RenderSettings {
  uint32_t width = 640;
  uint32_t height = 480;
  uint32_t samplesPerPixel = 16;
  uint32_t maxDepth = 8;
  uint32_t rrDepth = 3;
  uint32_t seed = 0;
  SamplerKind sampler = SamplerKind::Halton;
  Vec3 environment{0, 0, 0};
  Camera camera;
  // On a camera path's frames after the first, the previous frame's camera: what ReSTIR's
  // temporal reuse reprojects through.
  std::optional<Camera> previousCamera;
  Restir restir = Restir::Off;                   // read by megakernel and wavefront (option restir)
  RestirOptions restirOptions;                   // read by megakernel and wavefront where restir is on
  WavefrontOptions wavefront;                    // read by the wavefront only
  RaycastOptions raycast;                        // read by the raycast only
  SerOptions ser;                                // read by megakernel-ser only
  BvhLayout softwareBvh = BvhLayout::Cwbvh;      // read by the software backend only (option software_bvh)
  BvhBuilder softwareBuilder = BvhBuilder::Cpu;  // read by the software backend only (option software_builder)
  // The path tracers' option ms_compensation: the rough GGX lobes give back the light they lose to
  // multiple scattering between microfacets (shaders/common/bsdf.glsl); false, single scattering.
  bool msCompensation = true;
  Counters counters = Counters::Off;
  // timing: stages (each stage between timestamps) or frame (the frame's two only): what timing
  // each stage costs is the difference between the two.
  bool stageTimestamps = true;
  // Copy the film back and resolve it into FrameResult's image, variance, work counts and
  // invalid samples. The runner turns it off for the frames it only times: the host's work
  // between frames would leave the GPU idle long enough for its driver to lower the clocks
  // under short frames (a 1 ms raycast frame on an H100 slowed to 6 ms over a run).
  bool readImage = true;
};

// The work a frame did, counted on the GPU per pixel and summed (DESIGN.md, fairness rule 3).
struct WorkCounts {
  uint64_t extensionRays = 0;
  uint64_t shadowRays = 0;  // ReSTIR's visibility rays included
  uint64_t pathSegments = 0;
  uint64_t paths = 0;
  // ReSTIR's visibility rays by pass (Stage::RestirTemporal, RestirSpatial, RestirShade).
  std::array<uint64_t, 3> restirRays{};
};

// The work of one step of the wavefront: a bounce (depth schedule, summed over passes) or an
// iteration (pool schedule). Every live path traces one extension ray a step.
struct StepWork {
  uint64_t extensionRays = 0;
  uint64_t shadowRays = 0;
  uint64_t pathsStarted = 0;
};

// Divergence at a path tracer's shading point (counters: simt), per bounce (index 0: the camera
// rays' hits), summed over the frame (shared/render.h, SimtBounce).
struct SimtBounceCounts {
  double subgroups = 0;  // subgroup events, lanes at several bounces splitting theirs
  uint64_t lanes = 0;    // active lanes
  double classes = 0;    // distinct material classes, summed over events (split alike)

  // Active lanes / (events x subgroup size): 1 when every lane of every subgroup shades.
  double utilisation(uint32_t subgroupSize) const {
    return subgroups > 0 && subgroupSize > 0 ? double(lanes) / (subgroups * subgroupSize) : 0.0;
  }
  // Distinct material classes per event: 1 when each subgroup shades one class.
  double coherence() const { return subgroups > 0 ? classes / subgroups : 0.0; }
};
struct SimtCounts {
  Stage stage = Stage::TraceShade;  // the stage whose kernels hold the shading point
  uint32_t subgroupSize = 0;
  std::vector<SimtBounceCounts> bounces;  // up to the deepest bounce reached

  SimtBounceCounts total() const {
    SimtBounceCounts sum;
    for (const SimtBounceCounts& bounce : bounces) {
      sum.subgroups += bounce.subgroups;
      sum.lanes += bounce.lanes;
      sum.classes += bounce.classes;
    }
    return sum;
  }
};

// Where a kernel's time goes (counters: clocks), in lane-cycles of the subgroup clock summed over
// the frame, by phase (shared/render.h, CLOCK_PHASE_*): traversal, material, light, rest.
struct PhaseCycles {
  std::array<uint64_t, 4> cycles{};

  uint64_t total() const { return cycles[0] + cycles[1] + cycles[2] + cycles[3]; }
  double share(size_t phase) const { return total() > 0 ? double(cycles[phase]) / double(total()) : 0.0; }
  PhaseCycles& operator+=(const PhaseCycles& other) {
    for (size_t phase = 0; phase < cycles.size(); ++phase) cycles[phase] += other.cycles[phase];
    return *this;
  }
};
inline constexpr std::array<std::string_view, 4> phaseNames{"traversal", "material", "light", "rest"};
struct ClockCounts {
  // The megakernels': per bounce (index 0: the camera ray's segment), up to the deepest reached.
  std::vector<PhaseCycles> bounces;
  // The wavefront's: per clocked stage (extend, shade, shadow), in that order.
  std::vector<std::pair<Stage, PhaseCycles>> stages;

  PhaseCycles total() const {
    PhaseCycles sum;
    for (const PhaseCycles& bounce : bounces) sum += bounce;
    for (const auto& [stage, cycles] : stages) sum += cycles;
    return sum;
  }
};

// Without RenderSettings::readImage, only the timings, and the wavefront's steps, are filled in.
struct FrameResult {
  std::vector<vk::StageTiming> stages;  // in recording order: one per timed scope
  double gpuMs = 0;                     // the whole frame: first timestamp to last (DESIGN.md, "honest")
  double hostMs = 0;                    // submit to fence, for reference beside gpuMs
  WorkCounts work;
  std::vector<StepWork> steps;  // the wavefront's work per bounce or iteration; empty for the megakernel
  uint64_t invalidSamples = 0;  // NaN or infinite samples, counted as black
  uint32_t pixelSamplesMin = 0, pixelSamplesMax = 0;  // samples that reached a pixel
  uint64_t stateBytes = 0;                            // the wavefront's path state and queues
  uint64_t launches = 0;                              // kernel launches in the frame, all stages
  std::optional<SimtCounts> simt;                     // with counters: simt and readImage
  std::optional<ClockCounts> clocks;                  // with counters: clocks and readImage
  LinearImage image;                                  // mean radiance per pixel
  LinearImage meanVariance;                           // variance of each pixel's mean, per channel
};

// An integrator: kernels created once for a scene and a trace target, then any number of frames.
class Integrator {
 public:
  virtual ~Integrator() = default;
  // Renders one frame of settings.samplesPerPixel samples, timed per stage. The options fixed at
  // creation (IntegratorOption::fixedAtCreation) are the integrator's own: a frame's are not read.
  virtual FrameResult render(const RenderSettings& settings) = 0;
  // Every kernel the integrator created, with the stage it runs in: creation times (host time,
  // reported, never inside a frame) and the driver's statistics.
  virtual std::vector<KernelStatistics> kernels() const = 0;
  double pipelineCreateMs() const { return ptbench::pipelineCreateMs(kernels()); }
};

}  // namespace ptbench
