#include "core/integrators/megakernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/experiment/image_output.h"
#include "core/integrators/create.h"
#include "core/scene/builtin_scenes.h"
#include "core/scene/gltf_loader.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "test_files.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

struct LitQuad;

class MegakernelTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  FrameResult render(const SceneData& scene, RenderSettings settings, TraceTarget target,
                     IntegratorKind integrator = IntegratorKind::Megakernel) {
    const GpuScene gpuScene(*context, scene, allBvhLayouts);
    MegakernelIntegrator renderer(*context, gpuScene, target, integrator, settings);
    return renderer.render(settings);
  }

  // Writes the quad's glTF to `file`, loads it and renders it every way.
  std::vector<std::pair<Renderer, FrameResult>> renderEveryWay(const LitQuad& quad, const fs::path& file);
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
  // One timed launch per sample pass, which adds to the film itself: no accumulate launch.
  ASSERT_EQ(rayQuery.stages.size(), 32u);
  ASSERT_EQ(regen.stages.size(), 1u);
  for (size_t i = 0; i < rayQuery.stages.size(); ++i) EXPECT_EQ(rayQuery.stages[i].stage, Stage::TraceShade) << i;
  EXPECT_EQ(rayQuery.launches, 32u);
  EXPECT_EQ(regen.launches, 1u);
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

// A second kernel of the same shader and constants takes the first one's pipeline, for another
// scene of the same descriptor-set layout too (what a sweep's runs share); another shader makes
// its own. The images are the same bytes. A context of its own: the suite's shared one may
// hold these pipelines already.
TEST_F(MegakernelTest, KernelsOfOneShaderAndConstantsShareOnePipeline) {
  vk::Context own(validatedContextOptions({Backend::RayQuery, Backend::Pipeline}));
  const SceneData scene = loadScene("builtin:cornell");
  const RenderSettings settings = cornellSettings(scene);
  const GpuScene gpuScene(own, scene, allBvhLayouts);
  const GpuScene sameLayout(own, scene, allBvhLayouts);
  EXPECT_EQ(own.reusablePipelines().size(), 0u);
  MegakernelIntegrator first(own, gpuScene, Backend::RayQuery, IntegratorKind::Megakernel, settings);
  const size_t made = own.reusablePipelines().size();
  EXPECT_GT(made, 0u);
  MegakernelIntegrator second(own, sameLayout, Backend::RayQuery, IntegratorKind::Megakernel, settings);
  EXPECT_EQ(own.reusablePipelines().size(), made);
  EXPECT_EQ(pfmBytes(first.render(settings), "first.pfm"), pfmBytes(second.render(settings), "second.pfm"));
  MegakernelIntegrator otherShader(own, gpuScene, Backend::Pipeline, IntegratorKind::Megakernel, settings);
  EXPECT_EQ(own.reusablePipelines().size(), made + 1);
  EXPECT_EQ(own.validationMessageCount(), 0u) << "validation layer messages (see log above)";
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
    for (Backend backend : allBackends) {
      const FrameResult frame = render(scene, settings, backend);
      const double expected = std::string(mode) == "MASK" ? 1.0 : 0.0;
      for (float value : frame.image.rgb) ASSERT_NEAR(value, expected, 1e-6) << mode << ", " << backendName(backend);
    }
  }
  fs::remove_all(dir);
}

// A quad facing +Z, diffuse (no specular layer), under a directional light, seen head on from
// (0, 0, 3) through a narrow lens: every pixel sees the quad's direct light only.
struct LitQuad {
  nlohmann::json gltf;
  RenderSettings settings;
};

