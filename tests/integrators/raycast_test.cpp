#include "core/integrators/raycast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "core/scene/builtin_scenes.h"
#include "gpu_test.h"
#include "integrators/image_checks.h"

namespace ptbench::test {
namespace {

class RaycastTest : public GpuTest {
 protected:
  void SetUp() override { context = validatedContext({allBackends.begin(), allBackends.end()}); }

  FrameResult render(const GpuScene& scene, RenderSettings settings, Backend backend, RaycastRays rays,
                     IntegratorKind integrator = IntegratorKind::Raycast) {
    settings.raycast.rays = rays;
    return createIntegrator(integrator, *context, scene, backend)->render(settings);
  }

  static RenderSettings settingsFor(const SceneData& scene, uint32_t width, uint32_t height, uint32_t spp) {
    RenderSettings settings;
    settings.width = width;
    settings.height = height;
    settings.samplesPerPixel = spp;
    settings.seed = 5;
    settings.camera = scene.defaultCamera();
    return settings;
  }

  // The rays a frame's image says reached their pixel's value of 1 (hits, or unblocked shadow rays).
  static double countedRays(const FrameResult& frame, uint32_t spp) {
    double sum = 0;
    for (size_t i = 0; i < frame.image.rgb.size(); i += 3) sum += frame.image.rgb[i];
    return sum * spp;
  }

