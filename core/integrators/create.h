// The integrators behind one interface, so that `render` and the runner take any of them.
#pragma once
#include <memory>
#include <string>

#include "core/integrators/integrator.h"
#include "core/integrators/kernel.h"
#include "core/scene/gpu_scene.h"

namespace ptbench {

// Why `kind` cannot run on `backend` of `device` with `settings`, in one sentence naming what is
// missing (megakernel-ser off the pipeline backend or without SER; counters: simt or clocks where
// the kernels' shader stage lacks the subgroup operations; clocks without the subgroup clock);
// empty when it can.
std::string unsupportedReason(IntegratorKind kind, Backend backend, const RenderSettings& settings,
                              const vk::DeviceCapabilities& device);

// The integrator, its kernels chosen by `settings` (the wavefront's compaction and material
// queues, megakernel-ser's options, counters); frames must keep those settings. Throws
// UserError with unsupportedReason's sentence.
std::unique_ptr<Integrator> createIntegrator(IntegratorKind kind, const vk::Context& context, const GpuScene& scene,
                                             TraceTarget target, const RenderSettings& settings = {});

}  // namespace ptbench
