#include "core/integrators/wavefront.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/integrators/options.h"
#include "core/integrators/registry.h"
#include "core/scene/builtin_scenes.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "integrators/test_scenes.h"

namespace ptbench::test {
namespace {

constexpr Backend hardwareBackends[] = {Backend::RayQuery, Backend::Pipeline};

class WavefrontTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  FrameResult render(const GpuScene& scene, const RenderSettings& settings, TraceTarget target,
                     IntegratorKind integrator = IntegratorKind::Wavefront) {
    return createIntegrator(integrator, *context, scene, target, settings)->render(settings);
  }

  // The wavefront under every schedule and ablation against the megakernel on one scene: the
  // same sample streams trace the same paths, so the images agree closely and the ray counts exactly.
  void expectEveryVariantAgrees(const std::string& sceneSpec, RenderSettings settings) {
    expectEveryVariantAgrees(loadScene(sceneSpec), settings);
  }

  void expectEveryVariantAgrees(const SceneData& scene, RenderSettings settings) {
    const std::string& sceneSpec = scene.source;
    const GpuScene gpuScene(*context, scene, allBvhLayouts);
    if (settings.camera.yfovDegrees == 0) settings.camera = scene.defaultCamera();
    for (Backend backend : hardwareBackends) {
      const FrameResult reference = render(gpuScene, settings, backend, IntegratorKind::Megakernel);
      for (const WavefrontOptions& options : everyVariant()) {
        RenderSettings variant = settings;
        variant.wavefront = options;
        // Stage timestamps turn the overlap off (overlapsStages): the variants with it take
        // frame timing, so that its recording is what renders.
        variant.stageTimestamps = !options.shadowOverlap;
        const FrameResult frame = render(gpuScene, variant, backend);
        const std::string what = sceneSpec + ", " + std::string(backendName(backend)) + ", " +
                                 optionsJson(IntegratorKind::Wavefront, variant).dump();
        expectAgree(reference, frame, 0.005, what);
        EXPECT_EQ(frame.work.extensionRays, reference.work.extensionRays) << what;
        EXPECT_EQ(frame.work.shadowRays, reference.work.shadowRays) << what;
        EXPECT_EQ(frame.work.paths, reference.work.paths) << what;
        EXPECT_EQ(frame.invalidSamples, 0u) << what;
        EXPECT_EQ(frame.pixelSamplesMin, settings.samplesPerPixel) << what << ": every pixel gets every sample";
        EXPECT_EQ(frame.pixelSamplesMax, settings.samplesPerPixel) << what;
        expectHonestFrameTime(frame, what);
      }
    }
  }

  // Both schedules with the default pool and one small enough to refill many times, compaction
  // on and off, material queues on and off; and each schedule with its stages one after another
  // (shadow_overlap off).
  static std::vector<WavefrontOptions> everyVariant() {
    std::vector<WavefrontOptions> variants;
    for (WavefrontSchedule schedule : {WavefrontSchedule::Depth, WavefrontSchedule::Pool})
      variants.push_back({.schedule = schedule});
    for (WavefrontSchedule schedule : {WavefrontSchedule::Depth, WavefrontSchedule::Pool})
      variants.push_back({.schedule = schedule, .poolSize = 700u, .shadowOverlap = false});
    for (WavefrontSchedule schedule : {WavefrontSchedule::Depth, WavefrontSchedule::Pool})
      for (bool compaction : {true, false})
        for (bool materialQueues : {false, true})
          variants.push_back(
              {.schedule = schedule, .poolSize = 700u, .compaction = compaction, .materialQueues = materialQueues});
    return variants;
  }

  static void expectHonestFrameTime(const FrameResult& frame, const std::string& what) {
    if (frame.stages.empty()) {
      EXPECT_GT(frame.gpuMs, 0.0) << what << ": timed per frame";
      return;
    }
    double stages = 0;
    for (const auto& stage : frame.stages) stages += stage.gpuNs * 1e-6;
    EXPECT_GE(frame.gpuMs, stages) << what << ": the frame spans its stages and the gaps between them";
    EXPECT_GT(stages, 0.0) << what;
  }

