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
    EXPECT_NE(gpuScene.addresses().vertices, 0u);
    EXPECT_EQ(gpuScene.addresses().emissiveTriangleCount, scene.emissiveTriangles.size());
    EXPECT_GE(gpuScene.textureBytes(), scene.textureBytes()) << "mip chains add to the base level";
  }
}

TEST_F(GpuSceneTest, SoftwareOnlyContextUploadsWithoutAccelerationStructures) {
  context = makeValidatedContext({Backend::Software});
  const GpuScene gpuScene(*context, loadScene("builtin:furnace"));
  EXPECT_FALSE(gpuScene.hasAccelerationStructures());
  EXPECT_GT(gpuScene.bufferBytes(), 0u);
}

}  // namespace
}  // namespace ptbench::test
