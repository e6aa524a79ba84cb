// The raycast integrator: the roofline every path-tracing figure is read against (DESIGN.md,
// "The roofline"). No shading: per sample pass, camera rays; for diffuse and shadow rays, their
// closest hits and one ray spawned from each; then the measured `trace` stage, which traces one
// set of rays (structure of arrays, as the wavefront keeps them) and does nothing else; then a
// resolve of each pixel's ray into the film as 1 or 0, so the image shows what was traced.
#pragma once
#include "core/integrators/frame.h"
#include "core/integrators/integrator.h"
#include "core/integrators/kernel.h"
#include "core/scene/gpu_scene.h"
#include "shared/raycast.h"

namespace ptbench {

class RaycastIntegrator final : public Integrator {
 public:
  // The kinds of rays are read from each frame's settings: every kernel exists from the start.
  RaycastIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target);

  // work.extensionRays: the closest-hit rays of the trace stage (primary or diffuse);
  // work.shadowRays: its any-hit rays. The camera rays traced before diffuse and shadow rays
  // are spawned are not the trace stage's and are not counted.
  FrameResult render(const RenderSettings& settings) override;
  std::vector<KernelStatistics> kernels() const override;

  // Device memory of the ray sets, results and per-slot ray indices for batches of this many rays.
  static uint64_t stateBytes(uint64_t rays);
  // Samples per pixel a batch traces at once (shared/raycast.h, RAYCAST_MAX_BATCH_RAYS).
  static uint32_t batchSamples(const RenderSettings& settings);

 private:
  void allocate(uint32_t slots);
  gpu::RaycastPush pushConstants(const RenderSettings& settings, uint32_t firstSample, uint32_t samples,
                                 uint32_t set) const;
  void timed(VkCommandBuffer commands, Stage stage, const std::function<void()>& body);
  void launchOverSet(VkCommandBuffer commands, const Kernel& kernel, const gpu::RaycastPush& push, uint32_t set) const;

  const vk::Context& context_;
  const GpuScene& scene_;
  Kernel generate_, prepare_, spawn_, resolve_;
  Kernel traceClosest_, traceAny_;  // raycast_trace, specialised
  VkPipelineStageFlags2 shaderStages_;
  FrameRecorder frame_;
  uint32_t slots_ = 0;   // what the buffers below are sized for: (sample, pixel) slots of a batch
  vk::Buffer rays_;      // both ray sets, the results and the per-slot ray indices (an arena)
  vk::Buffer control_;   // parameters, counters, launch records
  vk::Buffer readback_;  // the counters, for the host
  gpu::RaycastParams params_{};
};

}  // namespace ptbench
