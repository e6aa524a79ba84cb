// The megakernel integrator: one launch per sample pass, each thread tracing its pixel's path
// to the end; or, as megakernel-regen, one launch in which each thread runs all its pixel's
// samples back to back, starting the next path where the last one ended; or, as
// megakernel-ser, the first with the threads reordered by their hits before each shading. The
// first may take ReSTIR DI and GI (option restir): their passes follow each launch.
#pragma once
#include "core/integrators/frame.h"
#include "core/integrators/integrator.h"
#include "core/integrators/kernel.h"
#include "core/integrators/restir.h"
#include "core/scene/gpu_scene.h"
#include "shared/render.h"

namespace ptbench {

class MegakernelIntegrator final : public Integrator {
 public:
  // `kind`: one of the megakernels; its kernel is chosen by the settings' counters: simt and
  // specialised by megakernel-ser's options, which frames must keep.
  MegakernelIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target, IntegratorKind kind,
                       const RenderSettings& settings);

  FrameResult render(const RenderSettings& settings) override;
  std::vector<KernelStatistics> kernels() const override;

 private:
  const vk::Context& context_;
  const GpuScene& scene_;
  bool regenerate_;
  Kernel kernel_;
  FrameRecorder frame_;
  std::optional<RestirPasses> restir_;
};

}  // namespace ptbench
