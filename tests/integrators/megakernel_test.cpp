#include "core/integrators/megakernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/scene/builtin_scenes.h"
#include "core/scene/gltf_loader.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

class MegakernelTest : public GpuTest {
 protected:
  void SetUp() override { context = makeValidatedContext({Backend::RayQuery, Backend::Pipeline}); }

  FrameResult render(const SceneData& scene, RenderSettings settings, Backend backend,
                     IntegratorKind integrator = IntegratorKind::Megakernel) {
    const GpuScene gpuScene(*context, scene);
    MegakernelIntegrator renderer(*context, gpuScene, backend, integrator == IntegratorKind::MegakernelRegen);
    return renderer.render(settings);
  }
};

// The analytic scenes (furnaces, the emissive sphere, punctual lights) are core/verify's cases,
// run for every integrator and backend by tests/verify/verification_test.cpp.

RenderSettings cornellSettings(const SceneData& scene, uint32_t seed = 1) {
  RenderSettings settings;
  settings.width = 48;
  settings.height = 48;
  settings.samplesPerPixel = 32;
  settings.maxDepth = 6;
  settings.seed = seed;
  settings.camera = scene.defaultCamera();
  return settings;
}

TEST_F(MegakernelTest, CornellAgreesAcrossBackendsAndIntegrators) {
  const SceneData scene = loadScene("builtin:cornell");
  const FrameResult rayQuery = render(scene, cornellSettings(scene), Backend::RayQuery);
  const FrameResult pipeline = render(scene, cornellSettings(scene), Backend::Pipeline);
  const FrameResult regen = render(scene, cornellSettings(scene), Backend::Pipeline, IntegratorKind::MegakernelRegen);
  expectAgree(rayQuery, pipeline, 0.005, "rayquery vs pipeline");
  expectAgree(pipeline, regen, 0.005, "megakernel vs megakernel-regen");
  EXPECT_EQ(rayQuery.work.extensionRays, pipeline.work.extensionRays) << "same samples trace the same paths";
  EXPECT_GT(rayQuery.work.shadowRays, 0u);
  EXPECT_EQ(rayQuery.work.paths, 48u * 48u * 32u);
  // One timed launch per sample pass, each followed by the film's accumulate.
  ASSERT_EQ(rayQuery.stages.size(), 2u * 32u);
  ASSERT_EQ(regen.stages.size(), 2u);
  for (size_t i = 0; i < rayQuery.stages.size(); ++i)
    EXPECT_EQ(rayQuery.stages[i].stage, i % 2 == 0 ? Stage::TraceShade : Stage::Accumulate) << i;
}

std::string pfmBytes(const FrameResult& frame, const std::string& name) {
  const fs::path path = fs::path(::testing::TempDir()) / name;
  writePfm(path, frame.image);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(path);
  return bytes;
}

TEST_F(MegakernelTest, SameSeedSameBytesOtherSeedSameMean) {
  const SceneData scene = loadScene("builtin:cornell");
  const FrameResult first = render(scene, cornellSettings(scene, 7), Backend::RayQuery);
  const FrameResult again = render(scene, cornellSettings(scene, 7), Backend::RayQuery);
  const FrameResult other = render(scene, cornellSettings(scene, 8), Backend::RayQuery);
  EXPECT_EQ(pfmBytes(first, "first.pfm"), pfmBytes(again, "again.pfm"));
  EXPECT_NE(pfmBytes(first, "first.pfm"), pfmBytes(other, "other.pfm"));
  const auto a = channelMeans(first), b = channelMeans(other);
  for (int c = 0; c < 3; ++c) {
    const double noise = std::sqrt(a.standardError[c] * a.standardError[c] + b.standardError[c] * b.standardError[c]);
    EXPECT_NEAR(a.mean[c], b.mean[c], 5 * noise) << "channel " << c;
  }
}

// A black Lambertian quad between the camera and a white environment: opaque, the image is black; cut
// away by its alpha mask, the traversal must skip it and the image is the environment.
TEST_F(MegakernelTest, AlphaMaskedGeometryIsSkippedByEveryBackend) {
  const fs::path dir = fs::path(::testing::TempDir()) / "ptbench-alpha";
  fs::create_directories(dir);
  const float positions[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
  const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
  std::ofstream bin(dir / "quad.bin", std::ios::binary);
  bin.write(reinterpret_cast<const char*>(positions), sizeof positions);
  bin.write(reinterpret_cast<const char*>(indices), sizeof indices);
  bin.close();
  auto gltf = nlohmann::json::parse(R"({
    "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}],
    "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 0.2], "metallicFactor": 0},
                   "doubleSided": true, "extensions": {"KHR_materials_specular": {"specularFactor": 0}}}],
    "buffers": [{"uri": "quad.bin", "byteLength": 60}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 12}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-1, -1, 0], "max": [1, 1, 0]},
                  {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}]})");
  RenderSettings settings;
  settings.width = 8;
  settings.height = 8;
  settings.samplesPerPixel = 4;
  settings.environment = {1, 1, 1};
  settings.camera = {.position = {0, 0, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 20};
  for (const char* mode : {"OPAQUE", "MASK"}) {
    gltf["materials"][0]["alphaMode"] = mode;
    std::ofstream(dir / "quad.gltf") << gltf.dump();
    const SceneData scene = loadGltf(dir / "quad.gltf");
    for (Backend backend : {Backend::RayQuery, Backend::Pipeline}) {
      const FrameResult frame = render(scene, settings, backend);
      const double expected = std::string(mode) == "MASK" ? 1.0 : 0.0;
      for (float value : frame.image.rgb) ASSERT_NEAR(value, expected, 1e-6) << mode << ", " << backendName(backend);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptbench::test
