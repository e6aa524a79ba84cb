// The divergence counters (counters: simt) against what a scene makes certain: one material
// is one class per subgroup; every lane of a full grid reaches the megakernel's first shading
// point; the wavefront's per-class shade kernels hold one class each; and every integrator sees
// the same paths reach each bounce. Then megakernel-ser's refusal where the device lacks SER.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "core/integrators/create.h"
#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "integrators/test_scenes.h"

namespace ptbench::test {
namespace {

class SimtCountersTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({Backend::RayQuery, Backend::Pipeline, Backend::Software}); }

  FrameResult render(const GpuScene& scene, RenderSettings settings, const Renderer& renderer) {
    settings.counters = Counters::Simt;
    FrameResult frame = renderWithoutInvalidSamples(*context, scene, settings, renderer, "counters: simt");
    EXPECT_TRUE(frame.simt.has_value()) << renderer.name();
    return frame;
  }

  // A closed box of one emissive diffuse material, seen from inside: every ray hits it.
  static SceneData closedBox() {
    SceneBuilder builder("closed box");
    gpu::Material wall = diffuse(0.5f);
    wall.emissiveFactor = {0.5f, 0.5f, 0.5f};
    const uint32_t material = builder.addMaterial(wall);
    // Each face's front (cross(edgeU, edgeV)) looks into the box.
    addPrimitive(builder, quad({-1, -1, -1}, {0, 0, 2}, {2, 0, 0}, material), Mat4{});
    addPrimitive(builder, quad({-1, 1, -1}, {2, 0, 0}, {0, 0, 2}, material), Mat4{});
    addPrimitive(builder, quad({-1, -1, -1}, {0, 2, 0}, {0, 0, 2}, material), Mat4{});
    addPrimitive(builder, quad({1, -1, -1}, {0, 0, 2}, {0, 2, 0}, material), Mat4{});
    addPrimitive(builder, quad({-1, -1, -1}, {2, 0, 0}, {0, 2, 0}, material), Mat4{});
    addPrimitive(builder, quad({-1, -1, 1}, {0, 2, 0}, {2, 0, 0}, material), Mat4{});
    return builder.finish();
  }

  static RenderSettings smallSettings() {
    RenderSettings settings;
    settings.width = 16;  // whole 8x8 tiles: no lane of the megakernel's grid idles
    settings.height = 16;
    settings.samplesPerPixel = 4;
    settings.maxDepth = 6;
    settings.rrDepth = 3;
    return settings;
  }
};

TEST_F(SimtCountersTest, OneMaterialIsOneClassPerSubgroupAndTheMegakernelStartsWithEveryLane) {
  const SceneData scene = closedBox();
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings();
  settings.camera = {.position = {0, 0, 0}, .target = {0, 0, -1}, .up = {0, 1, 0}, .yfovDegrees = 90};
  for (const Renderer& renderer : {Renderer{Backend::RayQuery, IntegratorKind::Megakernel},
                                   Renderer{Backend::RayQuery, IntegratorKind::MegakernelRegen},
                                   Renderer{Backend::RayQuery, IntegratorKind::Wavefront},
                                   Renderer{Backend::Software, IntegratorKind::Megakernel}}) {
    const FrameResult frame = render(gpuScene, settings, renderer);
    const SimtCounts& simt = *frame.simt;
    EXPECT_EQ(simt.subgroupSize, context->capabilities().subgroupSize) << renderer.name();
    EXPECT_EQ(simt.stage, renderer.integrator == IntegratorKind::Wavefront ? Stage::Shade : Stage::TraceShade);
    ASSERT_EQ(simt.bounces.size(), settings.maxDepth) << renderer.name();
    for (size_t b = 0; b < simt.bounces.size(); ++b)
      EXPECT_DOUBLE_EQ(simt.bounces[b].coherence(), 1.0) << renderer.name() << ", bounce " << b + 1;
    // Every path shades at its first hit, and, before Russian roulette, at every hit after it.
    EXPECT_EQ(simt.bounces[0].lanes, 16u * 16u * settings.samplesPerPixel) << renderer.name();
    EXPECT_EQ(simt.total().lanes, frame.work.extensionRays) << renderer.name();
  }
  // The plain megakernel's paths all live through bounce rr_depth: its subgroups are full there.
  const FrameResult megakernel = render(gpuScene, settings, {Backend::RayQuery, IntegratorKind::Megakernel});
  for (uint32_t b = 0; b < settings.rrDepth; ++b)
    EXPECT_DOUBLE_EQ(megakernel.simt->bounces[b].utilisation(megakernel.simt->subgroupSize), 1.0) << "bounce " << b + 1;
  EXPECT_LT(megakernel.simt->bounces.back().utilisation(megakernel.simt->subgroupSize), 1.0)
      << "Russian roulette ends paths: later subgroups run with idle lanes";
}