  static RenderSettings smallSettings(uint32_t size, uint32_t spp, uint32_t maxDepth) {
    RenderSettings settings;
    settings.width = settings.height = size;
    settings.samplesPerPixel = spp;
    settings.maxDepth = maxDepth;
    settings.seed = 3;
    settings.camera.yfovDegrees = 0;  // the scene's own camera
    return settings;
  }
};

TEST_F(WavefrontTest, CornellAgreesWithTheMegakernelInEveryVariant) {
  expectEveryVariantAgrees("builtin:cornell", smallSettings(32, 16, 6));
}

TEST_F(WavefrontTest, WhiteFurnaceAgreesWithTheMegakernelInEveryVariant) {
  RenderSettings settings = smallSettings(19, 64, 16);
  settings.height = 13;  // neither a multiple of generate's 8x4 pixel tiles
  settings.environment = {1, 1, 1};
  expectEveryVariantAgrees("builtin:furnace", settings);
}

// Textures, emitters and several material classes, so material queues sort into more than one.
TEST_F(WavefrontTest, TexturedSceneAgreesWithTheMegakernelInEveryVariant) {
  expectEveryVariantAgrees(
      std::string(PTBENCH_SOURCE_DIR) + "/scenes/EmissiveStrengthTest/glTF-Binary/EmissiveStrengthTest.glb",
      smallSettings(32, 8, 5));
}

// Shadow rays through thin glass (the wavefront's shadow stage, the megakernel's own) under a
// point light and the sun, with material queues that shade the glass in a kernel of its own.
TEST_F(WavefrontTest, ThinGlassPanesAgreeWithTheMegakernelInEveryVariant) {
  expectEveryVariantAgrees(thinGlassPanesScene(), smallSettings(24, 16, 4));
}

// A pool of 1,000 paths for a frame of 16,384: the job counter hands every (pixel, sample) out
// exactly once, however often slots are refilled.
TEST_F(WavefrontTest, SmallPoolRendersTheWholeFrame) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(64, 4, 8);
  settings.camera = scene.defaultCamera();
  for (Backend backend : hardwareBackends) {
    const FrameResult reference = render(gpuScene, settings, backend, IntegratorKind::Megakernel);
    for (WavefrontSchedule schedule : {WavefrontSchedule::Pool, WavefrontSchedule::Depth}) {
      RenderSettings pooled = settings;
      pooled.wavefront = {.schedule = schedule, .poolSize = 1000};
      const FrameResult frame = render(gpuScene, pooled, backend);
      const std::string what =
          std::string(backendName(backend)) + (schedule == WavefrontSchedule::Pool ? ", pool" : ", depth");
      EXPECT_EQ(frame.work.paths, 64u * 64u * 4u) << what;
      EXPECT_EQ(frame.pixelSamplesMin, 4u) << what;
      EXPECT_EQ(frame.pixelSamplesMax, 4u) << what;
      expectAgree(reference, frame, 0.005, what);
      EXPECT_EQ(frame.work.extensionRays, reference.work.extensionRays) << what;
      if (schedule == WavefrontSchedule::Pool) {
        EXPECT_GT(frame.steps.size(), size_t{settings.maxDepth}) << what << ": a small pool takes many iterations";
      }
    }
  }
}

// Depth schedule: paths only end, so live paths never increase from bounce to bounce, and the
// per-bounce counts add up to the frame's work, which is the megakernel's. A pool smaller than
// the frame sums its passes into the same bounces.
TEST_F(WavefrontTest, LivePathsPerBounceNeverIncreaseAndSumToTheFrame) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(32, 8, 8);
  settings.camera = scene.defaultCamera();
  const FrameResult reference = render(gpuScene, settings, Backend::RayQuery, IntegratorKind::Megakernel);
  for (uint32_t poolSize : {0u, 3000u}) {
    settings.wavefront.poolSize = poolSize;
    const FrameResult frame = render(gpuScene, settings, Backend::RayQuery);
    ASSERT_EQ(frame.steps.size(), settings.maxDepth);
    uint64_t extension = 0, shadow = 0, started = 0;
    for (size_t bounce = 0; bounce < frame.steps.size(); ++bounce) {
      if (bounce > 0) {
        EXPECT_LE(frame.steps[bounce].extensionRays, frame.steps[bounce - 1].extensionRays) << bounce;
      }
      extension += frame.steps[bounce].extensionRays;
      shadow += frame.steps[bounce].shadowRays;
      started += frame.steps[bounce].pathsStarted;
    }
    EXPECT_EQ(frame.steps[0].extensionRays, 32u * 32u * 8u) << "every path traces its camera ray";
    EXPECT_LT(frame.steps.back().extensionRays, frame.steps[0].extensionRays);
    EXPECT_EQ(extension, frame.work.extensionRays);
    EXPECT_EQ(shadow, frame.work.shadowRays);
    EXPECT_EQ(started, frame.work.paths);
    EXPECT_EQ(extension, reference.work.extensionRays) << "an independent count: the megakernel's, per pixel";
    EXPECT_EQ(shadow, reference.work.shadowRays);
    // Each stage is timed at each bounce.
    for (Stage stage : {Stage::Extend, Stage::Shade, Stage::Shadow, Stage::Accumulate}) {
      std::vector<bool> seen(settings.maxDepth, false);
      for (const auto& timing : frame.stages)
        if (timing.stage == stage) seen.at(timing.step) = true;
      for (bool bounceSeen : seen) EXPECT_TRUE(bounceSeen) << stageName(stage);
    }
  }
}

