// What every integrator takes and gives: settings in, a timed frame and its image out.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/experiment/image_output.h"
#include "core/scene/scene_data.h"
#include "core/vk/timestamps.h"

namespace ptbench {

enum class IntegratorKind { Megakernel, MegakernelRegen, Wavefront, Raycast };

// Every integrator a config or the command line may name.
inline constexpr std::array<IntegratorKind, 4> allIntegrators = {
    IntegratorKind::Megakernel, IntegratorKind::MegakernelRegen, IntegratorKind::Wavefront, IntegratorKind::Raycast};
// The path tracers: those that render an image of the light transport, which `ptbench verify`
// and the image tests hold to known answers. `raycast` traces rays without shading (the roofline).
inline constexpr std::array<IntegratorKind, 3> pathTracers = {
    IntegratorKind::Megakernel, IntegratorKind::MegakernelRegen, IntegratorKind::Wavefront};

constexpr bool isPathTracer(IntegratorKind kind) {
  return kind != IntegratorKind::Raycast;
}

constexpr std::string_view integratorName(IntegratorKind kind) {
  switch (kind) {
    case IntegratorKind::Megakernel:
      return "megakernel";
    case IntegratorKind::MegakernelRegen:
      return "megakernel-regen";
    case IntegratorKind::Wavefront:
      return "wavefront";
    case IntegratorKind::Raycast:
      return "raycast";
  }
  return "?";
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
  Pool,   // a persistent pool: every iteration refills finished slots with the frame's next samples
};

// The wavefront's options (options.wavefront in configs, render --option key=value);
// core/integrators/options.h parses and describes them.
struct WavefrontOptions {
  WavefrontSchedule schedule = WavefrontSchedule::Depth;
  uint32_t poolSize = 0;  // paths in flight; 0: the schedule's default (options.h)
  bool compaction = true;
  bool materialQueues = false;
};

// The rays `raycast` traces in its measured stage (DESIGN.md, "The roofline").
enum class RaycastRays {
  Primary,  // camera rays, closest hit: the most coherent rays there are
  Diffuse,  // from the camera rays' hits, cosine-distributed about the normal, closest hit (incoherent)
  Shadow,   // from the camera rays' hits to points sampled on the lights, as next-event estimation makes them; any hit
};

constexpr std::string_view raycastRaysName(RaycastRays rays) {
  switch (rays) {
    case RaycastRays::Primary:
      return "primary";
    case RaycastRays::Diffuse:
      return "diffuse";
    case RaycastRays::Shadow:
      return "shadow";
  }
  return "?";
}

// The raycast's options (options.raycast in configs, render --option key=value).
struct RaycastOptions {
  RaycastRays rays = RaycastRays::Diffuse;
};

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
  WavefrontOptions wavefront;                // read by the wavefront only
  RaycastOptions raycast;                    // read by the raycast only
  BvhLayout softwareBvh = BvhLayout::Cwbvh;  // read by the software backend only (option software_bvh)
  // Copy the film back and resolve it into FrameResult's image, variance, work counts and
  // invalid samples. The runner turns it off for the frames it only times: the host's work
  // between frames would leave the GPU idle long enough for its driver to lower the clocks
  // under short frames (a 1 ms raycast frame on an H100 slowed to 6 ms over a run).
  bool readImage = true;
};

// The work a frame did, counted on the GPU per pixel and summed (DESIGN.md, fairness rule 3).
struct WorkCounts {
  uint64_t extensionRays = 0;
  uint64_t shadowRays = 0;
  uint64_t pathSegments = 0;
  uint64_t paths = 0;
};

// The work of one step of the wavefront: a bounce (depth schedule, summed over passes) or an
// iteration (pool schedule). Every live path traces one extension ray a step.
struct StepWork {
  uint64_t extensionRays = 0;
  uint64_t shadowRays = 0;
  uint64_t pathsStarted = 0;
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
  LinearImage image;                                  // mean radiance per pixel
  LinearImage meanVariance;                           // variance of each pixel's mean, per channel
};

}  // namespace ptbench
