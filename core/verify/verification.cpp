#include "core/verify/verification.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "core/errors.h"
#include "core/integrators/create.h"
#include "core/scene/gpu_scene.h"
#include "core/trace/registry.h"

namespace ptbench::verify {
namespace {

bool sameCombination(const Combination& a, const Combination& b) {
  return a.integrator == b.integrator && a.backend == b.backend;
}

}  // namespace

std::vector<Combination> everyCombination() {
  std::vector<Combination> combinations;
  // megakernel-ser reorders inside a ray-generation shader: only a backend whose kernels are
  // ray generation runs it.
  for (IntegratorKind integrator : pathTracers)
    for (const trace::BackendDescriptor* backend : trace::backends())
      if (!integratorTraits(integrator).reorders || backend->rayGeneration)
        combinations.push_back({integrator, backend->id});
  return combinations;
}

std::string CaseResult::problems() const {
  if (!error.empty()) return error;
  std::string text = check.problems();
  if (validationMessages > 0)
    text += (text.empty() ? "" : "; ") + std::to_string(validationMessages) + " validation messages";
  return text;
}

bool Verification::passed() const {
  return !results.empty() && std::all_of(results.begin(), results.end(), [](const auto& r) { return r.passed(); });
}

Verification verifyCases(const vk::Context& context, std::span<const AnalyticCase> cases,
                         std::span<const Combination> combinations,
                         const std::function<void(const CaseResult&)>& onResult) {
  Verification verification;
  const auto skippedReason = [&](const Combination& combination) -> std::optional<std::string> {
    for (const auto& skipped : verification.skipped)
      if (sameCombination(skipped.combination, combination)) return skipped.reason;
    return std::nullopt;
  };
  for (const Combination& combination : combinations)
    if (!context.backendEnabled(combination.backend))
      verification.skipped.push_back(
          {combination, context.capabilities().name + " does not support it (see `ptbench devices`)"});

  // The software backend traverses its default layout here; `run` sweeps software_bvh.
  std::vector<BvhLayout> softwareLayouts;
  for (const Combination& combination : combinations)
    if (trace::tracesSoftwareBvh(combination.backend) && context.backendEnabled(combination.backend))
      softwareLayouts = {BvhLayout::Cwbvh};

  for (const AnalyticCase& analyticCase : cases) {
    std::unique_ptr<GpuScene> gpuScene;
    for (const Combination& combination : combinations) {
      if (skippedReason(combination)) continue;
      CaseResult result{.caseName = analyticCase.name, .combination = combination};
      const uint32_t messagesBefore = context.validationMessageCount();
      if (context.lost()) {
        result.error = "not run: the device was lost (see the first failed case)";
      } else {
        try {
          if (!gpuScene) gpuScene = std::make_unique<GpuScene>(context, analyticCase.sceneData, softwareLayouts);
          const auto integrator =
              createIntegrator(combination.integrator, context, *gpuScene, combination.backend, analyticCase.settings);
          result.check = checkFrame(analyticCase, integrator->render(analyticCase.settings));
        } catch (const UserError& error) {
          verification.skipped.push_back({combination, error.what()});
          continue;
        } catch (const std::exception& error) {
          result.error = error.what();
        }
      }
      result.validationMessages = context.validationMessageCount() - messagesBefore;
      if (onResult) onResult(result);
      verification.results.push_back(std::move(result));
    }
  }
  return verification;
}

}  // namespace ptbench::verify
