// What every integrator takes and gives: settings in, a timed frame and its image out.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/experiment/image_output.h"
#include "core/scene/scene_data.h"
#include "core/vk/timestamps.h"

namespace ptbench {

enum class IntegratorKind { Megakernel, MegakernelRegen };

inline constexpr std::array<IntegratorKind, 2> allIntegrators = {IntegratorKind::Megakernel,
                                                                 IntegratorKind::MegakernelRegen};

constexpr std::string_view integratorName(IntegratorKind kind) {
  switch (kind) {
    case IntegratorKind::Megakernel:
      return "megakernel";
    case IntegratorKind::MegakernelRegen:
      return "megakernel-regen";
  }
  return "?";
}

constexpr std::optional<IntegratorKind> parseIntegrator(std::string_view name) {
  for (IntegratorKind kind : allIntegrators)
    if (integratorName(kind) == name) return kind;
  return std::nullopt;
}

enum class SamplerKind { Halton, Pcg };

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
};

// The work a frame did, counted on the GPU per pixel and summed (DESIGN.md, fairness rule 3).
struct WorkCounts {
  uint64_t extensionRays = 0;
  uint64_t shadowRays = 0;
  uint64_t pathSegments = 0;
  uint64_t paths = 0;
};

struct FrameResult {
  std::vector<vk::StageTiming> stages;  // in recording order: one per launch
  double gpuMs = 0;                     // sum of the stages
  double hostMs = 0;                    // submit to fence, for reference beside gpuMs
  WorkCounts work;
  LinearImage image;         // mean radiance per pixel
  LinearImage meanVariance;  // variance of each pixel's mean, per channel
};

}  // namespace ptbench
