#include "core/experiment/measure.h"

#include <gtest/gtest.h>

#include <vector>

namespace ptbench::test {
namespace {

// Renders nothing: keeps the settings of every frame it is asked for.
class RecordingIntegrator : public Integrator {
 public:
  FrameResult render(const RenderSettings& settings) override {
    frames.push_back(settings);
    return FrameResult{.gpuMs = 1.0 + double(frames.size())};
  }
  std::vector<KernelStatistics> kernels() const override { return {}; }
  std::vector<RenderSettings> frames;
};

std::vector<Camera> threeCameras() {
  std::vector<Camera> cameras;
  for (float x : {0.0f, 1.0f, 2.0f}) cameras.push_back({.position = {x, 0, 1}, .target = {x, 0, 0}});
  return cameras;
}

// A path is timed once in order whatever the repetition policy: warm-up frames at its first
// camera (each its own seed, after the path frames'), then frame k at camera k with the seed
// plus k, the previous frame's camera beside it, none read back (the GPU never waits for the host between timed
// frames); then the same warm-up again and the same frames, each read back and handed over.
TEST(Measure, ACameraPathIsTimedBackToBackThenRenderedAgainForItsImages) {
  ExperimentConfig config;
  config.warmup = 2;
  config.repetition.repeats = 10;
  RenderSettings settings;
  settings.seed = 7;
  settings.camera = {.position = {9, 9, 9}, .target = {0, 0, 0}};
  const std::vector<Camera> cameras = threeCameras();
  std::vector<uint32_t> handed;
  // Renders before the replay's frame k: two warm-ups, three timed frames, two warm-ups, k.
  const PathFrames path{.cameras = cameras, .frameDone = [&](uint32_t frame, const FrameResult& result) {
                          handed.push_back(frame);
                          EXPECT_EQ(result.gpuMs, 1.0 + 2 + 3 + 2 + 1 + frame);
                        }};
  RecordingIntegrator integrator;
  RunRecord record;
  const GpuMonitor monitor({});
  const auto last = measure(
      record, integrator, settings, config, monitor, [] { return false; }, path);
  ASSERT_TRUE(last.has_value());
  ASSERT_EQ(integrator.frames.size(), 10u);
  for (size_t pass = 0; pass < 2; ++pass) {
    const size_t first = pass * 5;
    for (size_t i = first; i < first + 2; ++i) {
      EXPECT_EQ(integrator.frames[i].camera.position, cameras[0].position) << "warm-up " << i;
      EXPECT_EQ(integrator.frames[i].seed, 7u + 3 + (i - first)) << "past the path frames' seeds";
      EXPECT_FALSE(integrator.frames[i].readImage);
      EXPECT_FALSE(integrator.frames[i].previousCamera.has_value());
    }
    for (uint32_t k = 0; k < 3; ++k) {
      const RenderSettings& frame = integrator.frames[first + 2 + k];
      EXPECT_EQ(frame.camera.position, cameras[k].position) << k;
      EXPECT_EQ(frame.seed, 7u + k) << k;
      EXPECT_EQ(frame.readImage, pass == 1) << "pass " << pass << ", frame " << k;
      EXPECT_EQ(frame.previousCamera.has_value(), k > 0) << k;
      if (k > 0) {
        EXPECT_EQ(frame.previousCamera->position, cameras[k - 1].position) << k;
      }
    }
  }
  EXPECT_EQ(handed, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(record.warmupFrames, 2u);
  EXPECT_EQ(record.frameGpuMs, (std::vector<double>{4, 5, 6})) << "the first pass's frames are the timed ones";
  EXPECT_EQ(last->gpuMs, 11);
}

// A fixed camera is measured as before: the repetition policy's frames, then one read back.
TEST(Measure, AFixedCameraRepeatsThenReadsBackOnce) {
  ExperimentConfig config;
  config.warmup = 1;
  config.repetition.repeats = 3;
  RecordingIntegrator integrator;
  RunRecord record;
  const GpuMonitor monitor({});
  ASSERT_TRUE(measure(record, integrator, RenderSettings{}, config, monitor, [] { return false; }).has_value());
  ASSERT_EQ(integrator.frames.size(), 5u);
  EXPECT_EQ(record.frameGpuMs.size(), 3u);
  for (size_t i = 0; i < 4; ++i) EXPECT_FALSE(integrator.frames[i].readImage) << i;
  EXPECT_TRUE(integrator.frames[4].readImage);
  for (const RenderSettings& frame : integrator.frames) {
    EXPECT_EQ(frame.seed, 0u);
    EXPECT_FALSE(frame.previousCamera.has_value());
  }
}

}  // namespace
}  // namespace ptbench::test
