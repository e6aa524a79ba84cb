// The phase clocks (counters: clocks) against what is certain of them: every integrator's cycles
// fall into the four phases, whose shares sum to 1; traversal takes a larger share where there
// are more triangles to traverse; the clocks change no image; kernels built without them read no
// clock; and a device that cannot run them is refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/integrators/create.h"
#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "core/vk/pipeline.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "shared/render.h"

namespace ptbench::test {
namespace {

class ClockCountersTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({Backend::RayQuery, Backend::Pipeline, Backend::Software}); }

  static RenderSettings smallSettings(const SceneData& scene) {
    RenderSettings settings;
    settings.width = 32;
    settings.height = 32;
    settings.samplesPerPixel = 4;
    settings.maxDepth = 5;
    settings.rrDepth = 3;
    settings.camera = scene.defaultCamera();
    settings.counters = Counters::Clocks;
    return settings;
  }

  FrameResult render(const GpuScene& scene, const RenderSettings& settings, const Renderer& renderer) {
    FrameResult frame = renderWithoutInvalidSamples(*context, scene, settings, renderer, "counters: clocks");
    EXPECT_EQ(frame.clocks.has_value(), settings.counters == Counters::Clocks) << renderer.name();
    return frame;
  }

  static double shareSum(const PhaseCycles& cycles) {
    double sum = 0;
    for (size_t phase = 0; phase < phaseNames.size(); ++phase) sum += cycles.share(phase);
    return sum;
  }
};

// Every integrator on each backend lavapipe runs the clocks on (the pipeline's tracing kernels
// are ray-generation shaders, where lavapipe has no subgroup operations: refused, tested below).
TEST_F(ClockCountersTest, EveryIntegratorsPhasesSumToTheWhole) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  const RenderSettings settings = smallSettings(scene);
  for (const Renderer& renderer : everyRenderer) {
    if (renderer.backend == Backend::Pipeline) continue;
    const FrameResult frame = render(gpuScene, settings, renderer);
    if (!frame.clocks) continue;
    const ClockCounts& clocks = *frame.clocks;
    const PhaseCycles total = clocks.total();
    EXPECT_NEAR(shareSum(total), 1.0, 0.01) << renderer.name();
    for (size_t phase = 0; phase < phaseNames.size(); ++phase)
      EXPECT_GT(total.cycles[phase], 0u) << renderer.name() << ", " << phaseNames[phase];
    if (renderer.integrator == IntegratorKind::Wavefront) {
      ASSERT_EQ(clocks.stages.size(), 3u) << renderer.name();
      EXPECT_TRUE(clocks.bounces.empty());
      EXPECT_EQ(clocks.stages[0].first, Stage::Extend);
      EXPECT_EQ(clocks.stages[1].first, Stage::Shade);
      EXPECT_EQ(clocks.stages[2].first, Stage::Shadow);
      // Extend and shadow only trace: material and light are shade's alone.
      for (size_t traced : {0, 2}) {
        EXPECT_EQ(clocks.stages[traced].second.cycles[gpu::CLOCK_PHASE_MATERIAL], 0u) << renderer.name();
        EXPECT_EQ(clocks.stages[traced].second.cycles[gpu::CLOCK_PHASE_LIGHT], 0u) << renderer.name();
        EXPECT_GT(clocks.stages[traced].second.cycles[gpu::CLOCK_PHASE_TRAVERSAL], 0u) << renderer.name();
      }
      EXPECT_EQ(clocks.stages[1].second.cycles[gpu::CLOCK_PHASE_TRAVERSAL], 0u) << renderer.name();
    } else {
      EXPECT_TRUE(clocks.stages.empty());
      // A bin per bounce up to max_depth: the camera ray's segment, then each bounce.
      EXPECT_EQ(clocks.bounces.size(), settings.maxDepth) << renderer.name();
      for (const PhaseCycles& bounce : clocks.bounces) EXPECT_NEAR(shareSum(bounce), 1.0, 0.01) << renderer.name();
    }
  }
}

// Millions of triangles in the spheres' instances against the Cornell box's 32: traversal takes
// a larger share of the megakernel's time (on lavapipe about 0.78 against 0.60). Lavapipe's clocks
// are wall time, so a thread preempted mid-traversal inflates a frame's share: under CTest's load
// one frame of the Cornell box once measured 0.75. The median of three frames per scene holds.
TEST_F(ClockCountersTest, TraversalTakesALargerShareOfManyTriangles) {
  auto traversalShare = [&](const std::string& spec) {
    const SceneData scene = loadScene(spec);
    const GpuScene gpuScene(*context, scene);
    std::vector<double> shares;
    for (int frame = 0; frame < 3; ++frame)
      shares.push_back(render(gpuScene, smallSettings(scene), {Backend::RayQuery, IntegratorKind::Megakernel})
                           .clocks->total()
                           .share(gpu::CLOCK_PHASE_TRAVERSAL));
    std::sort(shares.begin(), shares.end());
    return shares[1];
  };
  const double cornell = traversalShare("builtin:cornell");
  const double spheres = traversalShare("builtin:spheres?n=16&subdiv=256");
  EXPECT_GT(spheres, cornell + 0.1) << "traversal share: spheres " << spheres << ", Cornell box " << cornell;
}