LitQuad litQuad(const fs::path& dir, const std::vector<QuadAttribute>& attributes, gpu::vec4 baseColor,
                float lightIntensity, double lightRotationX) {
  LitQuad quad{.gltf = quadGltf(dir, "quad", attributes)};
  auto& gltf = quad.gltf;
  gltf["materials"][0] = {
      {"pbrMetallicRoughness",
       {{"baseColorFactor", {baseColor.x, baseColor.y, baseColor.z, baseColor.w}}, {"metallicFactor", 0}}},
      {"extensions", {{"KHR_materials_specular", {{"specularFactor", 0}}}}}};
  gltf["extensionsUsed"] = {"KHR_materials_specular", "KHR_lights_punctual"};
  gltf["extensions"]["KHR_lights_punctual"]["lights"] = {{{"type", "directional"}, {"intensity", lightIntensity}}};
  // The light shines along its node's -Z, here turned about X.
  gltf["nodes"].push_back({{"rotation", {std::sin(lightRotationX / 2), 0, 0, std::cos(lightRotationX / 2)}},
                           {"extensions", {{"KHR_lights_punctual", {{"light", 0}}}}}});
  gltf["scenes"][0]["nodes"] = {0, 1};
  quad.settings.width = 8;
  quad.settings.height = 8;
  quad.settings.samplesPerPixel = 4;
  quad.settings.maxDepth = 2;  // the light's direct contribution; the bounce escapes to a black sky
  quad.settings.rrDepth = 2;
  quad.settings.camera = {.position = {0, 0, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 20};
  return quad;
}

std::vector<std::pair<Renderer, FrameResult>> MegakernelTest::renderEveryWay(const LitQuad& quad,
                                                                             const fs::path& file) {
  std::ofstream(file) << quad.gltf.dump();
  const SceneData scene = loadGltf(file);
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  std::vector<std::pair<Renderer, FrameResult>> frames;
  for (const Renderer& renderer : everyRenderer)
    frames.emplace_back(
        renderer, createIntegrator(renderer.integrator, *context, gpuScene, renderer.target())->render(quad.settings));
  return frames;
}

// A normal map that tilts every normal 30 degrees toward the texture's up (+Y on this quad),
// under a light from above and in front: albedo / pi x E x cos(mapped normal, light), whether
// the file gives the TANGENT or the loader generates it.
TEST_F(MegakernelTest, ATiltedNormalMapShadesAlikeWithGivenAndGeneratedTangents) {
  const fs::path dir = fs::path(::testing::TempDir()) / "ptbench-tangents";
  fs::create_directories(dir);
  const std::vector<uint16_t> texel = {128, 191, 238};  // (0, sin 30, cos 30) as (n + 1) / 2
  writePng(dir / "tilted.png", 1, 1, PngColor::Rgb, 8, texel);
  const Vec3 mapped = normalize(Vec3{texel[0] / 127.5f - 1, texel[1] / 127.5f - 1, texel[2] / 127.5f - 1});
  const float albedo = 0.5f, irradiance = 2;
  const double expected = albedo / M_PI * irradiance * dot(mapped, normalize(Vec3{0, 1, 1}));
  const std::vector<float> tangents = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
  for (bool given : {true, false}) {
    std::vector<QuadAttribute> attributes = {{.name = "TEXCOORD_0", .type = "VEC2", .bytes = bytesOf(quadUv)}};
    if (given) attributes.push_back({.name = "TANGENT", .type = "VEC4", .bytes = bytesOf(tangents)});
    // Turned -45 degrees about X, the light travels along (0, -1, -1) / sqrt(2).
    LitQuad quad = litQuad(dir, attributes, {albedo, albedo, albedo, 1}, irradiance, -M_PI / 4);
    quad.gltf["images"] = {{{"uri", "tilted.png"}}};
    quad.gltf["textures"] = {{{"source", 0}}};
    quad.gltf["materials"][0]["normalTexture"] = {{"index", 0}};
    for (const auto& [renderer, frame] : renderEveryWay(quad, dir / "quad.gltf"))
      for (float value : frame.image.rgb)
        ASSERT_NEAR(value, expected, 1e-3 * expected)
            << (given ? "given" : "generated") << " tangents, " << renderer.name();
  }
  fs::remove_all(dir);
}

// COLOR_0 multiplies the base colour: a white quad with COLOR_0 (0.5, 0.25, 1) under a light
// along its normal has radiance COLOR_0 / pi x E. Its alpha multiplies the base colour's alpha:
// 0.25 under alphaMode MASK (cutoff 0.5) cuts the quad away, leaving the black sky.
TEST_F(MegakernelTest, VertexColorsTintTheBaseColorAndItsAlpha) {
  const fs::path dir = fs::path(::testing::TempDir()) / "ptbench-vertex-colors";
  fs::create_directories(dir);
  const float irradiance = 2;
  struct Case {
    const char* what;
    std::vector<float> color;  // one vertex's COLOR_0; every vertex has the same
    const char* alphaMode;
    bool visible;
  };
  const std::vector<Case> cases = {{"RGB, opaque", {0.5f, 0.25f, 1}, "OPAQUE", true},
                                   {"RGBA of alpha 1, masked", {0.5f, 0.25f, 1, 1}, "MASK", true},
                                   {"RGBA of alpha 0.25, masked", {0.5f, 0.25f, 1, 0.25f}, "MASK", false}};
  for (const auto& c : cases) {
    std::vector<float> colors;
    for (int v = 0; v < 4; ++v) colors.insert(colors.end(), c.color.begin(), c.color.end());
    const QuadAttribute color = {
        .name = "COLOR_0", .type = c.color.size() == 3 ? "VEC3" : "VEC4", .bytes = bytesOf(colors)};
    LitQuad quad = litQuad(dir, {color}, {1, 1, 1, 1}, irradiance, 0);
    quad.gltf["materials"][0]["alphaMode"] = c.alphaMode;
    for (const auto& [renderer, frame] : renderEveryWay(quad, dir / "quad.gltf"))
      for (size_t i = 0; i < frame.image.rgb.size(); ++i) {
        const double expected = c.visible ? c.color[i % 3] / M_PI * irradiance : 0.0;
        ASSERT_NEAR(frame.image.rgb[i], expected, 1e-3 * expected + 1e-7)
            << c.what << ", " << renderer.name() << ", channel " << i % 3;
      }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptbench::test
