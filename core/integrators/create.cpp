#include "core/integrators/create.h"

#include "core/errors.h"
#include "core/integrators/registry.h"
#include "core/progress.h"
#include "core/trace/registry.h"

namespace ptbench {

std::string unsupportedReason(IntegratorKind kind, Backend backend, const RenderSettings& settings,
                              const vk::DeviceCapabilities& device) {
  const std::string name(integratorName(kind));
  if (integratorTraits(kind).reorders) {
    if (!trace::descriptor(backend).rayGeneration)
      return name + " reorders inside a ray-generation shader: it runs on the pipeline backend only, not on " +
             std::string(backendName(backend));
    if (!device.invocationReorderNv)
      return device.name + " lacks " + std::string(invocationReorderExtension) + ", which " + name +
             " needs (see `ptbench devices`)";
  }
  // ReSTIR's reservoirs are one a pixel: each pass must be one sample of every pixel.
  if (kind == IntegratorKind::Wavefront && settings.restir != Restir::Off &&
      settings.wavefront.schedule == WavefrontSchedule::Pool)
    return "options.wavefront.restir = " + std::string(restirName(settings.restir)) +
           " needs options.wavefront.schedule = depth: only its passes are one sample of every pixel, as ReSTIR's "
           "reservoirs take them";
  if (settings.counters == Counters::Clocks && isPathTracer(kind)) {
    if (!device.subgroupClock)
      return "counters: clocks reads the subgroup clock (VK_KHR_shader_clock's shaderSubgroupClock), which " +
             device.name + " lacks; use counters: off or simt";
    // The wavefront's tracing kernels (extend, shadow) are ray-generation shaders on the pipeline
    // backend too: every clocked kernel sums its lanes' cycles with subgroup operations.
    const bool rayGeneration = trace::descriptor(backend).rayGeneration;
    if (!device.simtCountersIn(rayGeneration ? VK_SHADER_STAGE_RAYGEN_BIT_KHR : VK_SHADER_STAGE_COMPUTE_BIT))
      return "counters: clocks sums its lanes' cycles with subgroup basic, ballot and arithmetic operations in " +
             std::string(rayGeneration ? "ray-generation" : "compute") + " shaders, which " + device.name +
             " lacks for " + name + " on the " + std::string(backendName(backend)) +
             " backend; time the phases on another backend (see `ptbench devices`)";
  }
  if (settings.counters == Counters::Simt && isPathTracer(kind)) {
    const bool rayGeneration = trace::descriptor(backend).rayGeneration && kind != IntegratorKind::Wavefront;
    if (!device.simtCountersIn(rayGeneration ? VK_SHADER_STAGE_RAYGEN_BIT_KHR : VK_SHADER_STAGE_COMPUTE_BIT))
      return "counters: simt needs subgroup basic, ballot and arithmetic operations in " +
             std::string(rayGeneration ? "ray-generation" : "compute") + " shaders, which " + device.name +
             " lacks for " + name + " on the " + std::string(backendName(backend)) +
             " backend; count on another backend (see `ptbench devices`)";
  }
  return "";
}

std::unique_ptr<Integrator> createIntegrator(IntegratorKind kind, const vk::Context& context, const GpuScene& scene,
                                             TraceTarget target, const RenderSettings& settings) {
  if (const std::string reason = unsupportedReason(kind, target.backend, settings, context.capabilities());
      !reason.empty())
    throw UserError(reason);
  const StepProgress progress("creating the pipelines of " + std::string(integratorName(kind)) + " on " +
                              std::string(backendName(target.backend)));
  return integratorEntry(kind).create(context, scene, target, settings);
}

}  // namespace ptbench
