#include "core/scene/gpu_scene.h"

#include <gtest/gtest.h>

#include "core/scene/builtin_scenes.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

class GpuSceneTest : public GpuTest {};

TEST_F(GpuSceneTest, AccelerationStructuresBuildOnLavapipe) {
  context = makeValidatedContext({Backend::RayQuery, Backend::Pipeline});
  for (const std::string& spec : std::vector<std::string>{
           "builtin:cornell", std::string(PTBENCH_SOURCE_DIR) + "/scenes/FlightHelmet/FlightHelmet.gltf"}) {
    const SceneData scene = loadScene(spec);
    const GpuScene gpuScene(*context, scene);
    ASSERT_TRUE(gpuScene.hasAccelerationStructures()) << spec;
    const auto& stats = gpuScene.accelerationStats();
    EXPECT_GT(stats.blasBytes, 0u) << spec;
    EXPECT_LE(stats.blasBytes, stats.blasBytesBuilt) << spec;
    EXPECT_GT(stats.tlasBytes, 0u) << spec;
    EXPECT_GT(stats.blasBuildGpuMs, 0.0) << spec;
    EXPECT_NE(gpuScene.addresses(Backend::RayQuery).vertices, 0u);
    EXPECT_EQ(gpuScene.addresses(Backend::RayQuery).emissiveTriangleCount, scene.emissiveTriangles.size());
    EXPECT_EQ(gpuScene.addresses(Backend::RayQuery).bvhNodes, 0u) << "no software BVH was asked for";
    EXPECT_GE(gpuScene.textureBytes(), scene.textureBytes()) << "mip chains add to the base level";
  }
}

TEST_F(GpuSceneTest, SoftwareOnlyContextUploadsWithoutAccelerationStructures) {
  context = makeValidatedContext({Backend::Software});
  const GpuScene gpuScene(*context, loadScene("builtin:furnace"));
  EXPECT_FALSE(gpuScene.hasAccelerationStructures());
  EXPECT_GT(gpuScene.bufferBytes(), 0u);
  EXPECT_FALSE(gpuScene.softwareBvhStats()) << "no layout was asked for";
}

TEST_F(GpuSceneTest, UploadsTheSoftwareBvhLayoutsAskedFor) {
  context = makeValidatedContext({Backend::Software});
  const SceneData scene = loadScene("builtin:cornell");
  const std::vector<BvhLayout> layouts = {BvhLayout::Bvh2};
  const GpuScene gpuScene(*context, scene, layouts);
  ASSERT_TRUE(gpuScene.softwareBvhStats());
  const gpu::SceneAddresses bvh2 = gpuScene.addresses(TraceTarget(Backend::Software, BvhLayout::Bvh2));
  EXPECT_NE(bvh2.bvhNodes, 0u);
  EXPECT_NE(bvh2.bvhTriangles, 0u);
  EXPECT_NE(bvh2.bvhInstances, 0u);
  EXPECT_EQ(gpuScene.softwareBvhBytes(BvhLayout::Bvh2), gpuScene.softwareBvhStats()->bvh2.bytes);
  EXPECT_EQ(gpuScene.softwareBvhBytes(BvhLayout::Cwbvh), 0u);
  EXPECT_THROW(gpuScene.addresses(TraceTarget(Backend::Software, BvhLayout::Cwbvh)), std::logic_error);
}

TEST(SoftwareBvhFit, ABvhLargerThanTheDeviceMemoryIsAClearError) {
  EXPECT_EQ(softwareBvhFitError("big.gltf", BvhLayout::Cwbvh, 1u << 20, 1u << 30, "GPU"), "");
  const std::string error = softwareBvhFitError("big.gltf", BvhLayout::Cwbvh, 3ull << 30, 2ull << 30, "GPU");
  EXPECT_NE(error.find("big.gltf"), std::string::npos) << error;
  EXPECT_NE(error.find("3072 MiB"), std::string::npos) << error;
  EXPECT_NE(error.find("cwbvh"), std::string::npos) << error;
}

}  // namespace
}  // namespace ptbench::test
