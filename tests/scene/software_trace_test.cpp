// The software backend's GPU traversal (shaders/trace/trace_software.glsl) held to the C++
// reference traversal of the same arrays (core/scene/bvh/traversal.cpp), which bvh_test.cpp
// holds to brute force: the same closest hits and the same any-hit answers, both layouts, each
// builder's tree.
#include <gtest/gtest.h>

#include <random>
#include <span>

#include "core/integrators/megakernel.h"
#include "core/scene/bvh/gpu_binary_bvh.h"
#include "core/scene/gpu_scene.h"
#include "core/vk/barrier.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"
#include "gpu_test.h"
#include "scene/bvh_checks.h"

namespace ptbench::test {
namespace {

// As shaders/tests/software_trace.comp declares them.
struct TestRay {
  gpu::vec3 origin;
  float tMax;
  gpu::vec3 direction;
  float pad;
};
struct TestHit {
  float t;
  uint32_t instance, geometry, primitive;
  float u, v;
};
struct TestPush {
  uint64_t params, rays, hits;
  uint32_t count, anyHit;
};

class SoftwareTraceTest : public GpuTest, public ::testing::WithParamInterface<std::tuple<std::string, BvhBuilder>> {
 protected:
  // Traces `rays` on the GPU through the software backend specialised for `layout`.
  std::vector<TestHit> trace(const GpuScene& scene, BvhLayout layout, const std::vector<TestRay>& rays, bool anyHit) {
    gpu::FrameParams params{};
    params.scene = scene.addresses(TraceTarget(Backend::Software, layout, std::get<BvhBuilder>(GetParam())));
    const vk::Buffer paramsBuffer =
        vk::uploadBuffer(*context, std::span<const gpu::FrameParams>(&params, 1), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    const vk::Buffer rayBuffer =
        vk::uploadBuffer(*context, std::span<const TestRay>(rays), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    const vk::Buffer hits(*context, rays.size() * sizeof(TestHit),
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          vk::MemoryUse::DeviceOnly);
    const vk::Buffer readback(*context, hits.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
    const TestPush push{paramsBuffer.address(), rayBuffer.address(), hits.address(), uint32_t(rays.size()), anyHit};
    const uint32_t layoutValue = layout == BvhLayout::Bvh2 ? gpu::SOFTWARE_BVH_BVH2 : gpu::SOFTWARE_BVH_CWBVH;
    const VkSpecializationMapEntry entry{.constantID = gpu::SPEC_SOFTWARE_BVH, .offset = 0, .size = 4};
    const VkSpecializationInfo specialization{
        .mapEntryCount = 1, .pMapEntries = &entry, .dataSize = 4, .pData = &layoutValue};
    const VkDescriptorSetLayout setLayout = scene.descriptorSetLayout();
    const auto pipeline = vk::createComputePipeline(*context, "test_software_trace", sizeof push,
                                                    std::span(&setLayout, 1), &specialization);
    context->submitAndWait([&](VkCommandBuffer commands) {
      const VkDescriptorSet set = scene.descriptorSet();
      vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());
      vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout.get(), gpu::SCENE_SET, 1, &set,
                              0, nullptr);
      vkCmdPushConstants(commands, pipeline.layout.get(), VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
      vkCmdDispatch(commands, uint32_t((rays.size() + gpu::WORKGROUP_SIZE_1D - 1) / gpu::WORKGROUP_SIZE_1D), 1, 1);
      recordCopyToHost(commands, hits, readback);
    });
    const auto view = readback.view<const TestHit>();
    return {view.begin(), view.end()};
  }
};

constexpr size_t raysPerScene = 20'000;

std::optional<SurfaceHit> asHit(const TestHit& hit) {
  if (hit.t < 0) return std::nullopt;
  return SurfaceHit{.t = hit.t,
                    .instance = hit.instance,
                    .geometry = hit.geometry,
                    .primitive = hit.primitive,
                    .u = hit.u,
                    .v = hit.v};
}

TEST_P(SoftwareTraceTest, GpuTraversalFindsWhatTheReferenceFinds) {
  context = validatedContext({Backend::Software});
  const auto& [sceneSpec, builder] = GetParam();
  const SceneData scene = loadTestScene(sceneSpec);
  // Alpha-tested geometry asks the material's textures, which the C++ reference cannot; the
  // image tests (software_backend_test.cpp) cover it against the hardware backends.
  for (const gpu::Material& material : scene.materials)
    if (material.alphaMode != gpu::ALPHA_OPAQUE) GTEST_SKIP() << "alpha-tested materials";
  const std::array builders = {builder};
  const GpuScene gpuScene(*context, scene, allBvhLayouts, 0, builders);
  // Deterministic, for either builder: the arrays GpuScene uploaded.
  GpuBvhBuilder gpuBuilder(*context);
  BvhBuildOptions options;
  if (builder == BvhBuilder::Gpu) options.levelsBuilder = gpuBuilder.levelsBuilder();
  const SoftwareBvh bvh = buildSoftwareBvh(scene, options);

  const std::vector<Ray> rays = randomRays(scene.bounds, raysPerScene, 7);
  const float diagonal = length(scene.bounds.max - scene.bounds.min);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> fraction(0, 2);
  std::vector<TestRay> closestRays, shadowRays;
  std::vector<std::optional<SurfaceHit>> expectedClosest;
  std::vector<bool> expectedAny;
  for (const Ray& ray : rays) {
    const auto hit = traceClosest(bvh.cwbvh, ray);
    expectedClosest.push_back(hit);
    closestRays.push_back({toGpu(ray.origin), gpu::RAY_T_MAX, toGpu(ray.direction), 0});
    // A shadow ray that ends before or after the first hit, as often one as the other.
    Ray shadow = ray;
    shadow.tMax = fraction(rng) * (hit ? hit->t : diagonal);
    expectedAny.push_back(traceAny(bvh.cwbvh, shadow));
    shadowRays.push_back({toGpu(ray.origin), shadow.tMax, toGpu(ray.direction), 0});
  }

  for (BvhLayout layout : allBvhLayouts) {
    const std::string what = sceneSpec + ", " + std::string(bvhLayoutName(layout)) + ", " +
                             std::string(bvhBuilderName(builder)) + " builder";
    const std::vector<TestHit> closest = trace(gpuScene, layout, closestRays, false);
    const std::vector<TestHit> any = trace(gpuScene, layout, shadowRays, true);
    ClosestAgreement agreement;
    size_t anyMismatches = 0, blocked = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
      agreement.add(expectedClosest[i], asHit(closest[i]));
      anyMismatches += (any[i].t != 0) != expectedAny[i];
      blocked += any[i].t != 0;
    }
    // The GPU may round the object-space ray a little differently (fused multiply-adds): a ray
    // grazing an edge may then hit the neighbouring triangle at the same t (a tie), and on
    // very rare occasions slip past a silhouette the reference just touches.
    EXPECT_LE(agreement.mismatches, rays.size() / 10000) << what << ": " << agreement.firstMismatch;
    EXPECT_LE(agreement.ties, agreement.hits / 100) << what;
    EXPECT_LE(anyMismatches, rays.size() / 10000) << what;
    EXPECT_GT(agreement.hits, rays.size() / 20) << what << ": the rays must mean something";
    EXPECT_GT(blocked, 0u) << what;
    EXPECT_LT(blocked, rays.size()) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, SoftwareTraceTest,
                         ::testing::Combine(::testing::ValuesIn(bvhTestScenes()), ::testing::ValuesIn(allBvhBuilders)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, BvhBuilder>>& testParam) {
                           return sceneTestName({std::get<std::string>(testParam.param), testParam.index}) + "_" +
                                  std::string(bvhBuilderName(std::get<BvhBuilder>(testParam.param)));
                         });

}  // namespace
}  // namespace ptbench::test
