// The integrators behind one interface, so that `render` and the runner take any of them.
#pragma once
#include <memory>

#include "core/integrators/integrator.h"
#include "core/scene/gpu_scene.h"

namespace ptbench {

class Integrator {
 public:
  virtual ~Integrator() = default;
  // Renders one frame of settings.samplesPerPixel samples, timed per stage.
  virtual FrameResult render(const RenderSettings& settings) = 0;
  // Host time to create the integrator's pipelines: reported, never inside a frame.
  virtual double pipelineCreateMs() const = 0;
};

std::unique_ptr<Integrator> createIntegrator(IntegratorKind kind, const vk::Context& context, const GpuScene& scene,
                                             TraceTarget target, const WavefrontOptions& wavefront = {});

}  // namespace ptbench