// With compaction, a launch dispatches its queue's count rounded up to the workgroup (compute)
// or exactly its count (ray generation): read back from the indirect records themselves. The
// counts here fit one row of either kind; beyond 65535 workgroups or the device's trace row width the
// records fold into rows that round up further (the kernels check the exact count).
TEST_F(WavefrontTest, CompactedLaunchesCoverExactlyTheirQueues) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(48, 1, 3);  // one pass, so the last iteration is the last bounce
  settings.rrDepth = 8;                               // no roulette: the last bounce still has many paths
  settings.camera = scene.defaultCamera();
  for (Backend backend : hardwareBackends)
    for (bool materialQueues : {false, true}) {
      settings.wavefront = {.materialQueues = materialQueues};
      WavefrontIntegrator integrator(*context, gpuScene, backend, settings);
      const FrameResult frame = integrator.render(settings);
      const auto records = integrator.readLaunchRecords();
      const std::string what = std::string(backendName(backend)) + (materialQueues ? ", material queues" : "");
      // The last iteration (the third: parity 0) sized its extension launch from the second's
      // shade and its shadow launch itself; the next iteration's extension launch is empty.
      EXPECT_EQ(records[gpu::LAUNCH_EXTEND_0].count, frame.steps.back().extensionRays) << what;
      EXPECT_EQ(records[gpu::LAUNCH_EXTEND_1].count, 0u) << what << ": every path ends at max depth";
      EXPECT_EQ(records[gpu::LAUNCH_SHADOW].count, frame.steps.back().shadowRays) << what;
      EXPECT_GT(records[gpu::LAUNCH_EXTEND_0].count, 1000u) << what;
      uint32_t shaded = 0;
      for (uint32_t c = 0; c < gpu::MATERIAL_CLASS_COUNT; ++c) shaded += records[gpu::LAUNCH_SHADE_FIRST + c].count;
      if (materialQueues) {
        EXPECT_EQ(shaded, records[gpu::LAUNCH_EXTEND_0].count) << what << ": every hit in one class";
      }
      // The per-class records are written only with material queues.
      const uint32_t written = materialQueues ? gpu::LAUNCH_COUNT : gpu::LAUNCH_SHADE_FIRST;
      for (uint32_t launch = 0; launch < written; ++launch) {
        const gpu::LaunchRecord& r = records[launch];
        const uint64_t roundedUp =
            (uint64_t{r.count} + gpu::WORKGROUP_SIZE_1D - 1) / gpu::WORKGROUP_SIZE_1D * gpu::WORKGROUP_SIZE_1D;
        EXPECT_EQ(uint64_t{r.groupsX} * r.groupsY * r.groupsZ * gpu::WORKGROUP_SIZE_1D, roundedUp)
            << what << ", launch " << launch;
        EXPECT_EQ(uint64_t{r.width} * r.height * r.depth, r.count) << what << ", launch " << launch;
      }
    }
}

// One pixel of a 2^20-sample frame, every sample exactly the environment's 0.1: float32 sums
// drifted 1% from that; the fixed-point film must not, whichever integrator writes it and
// however many of the pixel's paths are in flight at once (the pool schedule).
TEST_F(WavefrontTest, FilmDoesNotDriftOverAMillionSamplesOfOnePixel) {
  const SceneData scene = loadScene("builtin:furnace");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(1, 1u << 20, 4);
  settings.environment = {0.1f, 0.1f, 0.1f};
  // Looking away from the sphere: every camera ray escapes at once.
  settings.camera = {.position = {0, 0, 5}, .target = {0, 0, 10}, .up = {0, 1, 0}, .yfovDegrees = 10};
  settings.wavefront = {.schedule = WavefrontSchedule::Pool, .poolSize = 1u << 14};
  for (IntegratorKind integrator : {IntegratorKind::MegakernelRegen, IntegratorKind::Wavefront}) {
    const FrameResult frame = render(gpuScene, settings, Backend::RayQuery, integrator);
    EXPECT_EQ(frame.pixelSamplesMin, 1u << 20) << integratorName(integrator);
    for (float value : frame.image.rgb) EXPECT_NEAR(value, 0.1f, 1e-6f) << integratorName(integrator);
  }
}

