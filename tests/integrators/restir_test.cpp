// ReSTIR (option restir): DI's estimate of the primary vertex's direct light against next-event
// estimation's, and DI's, GI's and both's whole images against the plain path tracer's, on every
// trace backend; the wavefront's images against the megakernel's.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "core/experiment/convergence.h"
#include "core/integrators/create.h"
#include "core/integrators/registry.h"
#include "core/scene/builtin_scenes.h"
#include "core/scene/environment_map.h"
#include "core/scene/gpu_scene.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"
#include "integrators/test_scenes.h"

namespace ptbench::test {
namespace {

const Renderer megakernels[] = {{Backend::RayQuery, IntegratorKind::Megakernel},
                                {Backend::Pipeline, IntegratorKind::Megakernel},
                                {Backend::Software, IntegratorKind::Megakernel, BvhLayout::Cwbvh}};

// ReSTIR's pixels share their samples (spatial reuse) and carry them from pass to pass
// (temporal reuse), so the film's per-pixel variance says nothing of its image mean's error.
// Measured instead on lavapipe (Cornell, 24x24, 64 spp, direct light): over seeds 1 to 8 its
// image mean has a standard deviation of 1.1%, and it differs from the path tracer's of the
// same seed, whose camera rays it shares, by 0.5% at most (seeds 1 to 4; the mean difference
// -0.2%, within noise). 2% is four times that difference.
constexpr double restirMeanTolerance = 0.02;
// ReSTIR GI after 2048 sample passes on Cornell at 48x48 against the plain megakernel at 1024
// samples: measured on lavapipe over seeds 1, 2 and 5, its channel means are 0.15% to 0.28%
// below the plain one's (GI without reuse: 0.15% below). Reused samples spread their noise over
// neighbours and passes, so its mean converges more slowly than the film's variance says.
constexpr double restirGiMeanTolerance = 0.01;

class RestirTest : public GpuTest {
 public:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  static RenderSettings settingsFor(const SceneData& scene, uint32_t size, uint32_t spp, uint32_t maxDepth) {
    RenderSettings settings;
    settings.width = settings.height = size;
    settings.samplesPerPixel = spp;
    settings.maxDepth = maxDepth;
    settings.seed = 5;
    settings.camera = scene.defaultCamera();
    return settings;
  }