  static std::string what(Backend backend, RaycastRays rays) {
    return std::string(backendName(backend)) + ", " + std::string(raycastRaysName(rays));
  }
};

// Primary rays: one camera ray per pixel and sample, whatever the size; a pixel's value is the
// share of its camera rays that hit. The megakernel with one segment, an environment of 1 and no
// emitters sees 1 exactly where a camera ray of the same sample stream misses, so the two images
// add up to 1 in every pixel: a tracer that lost or invented hits would break the sum.
TEST_F(RaycastTest, PrimaryRaysAreOnePerPixelAndSampleAndHitWhereTheCameraSeesGeometry) {
  const SceneData scene = loadScene("builtin:furnace");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  for (Backend backend : allBackends)
    for (const auto& [width, height, spp] : {std::tuple{37u, 23u, 1u}, std::tuple{37u, 23u, 2u}, {16u, 16u, 3u}}) {
      RenderSettings settings = settingsFor(scene, width, height, spp);
      settings.maxDepth = 1;
      settings.environment = {1, 1, 1};
      const std::string at = what(backend, RaycastRays::Primary) + ", " + std::to_string(width) + "x" +
                             std::to_string(height) + ", " + std::to_string(spp) + " spp";
      const FrameResult frame = render(gpuScene, settings, backend, RaycastRays::Primary);
      EXPECT_EQ(frame.work.extensionRays, uint64_t{width} * height * spp) << at;
      EXPECT_EQ(frame.work.shadowRays, 0u) << at;
      EXPECT_EQ(frame.work.paths, uint64_t{width} * height * spp) << at;
      EXPECT_EQ(frame.pixelSamplesMin, spp) << at;
      EXPECT_EQ(frame.pixelSamplesMax, spp) << at;
      const double hitShare = countedRays(frame, spp) / double(frame.work.extensionRays);
      EXPECT_GT(hitShare, 0.05) << at << ": the sphere fills part of the view";
      EXPECT_LT(hitShare, 0.95) << at;
      const FrameResult escapes = render(gpuScene, settings, backend, RaycastRays::Primary, IntegratorKind::Megakernel);
      int wrong = 0;
      for (size_t i = 0; i < frame.image.rgb.size(); ++i)
        if (std::fabs(frame.image.rgb[i] + escapes.image.rgb[i] - 1.0f) > 1e-5f && wrong++ < 5)
          ADD_FAILURE() << at << ": pixel " << i / 3 << ": hit " << frame.image.rgb[i] << ", escaped "
                        << escapes.image.rgb[i];
      double stages = 0, trace = 0;
      for (const auto& stage : frame.stages) {
        stages += stage.gpuNs * 1e-6;
        if (stage.stage == Stage::Trace) trace += stage.gpuNs * 1e-6;
      }
      EXPECT_GT(trace, 0.0) << at;
      EXPECT_GE(frame.gpuMs, stages) << at << ": the frame spans its stages";
    }
}

// A frame larger than one batch (RAYCAST_MAX_BATCH_RAYS) traces its samples in batches, the
// last one short: every sample of every pixel still traced once, and the same rays hit.
TEST_F(RaycastTest, FramesLargerThanABatchTraceEverySampleOnce) {
  const SceneData scene = loadScene("builtin:furnace");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = settingsFor(scene, 1448, 1448, 3);
  settings.maxDepth = 1;
  settings.environment = {1, 1, 1};
  ASSERT_EQ(RaycastIntegrator::batchSamples(settings), 2u) << "batches of 2 samples and then 1";
  const FrameResult frame = render(gpuScene, settings, Backend::RayQuery, RaycastRays::Primary);
  EXPECT_EQ(frame.work.extensionRays, 1448u * 1448u * 3u);
  EXPECT_EQ(frame.pixelSamplesMin, 3u);
  EXPECT_EQ(frame.pixelSamplesMax, 3u);
  const FrameResult escapes =
      render(gpuScene, settings, Backend::RayQuery, RaycastRays::Primary, IntegratorKind::Megakernel);
  int wrong = 0;
  for (size_t i = 0; i < frame.image.rgb.size(); ++i)
    if (std::fabs(frame.image.rgb[i] + escapes.image.rgb[i] - 1.0f) > 1e-5f && wrong++ < 5)
      ADD_FAILURE() << "pixel " << i / 3 << ": hit " << frame.image.rgb[i] << ", escaped " << escapes.image.rgb[i];
}

// Inside a closed sphere every camera ray hits, and so does every diffuse ray spawned from it.
TEST_F(RaycastTest, DiffuseRaysInsideAClosedSphereAllHit) {
  const SceneData scene = loadScene("builtin:furnace");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  RenderSettings settings = settingsFor(scene, 19, 13, 2);
  settings.camera = {.position = {0.1f, -0.2f, 0.3f}, .target = {0, 0, -1}, .up = {0, 1, 0}, .yfovDegrees = 90};
  for (Backend backend : allBackends) {
    const FrameResult frame = render(gpuScene, settings, backend, RaycastRays::Diffuse);
    EXPECT_EQ(frame.work.extensionRays, 19u * 13u * 2u) << backendName(backend) << ": every camera ray hit";
    for (float value : frame.image.rgb) ASSERT_EQ(value, 1.0f) << backendName(backend) << ": a diffuse ray escaped";
  }
}

// In the Cornell box (open at the front): every camera ray that hits spawns one diffuse ray,
// some of which leave through the front; shadow rays go where a light sample lies above the
// surface, and the blocks shadow some of them. The hardware backends count the same rays, the
// software one nearly so, and all agree on the images within noise.
TEST_F(RaycastTest, DiffuseAndShadowRaysFromTheCornellBoxAgreeAcrossBackends) {
  const SceneData scene = loadScene("builtin:cornell");
  const GpuScene gpuScene(*context, scene, allBvhLayouts);
  const uint32_t spp = 4;
  const RenderSettings settings = settingsFor(scene, 40, 30, spp);
  std::map<RaycastRays, FrameResult> reference;
  for (Backend backend : allBackends) {
    const FrameResult primary = render(gpuScene, settings, backend, RaycastRays::Primary);
    const double hits = countedRays(primary, spp);
    ASSERT_NEAR(hits, std::round(hits), 1e-3);
    EXPECT_LT(hits, double(primary.work.extensionRays)) << "some camera rays pass beside the open box";

    const FrameResult diffuse = render(gpuScene, settings, backend, RaycastRays::Diffuse);
    EXPECT_EQ(double(diffuse.work.extensionRays), std::round(hits)) << what(backend, RaycastRays::Diffuse);
    EXPECT_EQ(diffuse.work.shadowRays, 0u);
    const double diffuseHits = countedRays(diffuse, spp) / double(diffuse.work.extensionRays);
    EXPECT_GT(diffuseHits, 0.5) << "most diffuse rays stay in the box";
    EXPECT_LT(diffuseHits, 1.0) << "some leave through its open front";

    const FrameResult shadow = render(gpuScene, settings, backend, RaycastRays::Shadow);
    EXPECT_EQ(shadow.work.extensionRays, 0u);
    EXPECT_GT(double(shadow.work.shadowRays), 0.5 * hits) << what(backend, RaycastRays::Shadow);
    EXPECT_LE(double(shadow.work.shadowRays), hits) << "at most one shadow ray per hit";
    const double unblocked = countedRays(shadow, spp) / double(shadow.work.shadowRays);
    EXPECT_GT(unblocked, 0.3) << "most of the box sees the light";
    EXPECT_LT(unblocked, 0.99) << "the blocks cast shadows";

    for (const auto& [rays, frame] :
         {std::pair{RaycastRays::Primary, primary}, {RaycastRays::Diffuse, diffuse}, {RaycastRays::Shadow, shadow}}) {
      EXPECT_EQ(frame.invalidSamples, 0u);
      if (!reference.count(rays)) {
        reference.emplace(rays, frame);
        continue;
      }
      const FrameResult& first = reference.at(rays);
      if (backend == Backend::Software) {
        // Its own traversal puts a hit a few ulps from the driver's now and then, which may move
        // a light sample across the horizon: a handful of rays in thousands, never many.
        EXPECT_NEAR(double(frame.work.extensionRays), double(first.work.extensionRays),
                    2e-3 * double(first.work.extensionRays))
            << what(backend, rays);
        EXPECT_NEAR(double(frame.work.shadowRays), double(first.work.shadowRays), 2e-3 * double(first.work.shadowRays))
            << what(backend, rays);
      } else {
        EXPECT_EQ(frame.work.extensionRays, first.work.extensionRays) << what(backend, rays);
        EXPECT_EQ(frame.work.shadowRays, first.work.shadowRays) << what(backend, rays);
      }
      expectAgree(first, frame, 0.02, "rayquery against " + what(backend, rays));
    }
  }
}

}  // namespace
}  // namespace ptbench::test
