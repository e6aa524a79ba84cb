// ReSTIR's passes (DESIGN.md, "ReSTIR"; shaders/restir/): after each sample pass of a path tracer
// whose kernels were specialised with restirSpecialization (which write each pixel's primary
// vertex, its initial DI reservoir, its GI sample's start and the rest of its path's radiance),
// temporal reuse, spatial reuse and the final shading, each a kernel and a timed stage, the same
// whatever the architecture, each doing DI's part, GI's or both. Owns the pass state, which
// persists from pass to pass and frame to frame as the next one's history.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/integrators/frame.h"
#include "core/integrators/integrator.h"
#include "core/integrators/kernel.h"
#include "core/scene/gpu_scene.h"
#include "core/vk/buffer.h"
#include "shared/restir.h"

namespace ptbench {

// SPEC_RESTIR's value for the option: RESTIR_OFF, or the bits RESTIR_DI and RESTIR_GI.
uint32_t restirSpecialization(Restir restir);

class RestirPasses {
 public:
  // restir: not Off.
  RestirPasses(const vk::Context& context, const GpuScene& scene, TraceTarget target, Restir restir,
               bool msCompensation);

  // After frame.prepare: the state sized to the frame (a new size drops the history), whether
  // the frame's first pass has history (the integrator rendered a pass before, with the camera
  // the frame says came before it: settings.previousCamera, or its own camera when that is
  // unset), and the frame's parameters pointed at it. A frame so prepared must be rendered.
  void prepare(const RenderSettings& settings, FrameRecorder& frame);
  // Within frame.begin's uploads.
  void upload(VkCommandBuffer commands) const;
  // After the path tracer's sample pass `sampleIndex`, once its writes are visible to `stages`.
  void record(VkCommandBuffer commands, FrameRecorder& frame, VkPipelineStageFlags2 stages, uint32_t sampleIndex) const;

  std::vector<KernelStatistics> kernels() const;
  // The pass state's bytes (for FrameResult::stateBytes).
  uint64_t stateBytes() const { return state_.bytes(); }

 private:
  const vk::Context& context_;
  const GpuScene& scene_;
  const Restir restir_;
  Kernel temporal_;
  // di+gi: DI's spatial kernel and GI's, launched one after the other in the stage. One kernel
  // doing both spent 16.7 ms on an H200 at 1080p where the two apart took 3.7 and 4.0: the
  // two parts' state at once costs it occupancy. The other passes cost the same either way.
  Kernel spatial_;
  std::optional<Kernel> spatialGi_;
  Kernel shade_;
  vk::Buffer frameBuffer_;  // RestirFrame
  vk::Buffer state_;        // surfaces, reservoirs, path radiance
  uint64_t pixels_ = 0;
  uint32_t passes_ = 0;  // sample passes rendered into the state so far
  std::optional<gpu::CameraParams> historyCamera_;
  gpu::RestirFrame frame_{};
};

}  // namespace ptbench
