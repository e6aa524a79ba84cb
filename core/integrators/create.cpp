#include "core/integrators/create.h"

#include <stdexcept>

#include "core/integrators/megakernel.h"
#include "core/integrators/raycast.h"
#include "core/integrators/wavefront.h"

namespace ptbench {

std::unique_ptr<Integrator> createIntegrator(IntegratorKind kind, const vk::Context& context, const GpuScene& scene,
                                             TraceTarget target, const WavefrontOptions& wavefront) {
  switch (kind) {
    case IntegratorKind::Megakernel:
      return std::make_unique<MegakernelIntegrator>(context, scene, target, false);
    case IntegratorKind::MegakernelRegen:
      return std::make_unique<MegakernelIntegrator>(context, scene, target, true);
    case IntegratorKind::Wavefront:
      return std::make_unique<WavefrontIntegrator>(context, scene, target, wavefront);
    case IntegratorKind::Raycast:
      return std::make_unique<RaycastIntegrator>(context, scene, target);
  }
  throw std::logic_error("unknown integrator kind");
}

}  // namespace ptbench
