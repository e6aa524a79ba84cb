#include "core/scene/gpu_scene.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "core/scene/builtin_scenes.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

class GpuSceneTest : public GpuTest {};

TEST_F(GpuSceneTest, AccelerationStructuresBuildOnLavapipe) {
  context = validatedContext({Backend::RayQuery, Backend::Pipeline});
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
  context = validatedContext({Backend::Software});
  const GpuScene gpuScene(*context, loadScene("builtin:furnace"));
  EXPECT_FALSE(gpuScene.hasAccelerationStructures());
  EXPECT_GT(gpuScene.bufferBytes(), 0u);
  EXPECT_FALSE(gpuScene.softwareBvhStats()) << "no layout was asked for";
}

TEST_F(GpuSceneTest, UploadsTheSoftwareBvhLayoutsAskedFor) {
  context = validatedContext({Backend::Software});
  const SceneData scene = loadScene("builtin:cornell");
  const std::vector<BvhLayout> layouts = {BvhLayout::Bvh2};
  const GpuScene gpuScene(*context, scene, layouts);
  ASSERT_TRUE(gpuScene.softwareBvhStats());
  EXPECT_TRUE(gpuScene.softwareBvhStats()->bvh2.built);
  EXPECT_FALSE(gpuScene.softwareBvhStats()->cwbvh.built) << "no run asked for it";
  const gpu::SceneAddresses bvh2 = gpuScene.addresses(TraceTarget(Backend::Software, BvhLayout::Bvh2));
  EXPECT_NE(bvh2.bvhNodes, 0u);
  EXPECT_NE(bvh2.bvhTriangles, 0u);
  EXPECT_NE(bvh2.bvhInstances, 0u);
  EXPECT_EQ(gpuScene.softwareBvhBytes(BvhLayout::Bvh2), gpuScene.softwareBvhStats()->bvh2.bytes);
  EXPECT_EQ(gpuScene.softwareBvhBytes(BvhLayout::Cwbvh), 0u);
  EXPECT_THROW(gpuScene.addresses(TraceTarget(Backend::Software, BvhLayout::Cwbvh)), std::logic_error);
}

// Each layout is checked on its own: a layout the traversal cannot take fails its runs alone.
TEST(SoftwareBvhFit, LayoutsTooDeepOrTooLargeForTheTraversalAreClearErrors) {
  BvhLayoutStats fine{.bytes = 1u << 20, .stackEntries = 20};
  fine.topLevel = {.depth = 3, .nodes = 10, .primitives = 100};
  fine.bottomLevels = {.depth = 16, .nodes = 1000, .primitives = 3000};
  EXPECT_EQ(softwareBvhLayoutError("s.gltf", BvhLayout::Bvh2, fine, 1ull << 30, "GPU"), "");
  BvhLayoutStats deep = fine;
  deep.topLevel.depth = 20;
  deep.bottomLevels.depth = 44;
  deep.stackEntries = 65;
  const std::string tooDeep = softwareBvhLayoutError("s.gltf", BvhLayout::Bvh2, deep, 1ull << 30, "GPU");
  EXPECT_NE(tooDeep.find("s.gltf: its software BVH (bvh2) is 20 levels deep over the instances and 44"),
            std::string::npos)
      << tooDeep;
  BvhLayoutStats manyInstances = fine;
  manyInstances.topLevel.primitives = (1u << 24) + 1;
  EXPECT_NE(softwareBvhLayoutError("s.gltf", BvhLayout::Cwbvh, manyInstances, 1ull << 30, "GPU").find("instances"),
            std::string::npos);
  BvhLayoutStats manyNodes = fine;
  manyNodes.bottomLevels.nodes = 900'000'000;  // x 5 words of 16 bytes passes 2^32 words
  EXPECT_NE(softwareBvhLayoutError("s.gltf", BvhLayout::Cwbvh, manyNodes, 1ull << 40, "GPU").find("nodes"),
            std::string::npos);
  EXPECT_NE(softwareBvhLayoutError("s.gltf", BvhLayout::Cwbvh, fine, 1u << 19, "GPU").find("device memory"),
            std::string::npos);
}

}  // namespace
}  // namespace ptbench::test