// A sample the fixed-point film cannot hold (10^12 or more) is black and counted, as a NaN is.
TEST_F(WavefrontTest, OutOfRangeSamplesAreCountedAndBlack) {
  const SceneData scene = loadScene("builtin:furnace");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(2, 8, 4);
  settings.environment = {2e12f, 2e12f, 2e12f};
  settings.camera = {.position = {0, 0, 5}, .target = {0, 0, 10}, .up = {0, 1, 0}, .yfovDegrees = 10};
  for (IntegratorKind integrator : pathTracers) {
    if (!unsupportedReason(integrator, Backend::RayQuery, settings, context->capabilities()).empty()) continue;
    const FrameResult frame = render(gpuScene, settings, Backend::RayQuery, integrator);
    EXPECT_EQ(frame.invalidSamples, 2u * 2u * 8u) << integratorName(integrator);
    for (float value : frame.image.rgb) EXPECT_EQ(value, 0.0f) << integratorName(integrator);
  }
}

// A pool of one path: the depth schedule's passes outnumber what one command buffer takes
// (WavefrontIntegrator::maxIterationsPerSubmission) and go into several; the frame stays whole.
TEST_F(WavefrontTest, DepthScheduleSplitsVeryLongFramesIntoSubmissions) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(16, 1, 17);
  settings.camera = scene.defaultCamera();
  ASSERT_GT(16u * 16u * settings.maxDepth, WavefrontIntegrator::maxIterationsPerSubmission);
  const FrameResult reference = render(gpuScene, settings, Backend::RayQuery, IntegratorKind::Megakernel);
  settings.wavefront.poolSize = 1;
  const FrameResult frame = render(gpuScene, settings, Backend::RayQuery);
  EXPECT_EQ(frame.pixelSamplesMin, 1u);
  EXPECT_EQ(frame.pixelSamplesMax, 1u);
  EXPECT_EQ(frame.work.extensionRays, reference.work.extensionRays);
  expectAgree(reference, frame, 0.005, "pool of one path");
  expectHonestFrameTime(frame, "pool of one path");
}

// The default pool comes from the device, not the frame: a 64x64, 64-spp frame (262,144 paths)
// takes more than a pass of one sample per pixel, never more than the frame or the budget.
TEST_F(WavefrontTest, DefaultPoolFillsTheDeviceWithinTheFrameAndTheBudget) {
  RenderSettings settings = smallSettings(64, 64, 8);
  const PoolChoice here = defaultWavefrontPool(settings, context->capabilities());
  EXPECT_GT(here.paths, 4096u) << here.reason;
  EXPECT_LE(here.paths, 64u * 64u * 64u) << here.reason;
  EXPECT_FALSE(here.reason.empty());

  // An H100 as ptbench sees it: 132 SMs, 80 GB.
  vk::DeviceCapabilities h100;
  h100.smCount = 132;
  h100.deviceLocalBytes = uint64_t{80} << 30;
  settings = smallSettings(1024, 256, 64);
  const PoolChoice large = defaultWavefrontPool(settings, h100);
  const uint64_t framePaths = 1024u * 1024u * 256u;
  const uint64_t passes = (framePaths + large.paths - 1) / large.paths;
  EXPECT_EQ(large.paths, (framePaths + passes - 1) / passes) << "passes of equal size: " << large.reason;
  EXPECT_GE(large.paths, 132u * 2048u * 8u) << large.reason;
  EXPECT_LE(WavefrontIntegrator::stateBytes(large.paths, settings.wavefront), poolMemoryBudget) << large.reason;
  EXPECT_NE(large.reason.find("132 SMs"), std::string::npos) << large.reason;

  // A small device: the budget, a quarter of its memory, decides.
  vk::DeviceCapabilities small = h100;
  small.deviceLocalBytes = uint64_t{1} << 30;
  const PoolChoice budgeted = defaultWavefrontPool(settings, small);
  EXPECT_LE(WavefrontIntegrator::stateBytes(budgeted.paths, settings.wavefront), small.deviceLocalBytes / 4)
      << budgeted.reason;
  EXPECT_NE(budgeted.reason.find("budget"), std::string::npos) << budgeted.reason;

  // A configured size is kept, within the frame.
  settings = smallSettings(8, 1, 4);
  settings.wavefront.poolSize = 1000;
  EXPECT_EQ(wavefrontPool(settings, h100).paths, 64u);
}