  // The plain megakernel and the one with ReSTIR (`mode`), each on every backend (or the first):
  // channel means agree within `tolerance`, the plain one's rendered with `plainSamples`
  // (default: as many).
  void expectRestirMatchesThePathTracer(const SceneData& scene, const RenderSettings& settings,
                                        Restir mode = Restir::Di, double tolerance = restirMeanTolerance,
                                        uint32_t plainSamples = 0, bool everyBackend = true) {
    const GpuScene gpuScene(*context, scene, allBvhLayouts);
    for (const Renderer& renderer : std::span(megakernels).first(everyBackend ? std::size(megakernels) : 1)) {
      const std::string what = scene.source + ", " + renderer.name() + ", restir " + std::string(restirName(mode));
      RenderSettings reference = settings;
      if (plainSamples != 0) reference.samplesPerPixel = plainSamples;
      const FrameResult plain = renderWithoutInvalidSamples(*context, gpuScene, reference, renderer, what);
      RenderSettings restir = settings;
      restir.restir = mode;
      const FrameResult reused = renderWithoutInvalidSamples(*context, gpuScene, restir, renderer, what);
      const ChannelMeans expected = channelMeans(plain), got = channelMeans(reused);
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(got.mean[c], expected.mean[c], tolerance * expected.mean[c]) << what << " channel " << c;
      EXPECT_EQ(reused.pixelSamplesMin, settings.samplesPerPixel) << what << ": the final shading adds every sample";
      EXPECT_EQ(reused.pixelSamplesMax, settings.samplesPerPixel) << what;
      // (GI's paths go on from its sample point with a roulette of their own.)
      if (mode == Restir::Di && plainSamples == 0) {
        EXPECT_EQ(reused.work.extensionRays, plain.work.extensionRays) << what << ": the same paths";
      }
      if (plainSamples == 0) {
        EXPECT_GT(reused.work.shadowRays, plain.work.shadowRays / 2) << what << ": the passes' shadow rays are counted";
      }
      for (Stage stage : {Stage::RestirTemporal, Stage::RestirSpatial, Stage::RestirShade})
        EXPECT_TRUE(std::any_of(reused.stages.begin(), reused.stages.end(),
                                [&](const vk::StageTiming& timing) { return timing.stage == stage; }))
            << what << ": stage " << stageName(stage) << " is timed";
    }
  }
};

// One emitter (Cornell's ceiling light) and paths of two segments: the image is the primary
// vertex's direct light alone, ReSTIR's resampled estimate against next-event estimation with
// MIS; BSDF-sampled rays that reach the light must count for nothing beside the reservoir.
TEST_F(RestirTest, OneLightDirectLightEqualsNextEventEstimation) {
  const SceneData scene = loadScene("builtin:cornell");
  expectRestirMatchesThePathTracer(scene, settingsFor(scene, 24, 64, 2));
}

// Whole paths on a static camera: every sample pass reuses the pass before's reservoirs, and
// the image converges to the path tracer's. Thin glass panes bring a point light, the sun and an
// emitter (every kind of light but the environment map), shadow rays through tinted walls and
// transmitted BSDF samples from the primary vertex, which keep their ordinary MIS weight.
TEST_F(RestirTest, StaticCameraConvergesToThePathTracer) {
  const SceneData cornell = loadScene("builtin:cornell");
  expectRestirMatchesThePathTracer(cornell, settingsFor(cornell, 24, 64, 6));
  const SceneData panes = thinGlassPanesScene();
  expectRestirMatchesThePathTracer(panes, settingsFor(panes, 24, 64, 4));
}

// The environment map's sun on DamagedHelmet's glossy metal, one sample a pixel: ReSTIR DI's
// error is no larger than next-event estimation's. Its reservoir estimates light sampling's
// MIS-weighted share, as the light sample it replaces does; a first version took the whole
// direct light by light sampling alone, and where a glossy lobe met the sun its pixels came out a
// hundred times too bright (`ptbench render` of this view at 64x36, seeds 0 and 5 to 9: relMSE
// 0.13 to 13, 3.3 on average, against next-event estimation's 0.08 to 0.17; now 0.08 to 0.16).
TEST_F(RestirTest, GlossyMetalUnderTheSunIsNoNoisierThanNextEventEstimation) {
  SceneData scene = loadScene(std::string(PTBENCH_SOURCE_DIR) + "/scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb");
  scene.environmentMap =
      loadEnvironmentMap(std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes/env/venice_sunset_1k.hdr");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings;
  settings.width = 64;
  settings.height = 36;
  settings.maxDepth = 8;
  settings.camera = {.position = {0, 0.2f, 3}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 45};
  const Renderer renderer = megakernels[0];
  RenderSettings converged = settings;
  converged.samplesPerPixel = 256;
  const LinearImage reference =
      renderWithoutInvalidSamples(*context, gpuScene, converged, renderer, "helmet, reference").image;
  double plainError = 0, restirError = 0;
  for (const uint32_t seed : {0u, 5u, 6u, 7u, 8u, 9u}) {
    RenderSettings frame = settings;
    frame.samplesPerPixel = 1;
    frame.seed = seed;
    plainError +=
        convergenceMetrics(renderWithoutInvalidSamples(*context, gpuScene, frame, renderer, "plain").image, reference)
            ->relmse;
    frame.restir = Restir::Di;
    restirError +=
        convergenceMetrics(renderWithoutInvalidSamples(*context, gpuScene, frame, renderer, "restir").image, reference)
            ->relmse;
  }
  EXPECT_LT(restirError, 1.25 * plainError)
      << "relMSE summed over six seeds: ReSTIR " << restirError << ", next-event estimation " << plainError;
}

// Frames of a moving camera, each reusing the one before's reservoirs through its camera
// (previousCamera): the last frame is still the path tracer's image in expectation.
// Frames of `size` pixels square and `samples` passes; the plain reference has four times the samples.
void expectMovingCameraUnbiased(const vk::Context& context, Restir mode, double tolerance, uint32_t size = 24,
                                uint32_t samples = 16) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(context, scene, allBvhLayouts);
  RenderSettings settings = RestirTest::settingsFor(scene, size, samples, 4);
  const Renderer renderer = megakernels[0];
  RenderSettings restir = settings;
  restir.restir = mode;
  auto integrator = createIntegrator(renderer.integrator, context, gpuScene, renderer.target(), restir);
  FrameResult last;
  for (int k = 0; k < 4; ++k) {
    RenderSettings frame = restir;
    frame.camera.position.x += 0.05f * float(k);
    frame.seed = settings.seed + k;
    if (k > 0) {
      frame.previousCamera = restir.camera;
      frame.previousCamera->position.x += 0.05f * float(k - 1);
    }
    last = integrator->render(frame);
    EXPECT_EQ(last.invalidSamples, 0u) << "frame " << k;
  }
  RenderSettings plain = settings;
  plain.camera.position.x += 0.15f;
  plain.seed = settings.seed + 3;
  plain.samplesPerPixel = 4 * samples;
  const FrameResult reference =
      renderWithoutInvalidSamples(context, gpuScene, plain, renderer, "cornell, the last frame's camera");
  const ChannelMeans expected = channelMeans(reference), got = channelMeans(last);
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(got.mean[c], expected.mean[c], tolerance * expected.mean[c])
        << "restir " << restirName(mode) << " channel " << c;
}

TEST_F(RestirTest, MovingCameraReusesHistoryWithoutBias) {
  expectMovingCameraUnbiased(*context, Restir::Di, restirMeanTolerance);
}

// Temporal reuse rejects history that saw another surface. The history here was rendered from
// inside Cornell's tall block, which hides from it every point the next frame sees: that frame
// must be exactly the one an integrator without history renders (same samples, same
// neighbours), while history from the frame's own camera changes it. (Without the surface test
// the history's pixels are reused and the images differ.) DI's and GI's reservoirs alike.
void expectDisoccludedHistoryRejected(const vk::Context& context, Restir mode) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(context, scene, allBvhLayouts);
  RenderSettings settings = RestirTest::settingsFor(scene, 24, 1, 3);
  settings.restir = mode;
  const Renderer renderer = megakernels[0];
  RenderSettings hidden = settings;
  hidden.camera.position = {0.368f, 0.165f, 0.351f};  // the tall block's middle, facing the back wall
  hidden.camera.target = {0.278f, 0.273f, 0.559f};
  hidden.seed = settings.seed + 1;