// The divergence scene's six classes under an environment: the megakernel's subgroups meet
// several classes at once, the wavefront's per-class shade kernels exactly one; and the same
// paths reach each bounce whatever the scheduling.
TEST_F(SimtCountersTest, MaterialQueuesMakeEveryShadeSubgroupCoherent) {
  SceneData scene = loadScene("builtin:spheres?n=9&subdiv=4&materials=6&cost=1");
  const GpuScene gpuScene(*context, scene);
  RenderSettings settings = smallSettings();
  settings.environment = {0.5f, 0.5f, 0.5f};
  settings.camera = scene.defaultCamera();
  const FrameResult megakernel = render(gpuScene, settings, {Backend::RayQuery, IntegratorKind::Megakernel});
  EXPECT_GT(megakernel.simt->total().coherence(), 1.2);
  RenderSettings queues = settings;
  queues.wavefront.materialQueues = true;
  const FrameResult sorted = render(gpuScene, queues, {Backend::RayQuery, IntegratorKind::Wavefront});
  EXPECT_DOUBLE_EQ(sorted.simt->total().coherence(), 1.0);
  const FrameResult unsorted = render(gpuScene, settings, {Backend::RayQuery, IntegratorKind::Wavefront});
  EXPECT_GT(unsorted.simt->total().coherence(), 1.2);
  RenderSettings pool = settings;
  pool.wavefront.schedule = WavefrontSchedule::Pool;
  pool.wavefront.poolSize = 100;  // paths of many depths share the queues
  const FrameResult pooled = render(gpuScene, pool, {Backend::RayQuery, IntegratorKind::Wavefront});
  const FrameResult regen = render(gpuScene, settings, {Backend::RayQuery, IntegratorKind::MegakernelRegen});
  for (const FrameResult* frame : {&sorted, &unsorted, &pooled, &regen}) {
    ASSERT_EQ(frame->simt->bounces.size(), megakernel.simt->bounces.size());
    for (size_t b = 0; b < megakernel.simt->bounces.size(); ++b)
      EXPECT_EQ(frame->simt->bounces[b].lanes, megakernel.simt->bounces[b].lanes) << "bounce " << b + 1;
    // Subgroups whose lanes sit at several bounces split their event: the shares add up to whole events.
    double subgroups = 0;
    for (const auto& bounce : frame->simt->bounces) subgroups += bounce.subgroups;
    EXPECT_NEAR(subgroups, std::round(subgroups), 1e-3);
  }
}

TEST_F(SimtCountersTest, WithoutCountersAFrameCarriesNone) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene);
  RenderSettings settings = smallSettings();
  settings.camera = scene.defaultCamera();
  for (IntegratorKind integrator : {IntegratorKind::Megakernel, IntegratorKind::Wavefront})
    EXPECT_FALSE(createIntegrator(integrator, *context, gpuScene, Backend::RayQuery, settings)
                     ->render(settings)
                     .simt.has_value());
}

// Lavapipe has no subgroup operations in ray-generation shaders and no SER: both are refused
// with the reason, before any pipeline exists.
TEST_F(SimtCountersTest, WhatTheDeviceCannotRunIsRefusedWithItsReason) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene);
  RenderSettings settings = smallSettings();
  settings.camera = scene.defaultCamera();
  const vk::DeviceCapabilities& device = context->capabilities();
  ASSERT_FALSE(device.invocationReorderNv) << "the test expects lavapipe";
  auto refusal = [&](IntegratorKind integrator, Backend backend, const RenderSettings& with) {
    try {
      createIntegrator(integrator, *context, gpuScene, backend, with);
    } catch (const UserError& error) {
      EXPECT_EQ(error.what(), unsupportedReason(integrator, backend, with, device));
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal(IntegratorKind::MegakernelSer, Backend::Pipeline, settings)
                .find("lacks VK_NV_ray_tracing_invocation_reorder, which megakernel-ser needs"),
            std::string::npos);
  EXPECT_NE(refusal(IntegratorKind::MegakernelSer, Backend::RayQuery, settings).find("pipeline backend only"),
            std::string::npos);
  RenderSettings counted = settings;
  counted.counters = Counters::Simt;
  EXPECT_NE(refusal(IntegratorKind::Megakernel, Backend::Pipeline, counted).find("ray-generation"), std::string::npos);
  // The wavefront shades in compute shaders on every backend: its counters run.
  EXPECT_EQ(refusal(IntegratorKind::Wavefront, Backend::Pipeline, counted), "");
}

}  // namespace
}  // namespace ptbench::test
