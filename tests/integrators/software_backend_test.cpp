// The software backend renders what the hardware backends render: every integrator, both BVH
// layouts, on the Cornell box, an alpha-masked glTF scene and an instanced scene with a
// mirrored instance and an alpha-cut occluder; and the GPU builder's tree renders the CPU's image.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>

#include "core/integrators/create.h"
#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "integrators/test_scenes.h"

namespace ptbench::test {
namespace {

class SoftwareBackendTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  // Every renderer against the ray-query megakernel, on one upload of the scene.
  void expectEveryRendererAgrees(const SceneData& scene, const RenderSettings& settings) {
    const GpuScene gpuScene(*context, scene, allBvhLayouts);
    const auto render = [&](const Renderer& renderer) {
      return createIntegrator(renderer.integrator, *context, gpuScene, renderer.target(), settings)->render(settings);
    };
    const FrameResult reference = render({Backend::RayQuery, IntegratorKind::Megakernel});
    EXPECT_GT(channelMeans(reference).mean[1], 0.01) << scene.source << ": the scene is lit";
    for (const Renderer& renderer : everyRenderer) {
      if (renderer.backend == Backend::RayQuery && renderer.integrator == IntegratorKind::Megakernel) continue;
      const std::string what = scene.source + ", " + renderer.name();
      const FrameResult frame = render(renderer);
      expectAgree(reference, frame, 0.005, what);
      EXPECT_EQ(frame.invalidSamples, 0u) << what;
      // The same sample streams trace the same paths; a hit a few ulps apart may end one
      // differently now and then, never many.
      EXPECT_NEAR(double(frame.work.extensionRays), double(reference.work.extensionRays),
                  1e-3 * double(reference.work.extensionRays))
          << what;
    }
  }
};

RenderSettings smallSettings(const Camera& camera, uint32_t spp) {
  RenderSettings settings;
  settings.width = 40;
  settings.height = 30;
  settings.samplesPerPixel = spp;
  settings.maxDepth = 5;
  settings.camera = camera;
  return settings;
}

TEST_F(SoftwareBackendTest, CornellBoxAgreesWithTheHardwareBackends) {
  const SceneData scene = loadScene("builtin:cornell");
  expectEveryRendererAgrees(scene, smallSettings(scene.defaultCamera(), 64));
}

TEST_F(SoftwareBackendTest, AlphaMaskedGltfSceneAgreesWithTheHardwareBackends) {
  // The nvpro Cornell box's leaves are cut out of their quads by a MASK texture.
  const SceneData scene =
      loadScene((std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes/CornellBox_nvpro/cornellBox.gltf").string());
  bool masked = false;
  for (const gpu::Material& material : scene.materials) masked |= material.alphaMode != gpu::ALPHA_OPAQUE;
  ASSERT_TRUE(masked) << "the scene must exercise the alpha test";
  expectEveryRendererAgrees(scene, smallSettings(scene.defaultCamera(), 64));
}

// One sphere mesh under four transforms (plain, mirrored, rotated and squashed, and with a
// material override), seen through a checkerboard cut out of a quad by its alpha, on a floor
// under a quad light.
SceneData instancedScene() {
  SceneBuilder builder("instanced scene");
  const uint32_t floor = builder.addMaterial(diffuse(0.7f));
  const uint32_t light = builder.addMaterial(emitter(8));
  const uint32_t ball = builder.addMaterial(diffuse(0.6f));
  gpu::Material metal = defaultMaterial();
  metal.baseColorFactor = {0.9f, 0.6f, 0.3f, 1};
  metal.metallicFactor = 1;
  metal.roughnessFactor = 0.3f;
  const uint32_t gold = builder.addMaterial(metal);
  TextureImage checker{.name = "checker", .width = 4, .height = 4};
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x)
      for (uint8_t value : {uint8_t(200), uint8_t(60), uint8_t(60), uint8_t((x + y) % 2 ? 255 : 0)})
        checker.rgba8.push_back(value);
  checker.sampler.magFilter = TextureFilter::Nearest;
  checker.sampler.minFilter = TextureFilter::Nearest;
  gpu::Material cut = diffuse(1);
  cut.alphaMode = gpu::ALPHA_MASK;
  cut.alphaCutoff = 0.5f;
  cut.doubleSided = 1;
  cut.textures[gpu::SLOT_BASE_COLOR].texture = int(builder.addTexture(checker));
  const uint32_t occluder = builder.addMaterial(cut);

  addPrimitive(builder, quad({-3, 0, 3}, {6, 0, 0}, {0, 0, -6}, floor), Mat4::translation({0, 0, 0}));
  addPrimitive(builder, quad({-0.5f, 2.5f, -0.5f}, {1, 0, 0}, {0, 0, 1}, light), Mat4::translation({0, 0, 0}));
  addPrimitive(builder, quad({-1.2f, 0, 1.2f}, {2.4f, 0, 0}, {0, 1.2f, 0}, occluder), Mat4::translation({0, 0, 0}));
  std::vector<Primitive> sphere = {uvSphere(12, ball)};
  const uint32_t mesh = builder.addMesh(sphere);
  const Mat4 small = Mat4::scale({0.4f, 0.4f, 0.4f});
  builder.addInstance(mesh, Mat4::translation({-1.2f, 0.4f, 0}) * small);
  builder.addInstance(mesh, Mat4::scale({-1, 1, 1}) * Mat4::translation({-0.4f, 0.4f, -0.3f}) * small);
  const float s = std::sin(0.4f), c = std::cos(0.4f);
  builder.addInstance(
      mesh, Mat4::translation({0.5f, 0.3f, 0.2f}) * Mat4::rotation(s, 0, 0, c) * Mat4::scale({0.5f, 0.25f, 0.4f}));
  builder.addInstance(mesh, Mat4::translation({1.3f, 0.4f, -0.2f}) * small, gold);
  builder.setCamera({.position = {0, 1.6f, 4.2f}, .target = {0, 0.4f, 0}, .up = {0, 1, 0}, .yfovDegrees = 45}, 1);
  return builder.finish();
}

TEST_F(SoftwareBackendTest, InstancedSceneWithAMirroredInstanceAgreesWithTheHardwareBackends) {
  const SceneData scene = instancedScene();
  ASSERT_EQ(scene.instances.size(), 7u);
  RenderSettings settings = smallSettings(scene.defaultCamera(), 64);
  settings.environment = {0.1f, 0.1f, 0.1f};
  expectEveryRendererAgrees(scene, settings);
}

// The GPU builder's tree renders the CPU tree's image from the same seeds: a ray hits the same
// triangle at the same t whatever tree led it there, by the same watertight test. Only which of
// two triangles at one t wins (a shared edge, coplanar copies) follows the traversal order, and
// with it a shading normal a few ulps apart now and then.
TEST_F(SoftwareBackendTest, GpuBuildersTreeRendersTheCpuBuildersImage) {
  const auto expectSameImages = [&](const SceneData& scene, const RenderSettings& settings) {
    const GpuScene gpuScene(*context, scene, allBvhLayouts, 0, allBvhBuilders);
    for (const IntegratorKind integrator : {IntegratorKind::Megakernel, IntegratorKind::Wavefront})
      for (const BvhLayout layout : allBvhLayouts) {
        const auto render = [&](BvhBuilder builder) {
          return createIntegrator(integrator, *context, gpuScene, TraceTarget(Backend::Software, layout, builder),
                                  settings)
              ->render(settings);
        };
        const FrameResult cpu = render(BvhBuilder::Cpu), gpu = render(BvhBuilder::Gpu);
        const std::string what =
            scene.source + ", " + std::string(integratorName(integrator)) + ", " + std::string(bvhLayoutName(layout));
        size_t identical = 0;
        for (size_t i = 0; i < cpu.image.rgb.size(); ++i) identical += cpu.image.rgb[i] == gpu.image.rgb[i];
        std::cout << what << ": " << identical << " of " << cpu.image.rgb.size() << " pixel channels identical\n";
        expectAgree(cpu, gpu, 0.005, what);
        EXPECT_EQ(gpu.invalidSamples, 0u) << what;
        EXPECT_NEAR(double(gpu.work.extensionRays), double(cpu.work.extensionRays),
                    1e-3 * double(cpu.work.extensionRays))
            << what;
      }
  };
  const SceneData cornell = loadScene("builtin:cornell");
  expectSameImages(cornell, smallSettings(cornell.defaultCamera(), 16));
  const SceneData instanced = instancedScene();
  RenderSettings settings = smallSettings(instanced.defaultCamera(), 16);
  settings.environment = {0.1f, 0.1f, 0.1f};
  expectSameImages(instanced, settings);
}

}  // namespace
}  // namespace ptbench::test
