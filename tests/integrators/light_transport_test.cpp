// Light-transport defects, each with a small scene whose right answer is known by symmetry or
// equivalence, rendered by every integrator on both hardware backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "core/vk/barrier.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "integrators/test_scenes.h"

namespace ptbench::test {
namespace {

class LightTransportTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  FrameResult render(const SceneData& scene, const RenderSettings& settings, const Renderer& renderer) {
    const GpuScene gpuScene(*context, scene, allBvhLayouts);
    return renderWithoutInvalidSamples(*context, gpuScene, settings, renderer, scene.source);
  }

  // Renders both scenes with every integrator and backend and expects them to agree, after
  // `transform` (e.g. a mirror) is applied to the second frame.
  template <typename Transform>
  void expectSameImages(const SceneData& a, const SceneData& b, const RenderSettings& settings, Transform transform) {
    for (const Renderer& renderer : everyRenderer) {
      const std::string what = a.source + " vs " + b.source + ", " + renderer.name();
      const FrameResult frameA = render(a, settings, renderer);
      const FrameResult frameB = transform(render(b, settings, renderer));
      expectAgree(frameA, frameB, 0.02, what);
      EXPECT_GT(channelMeans(frameA).mean[0], 0.05) << what << ": the scene is lit";
    }
  }
};

// The image as a mirror across its vertical centre line.
FrameResult mirroredHorizontally(FrameResult frame) {
  for (auto* image : {&frame.image, &frame.meanVariance})
    for (uint32_t y = 0; y < image->height; ++y)
      for (uint32_t x = 0; x < image->width / 2; ++x)
        for (uint32_t c = 0; c < 3; ++c)
          std::swap(image->rgb[(y * image->width + x) * 3 + c],
                    image->rgb[(y * image->width + image->width - 1 - x) * 3 + c]);
  return frame;
}

// A floor with a constant normal map tilted toward texture +X and +Y, a smooth low-poly
// sphere and a single-sided emitter facing down, off the camera's plane of symmetry (x = 0).
// Mirrored, every instance is under a scale of (-1, 1, 1): glTF then takes clockwise triangles
// as front faces, and the image must be the mirror image of the unmirrored one.
SceneData mirrorTestScene(bool mirrored) {
  SceneBuilder builder(mirrored ? "mirrored scene" : "scene");
  gpu::Material floorMaterial = diffuse(0.8f);
  floorMaterial.doubleSided = 1;
  TextureImage tilt{.name = "tilted normal", .width = 1, .height = 1, .srgb = false};
  const float local[3] = {0.45f, 0.3f, std::sqrt(1 - 0.45f * 0.45f - 0.3f * 0.3f)};
  for (float component : local) tilt.rgba8.push_back(uint8_t(std::lround((component * 0.5f + 0.5f) * 255)));
  tilt.rgba8.push_back(255);
  floorMaterial.textures[gpu::SLOT_NORMAL].texture = int(builder.addTexture(tilt));
  const uint32_t floor = builder.addMaterial(floorMaterial);
  const uint32_t light = builder.addMaterial(emitter(6));
  const uint32_t ball = builder.addMaterial(diffuse(0.7f));
  const Mat4 mirror = Mat4::scale({mirrored ? -1.0f : 1.0f, 1, 1});
  addPrimitive(builder, quad({-2, 0, 2}, {4, 0, 0}, {0, 0, -4}, floor), mirror);
  addPrimitive(builder, quad({0.3f, 1.5f, -0.4f}, {0.8f, 0, 0}, {0, 0, 0.8f}, light), mirror);
  addPrimitive(builder, uvSphere(4, ball),
               mirror * Mat4::translation({-0.8f, 0.5f, 0.3f}) * Mat4::scale({0.5f, 0.5f, 0.5f}));
  return builder.finish();
}

TEST_F(LightTransportTest, MirroredInstancesRenderAsTheMirrorImage) {
  RenderSettings settings;
  settings.width = 32;
  settings.height = 24;
  settings.samplesPerPixel = 64;
  settings.maxDepth = 4;
  settings.environment = {0.05f, 0.05f, 0.05f};
  settings.camera = {.position = {0, 2.2f, 3.2f}, .target = {0, 0.2f, 0}, .up = {0, 1, 0}, .yfovDegrees = 55};
  expectSameImages(mirrorTestScene(false), mirrorTestScene(true), settings, mirroredHorizontally);
}

// An emitter cut by its alpha must light the floor as an opaque emitter that covers only what
// is kept: light sampling may not collect emission from where rays pass through.
TEST_F(LightTransportTest, AlphaCutEmittersLightAsTheirVisiblePart) {
  const auto scene = [](const std::string& name, const gpu::Material& light, Vec3 lightEdgeU, bool halfTexture) {
    SceneBuilder builder(name);
    gpu::Material lightMaterial = light;
    if (halfTexture) {
      // Two texels along u: kept (alpha 1), cut away (alpha 0).
      TextureImage mask{.name = "half mask", .width = 2, .height = 1, .rgba8 = {255, 255, 255, 255, 255, 255, 255, 0}};
      mask.sampler.magFilter = TextureFilter::Nearest;
      mask.sampler.minFilter = TextureFilter::Nearest;
      lightMaterial.textures[gpu::SLOT_BASE_COLOR].texture = int(builder.addTexture(mask));
    }
    addPrimitive(builder, quad({-2, 0, 2}, {4, 0, 0}, {0, 0, -4}, builder.addMaterial(diffuse(0.8f))), Mat4{});
    addPrimitive(builder, quad({-0.5f, 1.2f, -0.5f}, lightEdgeU, {0, 0, 1}, builder.addMaterial(lightMaterial)),
                 Mat4{});
    return builder.finish();
  };
  RenderSettings settings;
  settings.width = 24;
  settings.height = 16;
  settings.samplesPerPixel = 64;
  settings.maxDepth = 3;
  settings.camera = {.position = {0, 1.0f, 3.5f}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 50};
  const auto unchanged = [](FrameResult frame) { return frame; };

  // Masked: the texture keeps u < 1/2, the half of the quad nearer its corner along x.
  gpu::Material masked = emitter(8);
  masked.alphaMode = gpu::ALPHA_MASK;
  masked.alphaCutoff = 0.5f;
  expectSameImages(scene("opaque half emitter", emitter(8), {0.5f, 0, 0}, false),
                   scene("masked emitter", masked, {1, 0, 0}, true), settings, unchanged);

  // Blended at alpha 1/2: rays pass half the time, so it lights as an opaque emitter of half
  // the radiance (its base colour is black: it reflects nothing either way).
  gpu::Material blended = emitter(8);
  blended.alphaMode = gpu::ALPHA_BLEND;
  blended.baseColorFactor.w = 0.5f;
  expectSameImages(scene("opaque emitter at half radiance", emitter(4), {1, 0, 0}, false),
                   scene("blended emitter", blended, {1, 0, 0}, false), settings, unchanged);
}

// Thin glass panes (test_scenes.h) over a floor lit by a point light, the sun and an emitter.
// Every integrator on every backend renders the same image: the any-hit shader, the ray query's
// candidate loop and the software traversal carry shadow rays through alike, and the wavefront's
// shadow stage as the megakernel does.
TEST_F(LightTransportTest, ThinGlassPanesPassTheSameLightOnEveryBackendAndIntegrator) {
  const SceneData scene = thinGlassPanesScene();
  RenderSettings settings;
  settings.width = 24;
  settings.height = 16;
  settings.samplesPerPixel = 64;
  settings.maxDepth = 4;
  settings.camera = scene.defaultCamera();
  const FrameResult reference = render(scene, settings, everyRenderer[0]);
  EXPECT_GT(channelMeans(reference).mean[0], 0.05) << "the scene is lit";
  for (const Renderer& renderer : everyRenderer)
    expectAgree(reference, render(scene, settings, renderer), 0.02, scene.source + ", " + renderer.name());
}

TEST(EmitterPower, CountsOnlyTheVisibleShareOfAnAlphaCutEmitter) {
  SceneBuilder builder("power");
  gpu::Material masked = emitter(1);
  masked.alphaMode = gpu::ALPHA_MASK;
  masked.alphaCutoff = 0.5f;
  masked.baseColorFactor.w = 0.25f;  // below the cutoff everywhere
  gpu::Material blended = emitter(1);
  blended.alphaMode = gpu::ALPHA_BLEND;
  blended.baseColorFactor.w = 0.25f;
  for (const gpu::Material& m : {emitter(1), masked, blended})
    addPrimitive(builder, quad({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, builder.addMaterial(m)), Mat4{});
  const SceneData scene = builder.finish();
  ASSERT_EQ(scene.emissiveTriangles.size(), 6u);
  EXPECT_FLOAT_EQ(scene.emissiveTriangles[0].power, 0.5f);  // luminance 1 x area 1/2
  EXPECT_FLOAT_EQ(scene.emissiveTriangles[2].power, 0.0f);
  EXPECT_FLOAT_EQ(scene.emissiveTriangles[4].power, 0.125f);
}

// A thin lens focused on a plane sees it as the pinhole does: every ray through a pixel's
// point on the plane in focus meets the plane there. Focused elsewhere, the plane blurs: its
// checkerboard loses contrast. The plane emits its texture (no lighting), one segment.
TEST_F(LightTransportTest, AThinLensFocusesOnItsPlaneAndBlursOthers) {
  SceneBuilder builder("checkerboard");
  TextureImage checker{.name = "checker", .width = 8, .height = 8};
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x)
      for (uint8_t value : {uint8_t((x + y) % 2 ? 255 : 0), uint8_t((x + y) % 2 ? 255 : 0), uint8_t(0), uint8_t(255)})
        checker.rgba8.push_back(value);
  checker.sampler.magFilter = TextureFilter::Nearest;
  checker.sampler.minFilter = TextureFilter::Nearest;
  gpu::Material glowing = emitter(1);
  glowing.textures[gpu::SLOT_EMISSIVE].texture = int(builder.addTexture(checker));
  addPrimitive(builder, quad({-1, -1, 0}, {2, 0, 0}, {0, 2, 0}, builder.addMaterial(glowing)), Mat4{});
  const SceneData scene = builder.finish();
  RenderSettings settings;
  settings.width = settings.height = 24;
  settings.samplesPerPixel = 64;
  settings.maxDepth = 1;
  settings.camera = {.position = {0, 0, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 30};
  const auto contrast = [](const FrameResult& frame) {
    double sum = 0, squares = 0;
    const size_t pixels = frame.image.rgb.size() / 3;
    for (size_t i = 0; i < pixels; ++i) {
      sum += frame.image.rgb[3 * i];
      squares += double(frame.image.rgb[3 * i]) * frame.image.rgb[3 * i];
    }
    const double n = double(pixels);
    return std::sqrt(std::max(0.0, squares / n - (sum / n) * (sum / n)));
  };
  for (const Renderer& renderer : {Renderer{Backend::RayQuery, IntegratorKind::Megakernel},
                                   Renderer{Backend::Software, IntegratorKind::Wavefront}}) {
    const FrameResult pinhole = render(scene, settings, renderer);
    RenderSettings lens = settings;
    lens.camera.aperture = 0.4f;  // focus: the target's distance, the plane's
    const FrameResult focused = render(scene, lens, renderer);
    for (size_t i = 0; i < pinhole.image.rgb.size(); ++i)
      ASSERT_NEAR(focused.image.rgb[i], pinhole.image.rgb[i], 1e-3) << renderer.name() << ": value " << i;
    lens.camera.focusDistance = 1.5f;
    const FrameResult blurred = render(scene, lens, renderer);
    EXPECT_LT(contrast(blurred), 0.8 * contrast(pinhole)) << renderer.name();
    EXPECT_NEAR(channelMeans(blurred).mean[0], channelMeans(pinhole).mean[0], 0.05)
        << renderer.name() << ": blur moves light, it does not make or lose it";
  }
}

// Walker's alias table sampled by the renderer's aliasTableSample on the GPU: with 2^20 and
// more entries of unequal weight, every entry must come out in proportion to its weight.
TEST_F(LightTransportTest, AliasTableSamplesLargeTablesInProportion) {
  constexpr uint32_t entries = (1u << 20) + 12345;  // not a power of two either
  constexpr uint32_t drawsPerInvocation = 64;
  constexpr uint32_t invocations = 1u << 20;
  std::vector<float> weights(entries);
  for (uint32_t i = 0; i < entries; ++i) weights[i] = float(1 + (i * 2654435761u >> 27));  // 1 to 32
  const auto table = buildAliasTable(weights);
  const vk::Buffer tableBuffer =
      vk::uploadBuffer(*context, std::span<const gpu::AliasEntry>(table), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const vk::Buffer counts(
      *context, VkDeviceSize{entries} * sizeof(uint32_t),
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      vk::MemoryUse::DeviceOnly);
  const vk::Buffer readback(*context, counts.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  struct Push {
    uint64_t table;
    uint64_t counts;
    uint32_t entryCount;
    uint32_t drawsPerInvocation;
  } push{tableBuffer.address(), counts.address(), entries, drawsPerInvocation};
  const auto pipeline = vk::createComputePipeline(*context, "test_alias_table_sampling", sizeof(push));
  context->submitAndWait([&](VkCommandBuffer commands) {
    vkCmdFillBuffer(commands, counts.get(), 0, VK_WHOLE_SIZE, 0);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                      VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());
    vkCmdPushConstants(commands, pipeline.layout.get(), VK_SHADER_STAGE_ALL, 0, sizeof(push), &push);
    vkCmdDispatch(commands, invocations / gpu::WORKGROUP_SIZE_1D, 1, 1);
    recordCopyToHost(commands, counts, readback);
  });
  const auto observed = readback.view<const uint32_t>();
  double total = 0;
  for (float w : weights) total += w;
  const double draws = double(invocations) * drawsPerInvocation;
  // Pearson's chi-square over every entry: its mean is the degrees of freedom, its standard
  // deviation sqrt(2 dof); a coin of a few bits or a float index puts it far above.
  double chiSquare = 0;
  double worstRatio = 1;
  for (uint32_t i = 0; i < entries; ++i) {
    const double expected = draws * weights[i] / total;
    chiSquare += (observed[i] - expected) * (observed[i] - expected) / expected;
    EXPECT_FLOAT_EQ(table[i].pdf, float(weights[i] / total)) << "entry " << i;
    if (i % 4096 == 0) worstRatio = std::max(worstRatio, observed[i] / expected);
  }
  const double dof = entries - 1;
  EXPECT_LT(chiSquare, dof + 6 * std::sqrt(2 * dof)) << "chi-square " << chiSquare << " for " << dof << " dof";
  EXPECT_LT(worstRatio, 2.0);
}

// The tinted glass reflectance (common/fresnel.glsl) at `cosines`, by the test kernel: per
// cosine the tinted rgb, and the untinted Fresnel term.
std::vector<std::array<float, 4>> glassReflectance(const vk::Context& context, const std::vector<float>& cosines,
                                                   float eta, std::array<float, 3> specularColor,
                                                   float specularWeight) {
  const vk::Buffer cosineBuffer =
      vk::uploadBuffer(context, std::span<const float>(cosines), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const vk::Buffer results(context, cosines.size() * 4 * sizeof(float),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           vk::MemoryUse::DeviceOnly);
  const vk::Buffer readback(context, results.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  struct Push {
    uint64_t cosines;
    uint64_t reflectance;
    std::array<float, 3> specularColor;
    float specularWeight;
    float eta;
    uint32_t count;
  } push{cosineBuffer.address(), results.address(), specularColor, specularWeight, eta, uint32_t(cosines.size())};
  static_assert(sizeof(Push) == 40);
  const auto pipeline = vk::createComputePipeline(context, "test_glass_reflectance", sizeof(push));
  context.submitAndWait([&](VkCommandBuffer commands) {
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());
    vkCmdPushConstants(commands, pipeline.layout.get(), VK_SHADER_STAGE_ALL, 0, sizeof(push), &push);
    vkCmdDispatch(commands, (push.count + gpu::WORKGROUP_SIZE_1D - 1) / gpu::WORKGROUP_SIZE_1D, 1, 1);
    recordCopyToHost(commands, results, readback);
  });
  const auto values = readback.view<const std::array<float, 4>>();
  return {values.begin(), values.end()};
}

// KHR_materials_specular's colour and weight tint a glass's reflectance without breaking it: it
// is the exact Fresnel term when untinted, the tinted F0 at normal incidence, none at all from
// outside with weight 0 (as glTF says), and inside it meets total internal reflection at the
// critical angle continuously (a glass tinted to 0.2 in red used to reflect 0.2 of red just
// below it and all of it just above).
TEST_F(LightTransportTest, TintedGlassReflectanceIsContinuousAtTheCriticalAngle) {
  const float ior = 1.5f;
  const float inside = 1 / ior;
  const float critical = std::sqrt(1 - inside * inside);
  std::vector<float> cosines;
  for (int i = 1; i <= 100; ++i) cosines.push_back(float(i) / 100);

  for (float eta : {ior, inside}) {
    const auto untinted = glassReflectance(*context, cosines, eta, {1, 1, 1}, 1);
    for (size_t i = 0; i < cosines.size(); ++i)
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(untinted[i][c], untinted[i][3], 1e-5) << "eta " << eta << " cos " << cosines[i];
  }

  const std::array<float, 3> tint = {0.2f, 0.5f, 1.0f};
  const float f0 = (ior - 1) * (ior - 1) / ((ior + 1) * (ior + 1));
  const auto normal = glassReflectance(*context, {1.0f}, ior, tint, 0.8f);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(normal[0][c], f0 * tint[c] * 0.8f, 1e-5) << "channel " << c;

  const auto noSpecular = glassReflectance(*context, cosines, ior, tint, 0);
  for (size_t i = 0; i < cosines.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(noSpecular[i][c], 0, 1e-6) << "cos " << cosines[i];

  const auto across = glassReflectance(*context, {critical - 1e-4f, critical + 1e-4f}, inside, tint, 1);
  EXPECT_EQ(across[0][0], 1.0f) << "beyond the critical angle all is reflected";
  // Just inside it, as near to all as the exact term is (which rises infinitely steeply there):
  // 1 - tinted = (1 - tinted F0) (1 - f) / (1 - F0), within 1/(1 - F0) of 1 - f.
  for (int c = 0; c < 3; ++c)
    EXPECT_LE(1 - across[1][c], (1 - across[1][3]) / (1 - f0) + 1e-6f) << "channel " << c << " at " << across[1][3];
  // Rising all the way from normal incidence to the critical angle.
  std::vector<float> rising;
  for (int i = 0; i <= 200; ++i) rising.push_back(critical + (1 - critical) * float(i) / 200);
  const auto curve = glassReflectance(*context, rising, inside, tint, 1);
  for (size_t i = 1; i < curve.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_LE(curve[i][c], curve[i - 1][c] + 1e-6f) << "cos " << rising[i];
}

}  // namespace
}  // namespace ptbench::test
