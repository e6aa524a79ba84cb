// The material classes through every scheduling (the wavefront's class kernels compile without
// the code of the classes above theirs, so a material sorted into the wrong queue renders
// wrong), and environment-map importance sampling against uniform sampling.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "integrators/test_scenes.h"

namespace ptbench::test {
namespace {

class MaterialsTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  FrameResult render(const GpuScene& scene, const RenderSettings& settings, const Renderer& renderer) {
    return renderWithoutInvalidSamples(*context, scene, settings, renderer, "materials");
  }
};

TEST_F(MaterialsTest, EveryMaterialClassRendersAlikeInTheMegakernelAndTheWavefront) {
  SceneData scene = loadScene("builtin:spheres?n=9&subdiv=12&materials=6&cost=3");
  const auto classTriangles = scene.materialClassTriangles();
  for (uint32_t c = gpu::MATERIAL_CLASS_DIFFUSE; c < gpu::MATERIAL_CLASS_COUNT; ++c)
    EXPECT_GT(classTriangles[c], 0u) << "the scene lacks " << materialClassName(c);
  scene.environmentMap =
      loadEnvironmentMap(std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes/env/venice_sunset_1k.hdr");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  // The kernels are specialised for the scene's highest class: here every class's code stays.
  EXPECT_EQ(gpuScene.highestMaterialClass(), gpu::MATERIAL_CLASS_CAR_PAINT);
  EXPECT_EQ(GpuScene(*context, loadScene("builtin:cornell")).highestMaterialClass(), gpu::MATERIAL_CLASS_DIFFUSE);
  RenderSettings settings;
  settings.width = 48;
  settings.height = 32;
  settings.samplesPerPixel = 48;
  settings.maxDepth = 8;
  settings.camera = scene.defaultCamera();
  for (const Backend backend : {Backend::RayQuery, Backend::Software}) {
    const FrameResult megakernel = render(gpuScene, settings, {backend, IntegratorKind::Megakernel});
    for (const bool materialQueues : {false, true}) {
      RenderSettings wavefront = settings;
      wavefront.wavefront.materialQueues = materialQueues;
      expectAgree(megakernel, render(gpuScene, wavefront, {backend, IntegratorKind::Wavefront}), 0.005,
                  std::string(backendName(backend)) + ", wavefront" + (materialQueues ? " with material queues" : ""));
    }
  }
}

// Russian roulette reads a path's throughput as it would be outside the glass (pbrt-v4's
// etaScale): inside a denser medium radiance is scaled by 1/eta^2, which leaving undoes, and a
// roulette that read the scaled throughput killed 56% of the paths inside every glass of IOR 1.5
// (and doubled the weight of the rest). In the smooth glass furnace every path that escapes
// carries exactly the environment's 1, so with roulette from the first vertex the pixels' means
// stay as exact as without it.
TEST_F(MaterialsTest, RouletteDoesNotKillPathsForBeingInsideGlass) {
  const SceneData scene = loadScene("builtin:furnace?material=glass");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings;
  settings.width = settings.height = 16;
  settings.samplesPerPixel = 64;
  settings.maxDepth = 64;
  settings.rrDepth = 1;
  settings.environment = {1, 1, 1};
  settings.camera = scene.defaultCamera();
  for (const IntegratorKind integrator : {IntegratorKind::Megakernel, IntegratorKind::Wavefront}) {
    const FrameResult frame = render(gpuScene, settings, {Backend::RayQuery, integrator});
    double variance = 0;
    for (float v : frame.meanVariance.rgb) variance += v;
    variance /= double(frame.meanVariance.rgb.size());
    EXPECT_LT(variance, 1e-5) << integratorName(integrator) << ": the pixels' means vary by " << variance;
  }
}

// Rough glass's single-scattering lobe loses the light that meets a second microfacet: in the
// furnace at roughness 0.5 an H200 returned 0.882 of it. ms_compensation gives it back,
// in both schedules; false keeps the loss.
TEST_F(MaterialsTest, MsCompensationGivesBackWhatRoughGlassLoses) {
  const SceneData scene = loadScene("builtin:furnace?material=glass&roughness=0.5");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings;
  settings.width = settings.height = 16;
  settings.samplesPerPixel = 64;
  settings.maxDepth = 64;
  settings.rrDepth = 64;
  settings.environment = {1, 1, 1};
  settings.camera = scene.defaultCamera();
  for (const IntegratorKind integrator : {IntegratorKind::Megakernel, IntegratorKind::Wavefront}) {
    RenderSettings single = settings;
    single.msCompensation = false;
    const double compensated = channelMeans(render(gpuScene, settings, {Backend::RayQuery, integrator})).mean[0];
    const double lossy = channelMeans(render(gpuScene, single, {Backend::RayQuery, integrator})).mean[0];
    EXPECT_NEAR(compensated, 1, 0.01) << integratorName(integrator);
    EXPECT_LT(lossy, 0.97) << integratorName(integrator);
  }
}

// Nested and overlapping dielectrics are out of scope (each interface is taken as glass against
// air), but they must not make invalid samples: two overlapping absorbing glass spheres, one with
// a glass sphere of another IOR inside it, under an environment.
TEST_F(MaterialsTest, OverlappingAndNestedDielectricsMakeNoInvalidSamples) {
  SceneBuilder builder("overlapping glass");
  gpu::Material glass = defaultMaterial();
  glass.metallicFactor = 0;
  glass.roughnessFactor = 0.1f;
  glass.transmissionFactor = 1;
  glass.thicknessFactor = 1;
  glass.attenuationColor = {0.5f, 0.8f, 0.9f};
  glass.attenuationDistance = 0.5f;
  gpu::Material dense = glass;
  dense.ior = 2.4f;
  dense.roughnessFactor = 0;
  std::vector<Primitive> outerMesh = {uvSphere(24, builder.addMaterial(glass))};
  std::vector<Primitive> innerMesh = {uvSphere(24, builder.addMaterial(dense))};
  const uint32_t sphere = builder.addMesh(outerMesh);
  const uint32_t inner = builder.addMesh(innerMesh);
  builder.addInstance(sphere, Mat4::translation({-0.4f, 0, 0}));
  builder.addInstance(sphere, Mat4::translation({0.4f, 0, 0}));
  builder.addInstance(inner, Mat4::translation({0.4f, 0, 0}) * Mat4::scale({0.5f, 0.5f, 0.5f}));
  SceneData scene = builder.finish();
  scene.environmentMap =
      loadEnvironmentMap(std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes/env/venice_sunset_1k.hdr");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings;
  settings.width = 24;
  settings.height = 16;
  settings.samplesPerPixel = 8;
  settings.maxDepth = 32;
  settings.camera = {.position = {0, 0.5f, 4}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 40};
  for (const Renderer& renderer : everyRenderer) render(gpuScene, settings, renderer);  // checks invalid samples
}

// KHR_materials_clearcoat's coated emission: a coat reflects F(0.04, n.v) of what is under it,
// so an emitter of 1 under a full coat, seen head-on, sends 0.96 (before: 1).
TEST_F(MaterialsTest, AClearcoatDimsTheEmissionUnderIt) {
  SceneBuilder builder("coated emitter");
  gpu::Material coated = emitter(1);
  coated.clearcoatFactor = 1;
  addPrimitive(builder, quad({-1, -1, 0}, {2, 0, 0}, {0, 2, 0}, builder.addMaterial(coated)), Mat4{});
  const SceneData scene = builder.finish();
  const GpuScene gpuScene(*context, scene);
  RenderSettings settings;
  settings.width = settings.height = 4;
  settings.samplesPerPixel = 4;
  settings.maxDepth = 1;
  settings.camera = {.position = {0, 0, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 1};
  for (const Renderer renderer : {Renderer{Backend::RayQuery, IntegratorKind::Megakernel},
                                  Renderer{Backend::RayQuery, IntegratorKind::Wavefront}})
    for (float value : render(gpuScene, settings, renderer).image.rgb)
      EXPECT_NEAR(value, 0.96f, 1e-4) << renderer.name();
}

// A diffuse floor and wall lit by an HDR map alone: next-event estimation by the map's
// luminance and by uniform directions must converge to the same image, and importance sampling
// must get there with fewer samples; far fewer under the studio map's small bright lights,
// where uniform sampling rarely finds them (too rarely to converge here at all).
TEST_F(MaterialsTest, EnvironmentImportanceSamplingConvergesToUniformSamplingFaster) {
  SceneBuilder builder("floor under a sky");
  const uint32_t white = builder.addMaterial(diffuse(0.8f));
  addPrimitive(builder, quad({-2, 0, 2}, {4, 0, 0}, {0, 0, -4}, white), Mat4{});
  addPrimitive(builder, quad({-0.5f, 0, 0.5f}, {0, 1, 0}, {1, 0, 0}, white), Mat4{});  // a wall casting a shadow
  const SceneData floor = builder.finish();
  RenderSettings settings;
  settings.width = settings.height = 24;
  settings.maxDepth = 2;  // direct light only: the environment's sampling is all that differs
  settings.camera = {.position = {0, 3, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 50};
  settings.sampler = SamplerKind::Pcg;
  const Renderer renderer{Backend::RayQuery, IntegratorKind::Megakernel};

  // The ratio of the samples uniform sampling needs for importance sampling's error at 16 spp
  // (error falls as 1 / samples), against a 1024-spp importance-sampled reference.
  const auto sampleRatio = [&](const std::string& map, bool expectConverged) {
    SceneData scene = floor;
    scene.environmentMap = loadEnvironmentMap(std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes/env" / map);
    SceneData uniform = scene;
    uniform.environmentMap->uniformSampling = true;
    const GpuScene importanceScene(*context, scene);
    const GpuScene uniformScene(*context, uniform);
    RenderSettings converged = settings;
    converged.samplesPerPixel = 1024;
    const FrameResult reference = render(importanceScene, converged, renderer);
    if (expectConverged)
      expectAgree(reference, render(uniformScene, converged, renderer), 0.01, map + ": uniform against importance");
    RenderSettings quick = settings;
    quick.samplesPerPixel = 16;
    const auto meanSquaredError = [&](const FrameResult& frame) {
      double sum = 0;
      for (size_t i = 0; i < frame.image.rgb.size(); ++i)
        sum += std::pow(frame.image.rgb[i] - reference.image.rgb[i], 2);
      return sum / double(frame.image.rgb.size());
    };
    const double ratio = meanSquaredError(render(uniformScene, quick, renderer)) /
                         meanSquaredError(render(importanceScene, quick, renderer));
    std::printf("%s: uniform sampling needs %.1fx the samples of importance sampling for the same error\n", map.c_str(),
                ratio);
    RecordProperty(map + " uniform_to_importance_sample_ratio", std::to_string(ratio));
    return ratio;
  };
  EXPECT_GT(sampleRatio("venice_sunset_1k.hdr", true), 1.2);
  EXPECT_GT(sampleRatio("studio_small_03_1k.hdr", false), 20.0);
}

}  // namespace
}  // namespace ptbench::test
