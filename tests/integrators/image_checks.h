// What the integrator tests share: every way to render (integrator and hardware backend),
// channel means with their standard errors, and agreement of two frames pixel by pixel.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/backend.h"
#include "core/integrators/create.h"
#include "core/integrators/integrator.h"
#include "core/scene/gpu_scene.h"

namespace ptbench::test {

// The shading code is shared, but each integrator and backend reaches it its own way.
struct Renderer {
  Backend backend;
  IntegratorKind integrator;
  BvhLayout softwareBvh = BvhLayout::Cwbvh;
  TraceTarget target() const { return {backend, softwareBvh}; }
  std::string name() const {
    return std::string(backendName(backend)) +
           (backend == Backend::Software ? " " + std::string(bvhLayoutName(softwareBvh)) : "") + ", " +
           std::string(integratorName(integrator));
  }
};
// Every integrator on every backend, the software one with both BVH layouts. Scenes the tests
// render with these are uploaded with every software layout (allBvhLayouts).
inline const Renderer everyRenderer[] = {{Backend::RayQuery, IntegratorKind::Megakernel},
                                         {Backend::RayQuery, IntegratorKind::MegakernelRegen},
                                         {Backend::RayQuery, IntegratorKind::Wavefront},
                                         {Backend::Pipeline, IntegratorKind::Megakernel},
                                         {Backend::Pipeline, IntegratorKind::MegakernelRegen},
                                         {Backend::Pipeline, IntegratorKind::Wavefront},
                                         {Backend::Software, IntegratorKind::Megakernel, BvhLayout::Cwbvh},
                                         {Backend::Software, IntegratorKind::MegakernelRegen, BvhLayout::Cwbvh},
                                         {Backend::Software, IntegratorKind::Wavefront, BvhLayout::Cwbvh},
                                         {Backend::Software, IntegratorKind::Megakernel, BvhLayout::Bvh2},
                                         {Backend::Software, IntegratorKind::Wavefront, BvhLayout::Bvh2}};

// A frame from `renderer`, which must have no invalid sample (`what` names the case).
inline FrameResult renderWithoutInvalidSamples(const vk::Context& context, const GpuScene& scene,
                                               const RenderSettings& settings, const Renderer& renderer,
                                               const std::string& what) {
  FrameResult frame =
      createIntegrator(renderer.integrator, context, scene, renderer.target(), settings)->render(settings);
  EXPECT_EQ(frame.invalidSamples, 0u) << what << ", " << renderer.name();
  return frame;
}

struct ChannelMeans {
  double mean[3] = {0, 0, 0};
  double standardError[3] = {0, 0, 0};
};

inline ChannelMeans channelMeans(const FrameResult& frame) {
  ChannelMeans result;
  const double pixels = double(frame.image.rgb.size() / 3);
  for (size_t i = 0; i < frame.image.rgb.size(); ++i) {
    result.mean[i % 3] += frame.image.rgb[i] / pixels;
    result.standardError[i % 3] += frame.meanVariance.rgb[i] / (pixels * pixels);
  }
  for (double& e : result.standardError) e = std::sqrt(e);
  return result;
}

// Means per channel within `relative`, and no pixel further apart than five standard errors.
inline void expectAgree(const FrameResult& a, const FrameResult& b, double relative, const std::string& what) {
  const auto ma = channelMeans(a), mb = channelMeans(b);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(ma.mean[c], mb.mean[c], relative * ma.mean[c]) << what << " channel " << c;
  int outliers = 0;
  for (size_t i = 0; i < a.image.rgb.size(); ++i) {
    const double tolerance = 5.0 * std::sqrt(a.meanVariance.rgb[i] + b.meanVariance.rgb[i]) + 1e-4;
    if (std::fabs(a.image.rgb[i] - b.image.rgb[i]) > tolerance && outliers++ < 5)
      ADD_FAILURE() << what << ": pixel " << i / 3 << " channel " << i % 3 << ": " << a.image.rgb[i] << " vs "
                    << b.image.rgb[i] << " (tolerance " << tolerance << ")";
  }
  EXPECT_EQ(outliers, 0) << what;
}

}  // namespace ptbench::test
