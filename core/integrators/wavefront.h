// The wavefront integrator (Laine, Karras & Aila 2013; pbrt-v4's WavefrontPathIntegrator):
// paths held in device memory as structure of arrays, advanced one stage at a time by kernels
// that read compact queues and launch indirectly, so that the CPU reads nothing inside a frame
// (but the pool schedule's termination check). Every stage calls the light transport the
// megakernel calls (shaders/common/); only the scheduling differs.
#pragma once
#include <optional>
#include <vector>

#include "core/integrators/frame.h"
#include "core/integrators/integrator.h"
#include "core/integrators/kernel.h"
#include "core/integrators/restir.h"
#include "core/scene/gpu_scene.h"
#include "shared/wavefront.h"

namespace ptbench {

class WavefrontIntegrator final : public Integrator {
 public:
  // Compaction, material queues, restir and counters: simt pick the kernels; the schedule and
  // pool size are read from each frame's settings. With restir (di, gi, di+gi) each pass of the depth
  // schedule is one sample of every pixel (wavefrontPool), after which ReSTIR's passes run; the
  // pool schedule, whose passes have no such boundary, is refused.
  WavefrontIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target,
                      const RenderSettings& settings);

  FrameResult render(const RenderSettings& settings) override;
  std::vector<KernelStatistics> kernels() const override;

  // The pool schedule reads its termination counter back every this many iterations; a
  // drained pool runs at most this many empty iterations (launches of zero size) past its end.
  static constexpr uint32_t poolCheckInterval = 8;
  // Both schedules submit their iterations in command buffers of at most this many.
  static constexpr uint64_t maxIterationsPerSubmission = 4096;
  // Device memory of the path state and queues for a pool of this size.
  static uint64_t stateBytes(uint32_t poolSize, const WavefrontOptions& options);
  // The indirect launch records as the last frame's last iteration left them (LAUNCH_*), for
  // tests that check launch sizes against queue counts.
  std::vector<gpu::LaunchRecord> readLaunchRecords() const;

 private:
  // Buffers sized for one pool size and step count, reused across frames.
  struct State {
    uint32_t poolSize = 0;
    uint32_t stepCapacity = 0;
    vk::Buffer paths;     // the path arrays and the queues
    vk::Buffer control;   // parameters, counters, launch records, step counters
    vk::Buffer readback;  // counters and step counters, for the host
    gpu::WavefrontParams params{};
  };
  void allocate(uint32_t poolSize, uint32_t stepCapacity);

  // Whether the stage recorded next waits for this one (a barrier between them) or may run
  // beside it.
  enum class NextStage { Waits, RunsBeside };

  // Whether the frame records stages that share no data with no barrier between them.
  bool overlapsStages(const RenderSettings& settings) const;
  // A pass of the depth schedule from `firstIteration` on: generate, then per bounce extend,
  // shade (classified by material, or not), shadow and accumulate (unless the pass owns its
  // pixels), with shadow_overlap a bounce's shadow rays beside the next bounce's extension rays.
  void recordPass(VkCommandBuffer commands, uint32_t firstIteration, const RenderSettings& settings);
  // `count` iterations of the pool schedule from `firstIteration` on, one submission's: each
  // generate (the pool's first fill, or a refill), extend, shade, shadow, accumulate; with
  // `overlap`, an iteration's generate and extend beside the last one's shadow and accumulate.
  void recordPoolIterations(VkCommandBuffer commands, uint32_t firstIteration, uint32_t count, uint32_t stepCapacity,
                            bool overlap);
  // The stages; each but a shadow followed by what may run beside it ends with a barrier.
  void generate(VkCommandBuffer commands, uint32_t iteration, uint32_t step, uint32_t phase);
  void extend(VkCommandBuffer commands, uint32_t iteration, uint32_t step);
  // Then the prepare of `sizingPhase`, which sizes shadow and the next extend (and generate).
  void shade(VkCommandBuffer commands, uint32_t iteration, uint32_t step, uint32_t sizingPhase);
  void shadow(VkCommandBuffer commands, uint32_t iteration, uint32_t step, NextStage next);
  void accumulate(VkCommandBuffer commands, uint32_t iteration, uint32_t step, NextStage next);
  void prepare(VkCommandBuffer commands, uint32_t iteration, uint32_t step, uint32_t phase);
  gpu::WavefrontPush pushConstants(uint32_t iteration, uint32_t step, uint32_t phase) const;
  // A stage's kernel over its queue (indirect) or, without compaction, over the whole pool.
  void launch(VkCommandBuffer commands, const Kernel& kernel, uint32_t launchRecord, uint32_t iteration, uint32_t step,
              uint32_t phase = 0);
  void timed(VkCommandBuffer commands, Stage stage, uint32_t step, uint32_t launches, const std::function<void()>& body,
             NextStage next = NextStage::Waits);
  void recordCountersReadback(VkCommandBuffer commands, bool steps);

  const vk::Context& context_;
  const GpuScene& scene_;
  WavefrontOptions options_;
  Kernel generate_, extend_, shadow_, accumulate_, prepare_;
  std::optional<Kernel> classify_;
  std::vector<Kernel> shade_;  // one, or one per material class
  VkPipelineStageFlags2 shaderStages_;
  FrameRecorder frame_;
  State state_;
  std::optional<RestirPasses> restir_;
};

}  // namespace ptbench