// Launches are counted in every frame; timing: frame keeps them and the frame's time but writes
// no stage timestamps. The depth schedule's launches: generate and its prepare once a pass, then
// extend, shade, prepare, shadow and accumulate each bounce; where the pass owns its pixels (one
// sample a pixel), shade and shadow write the film and accumulate does not run.
TEST_F(WavefrontTest, FrameTimingCountsTheSameLaunchesWithoutStageRows) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(32, 4, 6);
  settings.camera = scene.defaultCamera();
  for (Backend backend : hardwareBackends) {
    auto integrator = createIntegrator(IntegratorKind::Wavefront, *context, gpuScene, backend, settings);
    RenderSettings frameOnly = settings;
    frameOnly.stageTimestamps = false;
    integrator->render(settings);  // warm-up: the first frame pays for first use
    // Alternately, so that both see the same state of the machine; medians.
    std::vector<double> stagedMs, frameOnlyMs;
    FrameResult staged, timedOnce;
    for (int repeat = 0; repeat < 9; ++repeat) {
      staged = integrator->render(settings);
      timedOnce = integrator->render(frameOnly);
      stagedMs.push_back(staged.gpuMs);
      frameOnlyMs.push_back(timedOnce.gpuMs);
    }
    EXPECT_EQ(staged.launches, 2u + 5u * settings.maxDepth) << backendName(backend) << ": one pass";
    EXPECT_FALSE(staged.stages.empty()) << backendName(backend);
    EXPECT_TRUE(timedOnce.stages.empty()) << backendName(backend);
    EXPECT_EQ(timedOnce.launches, staged.launches) << backendName(backend);
    EXPECT_EQ(timedOnce.work.extensionRays, staged.work.extensionRays) << backendName(backend);
    expectAgree(staged, timedOnce, 1e-6, "timing: frame renders the same frame");
    // On lavapipe a timestamp costs little beside the CPU's rendering: the frame times agree
    // within run-to-run noise (on a GPU the difference is what the stage timestamps cost).
    std::sort(stagedMs.begin(), stagedMs.end());
    std::sort(frameOnlyMs.begin(), frameOnlyMs.end());
    // (A factor of 2: a CPU shared with other work, as in CI, moves lavapipe's medians by 1.5.)
    EXPECT_LT(frameOnlyMs[4], stagedMs[4] * 2) << backendName(backend);
    EXPECT_GT(frameOnlyMs[4], stagedMs[4] / 2) << backendName(backend);
  }
  // The megakernel: one launch a sample, each in its own stage scope or none.
  auto megakernel = createIntegrator(IntegratorKind::Megakernel, *context, gpuScene, Backend::RayQuery, settings);
  settings.stageTimestamps = false;
  const FrameResult frame = megakernel->render(settings);
  EXPECT_EQ(frame.launches, settings.samplesPerPixel);
  EXPECT_TRUE(frame.stages.empty());
}

// One sample a pixel: the pass owns its pixels, so shade and shadow put each ended path's sample
// into the film with plain stores and no accumulate runs (4 launches a bounce); the image and the
// ray counts are the megakernel's.
TEST_F(WavefrontTest, APassThatOwnsItsPixelsWritesTheFilmWithoutAccumulate) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(32, 1, 6);
  settings.camera = scene.defaultCamera();
  const FrameResult reference = render(gpuScene, settings, Backend::RayQuery, IntegratorKind::Megakernel);
  for (bool compaction : {true, false}) {
    settings.wavefront.compaction = compaction;
    const FrameResult frame = render(gpuScene, settings, Backend::RayQuery);
    EXPECT_EQ(frame.launches, 2u + 4u * settings.maxDepth) << "compaction " << compaction;
    for (const auto& timing : frame.stages) EXPECT_NE(timing.stage, Stage::Accumulate);
    EXPECT_EQ(frame.work.extensionRays, reference.work.extensionRays);
    EXPECT_EQ(frame.work.shadowRays, reference.work.shadowRays);
    expectAgree(reference, frame, 1e-6, "one sample a pixel, committed by shade and shadow");
  }
}

