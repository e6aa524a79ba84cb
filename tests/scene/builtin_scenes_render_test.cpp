// The ReSTIR scenes rendered: builtin:room is lit mostly by bounces, and builtin:manylights by
// its lights however many there are.
#include <gtest/gtest.h>

#include <string>

#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"

namespace ptbench::test {
namespace {

class BuiltinSceneRenders : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({Backend::RayQuery}); }

  // The mean over pixels and channels of a small frame from the scene's own camera.
  double meanRadiance(const SceneData& scene, uint32_t maxDepth) {
    RenderSettings settings;
    settings.width = 32;
    settings.height = 24;
    settings.samplesPerPixel = 32;
    settings.maxDepth = maxDepth;
    settings.rrDepth = maxDepth;  // no roulette: the depths differ only by the bounces they allow
    settings.camera = *scene.sceneCamera;
    const GpuScene gpuScene(*context, scene);
    const FrameResult frame = renderWithoutInvalidSamples(
        *context, gpuScene, settings, {Backend::RayQuery, IntegratorKind::Megakernel}, scene.source);
    const ChannelMeans means = channelMeans(frame);
    return (means.mean[0] + means.mean[1] + means.mean[2]) / 3;
  }
};

// Depth 2 is a camera ray and its direct light (depth 1 sees only emitters); depth 8 adds six
// bounces. In the room the camera sees almost none of the sunlit patch, so the bounces give
// most of the image.
TEST_F(BuiltinSceneRenders, RoomIsLitMostlyByBounces) {
  const SceneData room = loadScene("builtin:room");
  const double direct = meanRadiance(room, 2), all = meanRadiance(room, 8);
  EXPECT_GT(all, 0.05) << "the room is lit";
  EXPECT_GT(all, 4 * direct) << "direct " << direct << ", all " << all;
}

// The lights' power is the same for every count, and light sampling finds them all: a
// frame's direct light changes little from 16 lights to 4096.
TEST_F(BuiltinSceneRenders, ManyLightsLightTheYardAlikeForAnyCount) {
  const double few = meanRadiance(loadScene("builtin:manylights?n=16"), 2);
  const double many = meanRadiance(loadScene("builtin:manylights?n=4096"), 2);
  EXPECT_GT(few, 0.02);
  EXPECT_GT(many, 0.02);
  EXPECT_GT(many, few / 2) << "16 lights: " << few << ", 4096: " << many;
  EXPECT_LT(many, few * 2) << "16 lights: " << few << ", 4096: " << many;
}

}  // namespace
}  // namespace ptbench::test