// The clock code computes nothing the image reads: the same seed gives the same image.
TEST_F(ClockCountersTest, TheClocksChangeNoImage) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  const RenderSettings clocked = smallSettings(scene);
  RenderSettings plain = clocked;
  plain.counters = Counters::Off;
  for (const Renderer& renderer : {Renderer{Backend::RayQuery, IntegratorKind::Megakernel},
                                   Renderer{Backend::RayQuery, IntegratorKind::MegakernelRegen},
                                   Renderer{Backend::RayQuery, IntegratorKind::Wavefront},
                                   Renderer{Backend::Software, IntegratorKind::Megakernel}}) {
    const FrameResult with = render(gpuScene, clocked, renderer);
    const FrameResult without = render(gpuScene, plain, renderer);
    EXPECT_EQ(with.work.extensionRays, without.work.extensionRays) << renderer.name();
    ASSERT_EQ(with.image.rgb.size(), without.image.rgb.size());
    for (size_t i = 0; i < with.image.rgb.size(); ++i)
      ASSERT_NEAR(with.image.rgb[i], without.image.rgb[i], 1e-6f * (1.0f + std::abs(without.image.rgb[i])))
          << renderer.name() << ", value " << i;
  }
}

// Runs without the clocks carry none of their code: no kernel but the _clocks ones reads a clock
// (OpReadClockKHR, 5056), and each of those does.
TEST(ClockKernels, OnlyTheClockedKernelsReadTheClock) {
  constexpr uint32_t opReadClock = 5056;
  size_t clocked = 0;
  for (const auto& [name, words] : embeddedShaders()) {
    bool readsClock = false;
    // The header's five words, then instructions: word count in the high half, opcode in the low.
    for (size_t at = 5; at < words.size(); at += std::max(words[at] >> 16, 1u))
      readsClock |= (words[at] & 0xffffu) == opReadClock;
    const bool clockVariant = std::string_view(name).find("_clocks") != std::string_view::npos;
    EXPECT_EQ(readsClock, clockVariant) << name;
    clocked += clockVariant;
  }
  // The megakernel and its regen variant on the three backends, its SER variant on the pipeline's,
  // the wavefront's extend and shadow on the three, and its shade kernel.
  EXPECT_EQ(clocked, 3u + 3 + 1 + 3 + 3 + 1);
}

// Lavapipe has no subgroup operations in ray-generation shaders, where the pipeline backend's
// clocked kernels sum their lanes' cycles; a device without the subgroup clock is refused before
// anything else.
TEST_F(ClockCountersTest, WhatTheDeviceCannotRunIsRefusedWithItsReason) {
  const SceneData scene = loadScene("builtin:cornell");
  RenderSettings settings = smallSettings(scene);
  const vk::DeviceCapabilities& device = context->capabilities();
  ASSERT_TRUE(device.subgroupClock) << "lavapipe has VK_KHR_shader_clock";
  for (IntegratorKind integrator : {IntegratorKind::Megakernel, IntegratorKind::Wavefront})
    EXPECT_NE(unsupportedReason(integrator, Backend::Pipeline, settings, device).find("ray-generation"),
              std::string::npos);
  EXPECT_EQ(unsupportedReason(IntegratorKind::Wavefront, Backend::RayQuery, settings, device), "");
  vk::DeviceCapabilities withoutClock = device;
  withoutClock.subgroupClock = false;
  EXPECT_NE(unsupportedReason(IntegratorKind::Megakernel, Backend::RayQuery, settings, withoutClock)
                .find("counters: clocks reads the subgroup clock (VK_KHR_shader_clock's shaderSubgroupClock), which " +
                      device.name + " lacks"),
            std::string::npos);
  // The raycast has no phases to time: the option leaves it alone.
  EXPECT_EQ(unsupportedReason(IntegratorKind::Raycast, Backend::RayQuery, settings, withoutClock), "");
  settings.counters = Counters::Off;
  EXPECT_EQ(unsupportedReason(IntegratorKind::Megakernel, Backend::RayQuery, settings, withoutClock), "");
}

}  // namespace
}  // namespace ptbench::test