// Stages side by side (shadow_overlap) change the order in which kernels may run, never what
// they compute: per step the same paths, extension and shadow rays, and the same image to the
// bit (the film sums in fixed point), in both schedules, with and without owned pixels.
TEST_F(WavefrontTest, ShadowOverlapChangesNoStepAndNoPixel) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  for (WavefrontSchedule schedule : {WavefrontSchedule::Depth, WavefrontSchedule::Pool})
    for (uint32_t spp : {1u, 4u}) {
      RenderSettings settings = smallSettings(24, spp, 6);
      settings.camera = scene.defaultCamera();
      settings.stageTimestamps = false;
      settings.wavefront.schedule = schedule;
      settings.wavefront.poolSize = 300;  // several passes, or many refills
      std::vector<FrameResult> frames;
      for (bool overlap : {false, true}) {
        settings.wavefront.shadowOverlap = overlap;
        frames.push_back(render(gpuScene, settings, Backend::RayQuery));
      }
      const std::string what =
          std::string(schedule == WavefrontSchedule::Pool ? "pool" : "depth") + ", " + std::to_string(spp) + " spp";
      ASSERT_EQ(frames[0].steps.size(), frames[1].steps.size()) << what;
      for (size_t step = 0; step < frames[0].steps.size(); ++step) {
        EXPECT_EQ(frames[0].steps[step].extensionRays, frames[1].steps[step].extensionRays) << what << ", " << step;
        EXPECT_EQ(frames[0].steps[step].shadowRays, frames[1].steps[step].shadowRays) << what << ", " << step;
        EXPECT_EQ(frames[0].steps[step].pathsStarted, frames[1].steps[step].pathsStarted) << what << ", " << step;
      }
      ASSERT_FALSE(frames[0].image.rgb.empty()) << what;
      EXPECT_TRUE(frames[0].image.rgb == frames[1].image.rgb) << what << ": the images differ";
      // The pool's overlap saves a prepare an iteration; the depth schedule's only barriers.
      if (schedule == WavefrontSchedule::Pool)
        EXPECT_LT(frames[1].launches, frames[0].launches) << what;
      else
        EXPECT_EQ(frames[1].launches, frames[0].launches) << what;
    }
}

// A persistent pool that holds the whole frame has drained after max_depth iterations: it runs
// exactly those, with no host check before, rather than whole chunks of poolCheckInterval.
TEST_F(WavefrontTest, PoolThatHoldsTheFrameRunsMaxDepthIterations) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(16, 2, 5);
  settings.camera = scene.defaultCamera();
  settings.wavefront.schedule = WavefrontSchedule::Pool;
  settings.stageTimestamps = false;  // which the overlap needs (overlapsStages)
  const FrameResult reference = render(gpuScene, settings, Backend::RayQuery, IntegratorKind::Megakernel);
  for (bool overlap : {true, false}) {
    settings.wavefront.shadowOverlap = overlap;
    const FrameResult frame = render(gpuScene, settings, Backend::RayQuery);
    // Each iteration: prepare, generate, extend, shade, prepare, shadow, accumulate; with the
    // overlap the prepare after shade also sizes the next generate, so the first prepare and
    // generate are the frame's own and every iteration then has six.
    EXPECT_EQ(frame.launches, overlap ? 2u + 6u * settings.maxDepth : 7u * settings.maxDepth) << overlap;
    EXPECT_EQ(frame.work.extensionRays, reference.work.extensionRays);
    EXPECT_EQ(frame.work.paths, reference.work.paths);
    expectAgree(reference, frame, 0.005, "a pool of the whole frame");
  }
}

TEST_F(WavefrontTest, FrameTimeSpansTheStagesForEveryIntegrator) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = smallSettings(24, 4, 4);
  settings.camera = scene.defaultCamera();
  for (IntegratorKind integrator : allIntegrators)
    if (unsupportedReason(integrator, Backend::Pipeline, settings, context->capabilities()).empty())
      expectHonestFrameTime(render(gpuScene, settings, Backend::Pipeline, integrator),
                            std::string(integratorName(integrator)));
}

}  // namespace
}  // namespace ptbench::test