  // Frame 1 of a path whose frame 0 was `history`.
  const auto secondFrame = [&](const RenderSettings& history) {
    auto integrator = createIntegrator(renderer.integrator, context, gpuScene, renderer.target(), settings);
    integrator->render(history);
    RenderSettings frame = settings;
    frame.previousCamera = history.camera;
    return integrator->render(frame);
  };
  const FrameResult fresh =
      createIntegrator(renderer.integrator, context, gpuScene, renderer.target(), settings)->render(settings);
  const FrameResult disoccluded = secondFrame(hidden);
  EXPECT_EQ(disoccluded.image.rgb, fresh.image.rgb) << "history from inside the block was reused";
  EXPECT_EQ(disoccluded.work.shadowRays, fresh.work.shadowRays);
  RenderSettings visible = settings;
  visible.seed = settings.seed + 1;
  const FrameResult reused = secondFrame(visible);
  EXPECT_NE(reused.image.rgb, fresh.image.rgb) << "history from the same view was not reused";
  EXPECT_GT(reused.work.shadowRays, fresh.work.shadowRays) << "the history's visibility rays";
}

TEST_F(RestirTest, DisoccludedHistoryIsRejected) {
  for (Restir mode : {Restir::Di, Restir::Gi}) {
    SCOPED_TRACE(restirName(mode));
    expectDisoccludedHistoryRejected(*context, mode);
  }
}

// The same sample streams draw the same candidates, neighbours and history in both
// architectures, and the passes are the same kernels: the images agree pixel by pixel (to
// floating-point order, as the plain path tracers do), and so do the rays counted.
// On the first `backends` megakernels' backends, the wavefront with each of `materialQueues`.
void expectWavefrontMakesTheMegakernelsImage(const vk::Context& context, const SceneData& scene, Restir mode,
                                             size_t backends = std::size(megakernels),
                                             std::initializer_list<bool> materialQueueVariants = {false, true},
                                             RestirOptions options = {}) {
  const GpuScene gpuScene(context, scene, allBvhLayouts);
  RenderSettings settings = RestirTest::settingsFor(scene, 24, 8, 4);
  settings.restir = mode;
  settings.restirOptions = options;
  for (const Renderer& megakernel : std::span(megakernels).first(backends)) {
    const Renderer wavefront{megakernel.backend, IntegratorKind::Wavefront, megakernel.softwareBvh};
    for (bool materialQueues : materialQueueVariants) {
      RenderSettings variant = settings;
      variant.wavefront.materialQueues = materialQueues;
      const std::string what = scene.source + ", " + wavefront.name() + (materialQueues ? " +matq" : "") + ", restir " +
                               std::string(restirName(mode));
      const FrameResult reference = renderWithoutInvalidSamples(context, gpuScene, variant, megakernel, what);
      const FrameResult frame = renderWithoutInvalidSamples(context, gpuScene, variant, wavefront, what);
      expectAgree(reference, frame, 0.002, what);
      EXPECT_EQ(frame.work.extensionRays, reference.work.extensionRays) << what;
      EXPECT_EQ(frame.work.shadowRays, reference.work.shadowRays) << what;
      EXPECT_EQ(frame.pixelSamplesMin, settings.samplesPerPixel) << what;
    }
  }
}

TEST_F(RestirTest, WavefrontMakesTheMegakernelsImage) {
  expectWavefrontMakesTheMegakernelsImage(*context, thinGlassPanesScene(), Restir::Di);
}

// restir_bsdf_candidate: the primary vertex's BSDF sample is a candidate of DI's initial
// reservoir beside the light samples, and the reservoir estimates all of the direct light, so
// emission that sample's ray finds counts for nothing in the path. Unbiased: on Cornell's area
// light with paths of two segments (the direct light alone) and on the thin panes under an
// environment map beside their point light, sun and emitter (every kind of light, transmitted
// BSDF samples keeping their ordinary MIS weight), the image converges to the path tracer's; the
// wavefront streams the same candidate into the reservoir in a kernel of its own, and its image
// is the megakernel's. One backend: the candidate is shading, not tracing.
TEST_F(RestirTest, BsdfCandidatesConvergeToThePathTracer) {
  const SceneData cornell = loadScene("builtin:cornell");
  RenderSettings settings = settingsFor(cornell, 24, 64, 2);
  settings.restirOptions.bsdfCandidate = true;
  expectRestirMatchesThePathTracer(cornell, settings, Restir::Di, restirMeanTolerance, 0, false);
  SceneData panes = thinGlassPanesScene();
  panes.environmentMap =
      loadEnvironmentMap(std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes/env/venice_sunset_1k.hdr");
  settings = settingsFor(panes, 24, 64, 4);
  settings.restirOptions.bsdfCandidate = true;
  expectRestirMatchesThePathTracer(panes, settings, Restir::Di, restirMeanTolerance, 0, false);
  expectWavefrontMakesTheMegakernelsImage(*context, panes, Restir::Di, 1, {false}, settings.restirOptions);
}

// ---- ReSTIR GI ----

// GI on a static camera: each sample pass reuses the one before's GI reservoirs and its
// neighbours', reconnecting its vertex to their sample points, and the image converges to the
// path tracer's (Cornell's walls are rough enough to be reused, RESTIR_GI_MIN_ROUGHNESS). One
// backend: the passes trace alike on all (GiWavefrontMakesTheMegakernelsImage runs them all).
TEST_F(RestirTest, GiStaticCameraConvergesToThePathTracer) {
  const SceneData cornell = loadScene("builtin:cornell");
  expectRestirMatchesThePathTracer(cornell, settingsFor(cornell, 48, 2048, 4), Restir::Gi, restirGiMeanTolerance, 1024,
                                   false);
}

// DI and GI together: the primary vertex's direct light from DI's reservoir, its indirect light
// from GI's, and the emission GI's ray finds counted by neither where a light sample could reach it.
TEST_F(RestirTest, DiAndGiConvergeToThePathTracer) {
  const SceneData cornell = loadScene("builtin:cornell");
  expectRestirMatchesThePathTracer(cornell, settingsFor(cornell, 48, 1024, 4), Restir::DiGi, restirMeanTolerance, 1024,
                                   false);
}

// Thin glass panes: GI's sample points on glass are not reused (their light stays the path's),
// and reconnections whose segment crosses a pane are refused; the image is still the path tracer's.
TEST_F(RestirTest, GiLeavesSmoothSurfacesToThePath) {
  const SceneData panes = thinGlassPanesScene();
  expectRestirMatchesThePathTracer(panes, settingsFor(panes, 24, 64, 4), Restir::Gi, restirMeanTolerance, 256);
}

// GI's image mean is noisier than DI's (its samples carry whole paths): larger frames.
TEST_F(RestirTest, GiMovingCameraReusesHistoryWithoutBias) {
  expectMovingCameraUnbiased(*context, Restir::Gi, restirMeanTolerance, 48, 64);
}

// GI on every backend; DI and GI together on one, with material queues.
TEST_F(RestirTest, GiWavefrontMakesTheMegakernelsImage) {
  expectWavefrontMakesTheMegakernelsImage(*context, loadScene("builtin:cornell"), Restir::Gi, std::size(megakernels),
                                          {false});
  expectWavefrontMakesTheMegakernelsImage(*context, thinGlassPanesScene(), Restir::DiGi, 1, {true});
}

// ---- What reuse costs and what it gives ----

// Spatial reuse by pairwise MIS evaluates, for each neighbour taken, the neighbour's sample at
// the pixel and the pixel's at the neighbour, one visibility ray each (the pixel's own sample's
// target comes from temporal reuse): at most 2k rays a pixel for k neighbours, none for none (DI's
// and GI's alike; both, twice that), growing with every neighbour the surface test keeps. The
// balance heuristic over all inputs traced (1 + k)^2: 16 at the default 3.
TEST_F(RestirTest, SpatialVisibilityRaysGrowLinearlyWithTheNeighbours) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  const Renderer renderer = megakernels[2];
  for (Restir mode : {Restir::Di, Restir::Gi, Restir::DiGi}) {
    const double parts = mode == Restir::DiGi ? 2.0 : 1.0;
    double previous = 0, firstAdded = 0;
    uint32_t previousNeighbours = 0;
    for (uint32_t neighbours : {0u, 1u, 3u, 6u}) {
      // Large enough that most neighbours, within 30 pixels, fall inside the frame.
      RenderSettings settings = settingsFor(scene, 96, 1, 3);
      settings.restir = mode;
      settings.restirOptions.neighbours = neighbours;
      const std::string what = fmt::format("restir {}, {} neighbours", restirName(mode), neighbours);
      const FrameResult frame = renderWithoutInvalidSamples(*context, gpuScene, settings, renderer, what);
      const double passes = double(settings.width) * settings.height * settings.samplesPerPixel;
      const double perPixel = double(frame.work.restirRays[1]) / passes;
      std::printf("%s: %.3f spatial rays a pixel\n", what.c_str(), perPixel);
      EXPECT_LE(perPixel, parts * 2 * neighbours) << what;
      // The final shading traces one ray a pixel at most: DI's (or next-event estimation's, with GI
      // alone) shadow ray; the GI sample's visibility is in its reservoir's target.
      const double shadeRays = double(frame.work.restirRays[2]) / passes;
      EXPECT_LE(shadeRays, 1.0) << what << ": " << shadeRays << " final shading rays a pixel";
      // Each neighbour adds its pair's rays where the surface test keeps it and its light or
      // point is in front of the surface (on Cornell at 96x96, about 0.3 a neighbour for DI, 0.17
      // for GI): the same for the sixth neighbour as for the first, where (1 + k)^2 would add
      // 2k + 1.
      if (neighbours > 0) {
        const double added = (perPixel - previous) / double(neighbours - previousNeighbours);
        EXPECT_GT(added, 0.05 * parts) << what << ": more neighbours, more rays";
        if (previousNeighbours == 0) firstAdded = added;
        EXPECT_LT(added, 1.25 * firstAdded) << what << ": rays grow linearly with the neighbours";
      }
      EXPECT_GT(frame.work.restirRays[0], 0u) << what << ": temporal reuse's rays are counted";
      EXPECT_GT(frame.work.restirRays[2], 0u) << what << ": the final shading's rays are counted";
      previous = perPixel;
      previousNeighbours = neighbours;
    }
  }
}

// `passes` sample passes of ReSTIR (`mode`) on a static camera against a converged plain image:
// with the unbiased settings the average's relMSE falls as the passes grow.
double staticCameraRelmse(const vk::Context& context, const GpuScene& gpuScene, const SceneData& scene, Restir mode,
                          uint32_t passes, const LinearImage& reference) {
  RenderSettings settings = RestirTest::settingsFor(scene, 32, passes, 4);
  settings.restir = mode;
  const FrameResult frame =
      renderWithoutInvalidSamples(context, gpuScene, settings, megakernels[2], fmt::format("{} passes", passes));
  return convergenceMetrics(frame.image, reference)->relmse;
}

TEST_F(RestirTest, StaticCameraErrorFallsAsPassesGrow) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings plain = settingsFor(scene, 32, 2048, 4);
  plain.seed = 99;
  const LinearImage reference =
      renderWithoutInvalidSamples(*context, gpuScene, plain, megakernels[2], "the reference").image;
  for (Restir mode : {Restir::Di, Restir::Gi}) {
    const double few = staticCameraRelmse(*context, gpuScene, scene, mode, 4, reference);
    const double many = staticCameraRelmse(*context, gpuScene, scene, mode, 32, reference);
    std::printf("restir %s: relMSE %.5f at 4 passes, %.5f at 32\n", restirName(mode).data(), few, many);
    EXPECT_LT(many, few / 3) << "restir " << restirName(mode) << ": 8 times the passes";
  }
}

// The pool schedule's passes mix samples of a pixel; it is refused before any pipeline exists.
TEST_F(RestirTest, WavefrontPoolScheduleIsRefused) {
  RenderSettings settings;
  settings.restir = Restir::Di;
  settings.wavefront.schedule = WavefrontSchedule::Pool;
  EXPECT_NE(unsupportedReason(IntegratorKind::Wavefront, Backend::RayQuery, settings, context->capabilities())
                .find("needs options.wavefront.schedule = depth"),
            std::string::npos);
  settings.wavefront.schedule = WavefrontSchedule::Depth;
  EXPECT_EQ(unsupportedReason(IntegratorKind::Wavefront, Backend::RayQuery, settings, context->capabilities()), "");
}

}  // namespace
}  // namespace ptbench::test
