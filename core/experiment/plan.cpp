#include "core/experiment/plan.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/errors.h"
#include "core/experiment/report.h"
#include "core/integrators/create.h"
#include "core/integrators/options.h"
#include "core/trace/registry.h"

namespace ptbench {
namespace {

// The backends a configured name stands for on this device; empty with a reason when none.
std::vector<Backend> resolveBackends(const vk::DeviceCapabilities& device, IntegratorKind integrator,
                                     const std::string& configured, const std::vector<std::string>& named,
                                     std::string& reason) {
  // megakernel-ser has one backend: "auto" and "all" mean it, where the device has it.
  if (integratorTraits(integrator).reorders && (configured == "auto" || configured == "all")) {
    if (configured == "all" && std::find(named.begin(), named.end(), backendName(Backend::Pipeline)) != named.end())
      return {};
    if (trace::supports(device, Backend::Pipeline)) return {Backend::Pipeline};
    reason = unsupportedReason(integrator,
                               trace::supports(device, Backend::RayQuery) ? Backend::RayQuery : Backend::Software,
                               RenderSettings{}, device);
    return {};
  }
  if (configured == "all") {
    // Every backend the device has that the config does not name as well: `all` and `software`
    // in one list run the software runs once.
    const std::vector<Backend> onDevice = trace::supportedBackends(device);
    std::vector<Backend> supported;
    for (Backend backend : onDevice)
      if (std::find(named.begin(), named.end(), backendName(backend)) == named.end()) supported.push_back(backend);
    if (onDevice.empty()) reason = device.name + " supports no backend";
    return supported;
  }
  try {
    return {trace::resolveBackend(device, configured)};
  } catch (const UserError& error) {
    reason = error.what();
    return {};
  }
}

}  // namespace

ExperimentPlan planExperiment(const ExperimentConfig& config, const vk::DeviceCapabilities& device,
                              const std::optional<Shard>& shard) {
  ExperimentPlan plan;
  std::set<Backend> needed;
  std::set<std::string> notes;
  const std::vector<RunSpec> specs = expandSweep(config);
  plan.sweepSpecs = specs.size();
  if (shard) {
    plan.shardSpecs = shardSpecs(specs, *shard);
  } else {
    plan.shardSpecs.resize(specs.size());
    std::iota(plan.shardSpecs.begin(), plan.shardSpecs.end(), size_t{0});
  }
  for (const size_t sweepIndex : plan.shardSpecs) {
    const RunSpec& spec = specs[sweepIndex];
    size_t variant = 0;
    std::string reason;
    const auto backends = resolveBackends(device, spec.integrator, spec.backend, config.backends, reason);
    // Adds the run unless integrators: ["all"] skips it (those the device can run: megakernel-ser
    // where it has SER); returns it, or nullptr when skipped.
    auto add = [&](const std::string& backend, const std::string& error) -> RunRecord* {
      if (!error.empty() && config.integratorsAll && integratorTraits(spec.integrator).reorders) {
        notes.insert(std::string(integratorName(spec.integrator)) + " skipped: " + error);
        return nullptr;
      }
      RunRecord& record = plan.runs.emplace_back();
      record.id = runId(plan.runs.size() - 1);
      record.spec = spec;
      record.scene = config.scenes[spec.scene].spec;
      record.cameraPath = cameraPathText(config.scenes[spec.scene]);
      record.backend = backend;
      record.error = error;
      record.sweepIndex = sweepIndex;
      record.variant = variant++;
      return &record;
    };
    if (backends.empty() && !reason.empty()) add(spec.backend, reason);
    for (const Backend backend : backends) {
      // A named backend took its options in expandSweep; "auto" and "all" take them here.
      const std::vector<RenderSettings> variants =
          parseBackend(spec.backend) ? std::vector{spec.settings} : withBackendOptions(config, backend, spec.settings);
      for (const RenderSettings& settings : variants) {
        const std::string unsupported = unsupportedReason(spec.integrator, backend, settings, device);
        RunRecord* added = add(std::string(backendName(backend)), unsupported);
        if (!added) continue;
        added->traceBackend = backend;
        added->spec.settings = settings;
        if (integratorTraits(spec.integrator).pathState) {
          // The default pool is the device's: reports and run keys carry the size it came to.
          added->wavefrontPoolReason = resolveWavefrontPool(added->spec.settings, device).reason;
        }
        if (unsupported.empty()) needed.insert(backend);
      }
    }
  }
  if (device.type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    notes.insert(device.name +
                 " is a CPU implementation of Vulkan: its times are the host CPU's, shared with whatever else runs "
                 "there, and say nothing of a GPU; compare draws no verdict from them");
    if (std::any_of(config.backends.begin(), config.backends.end(), [](const std::string& b) { return b == "auto"; }))
      notes.insert("backend auto is software on a CPU implementation: on lavapipe it was 3.7x as fast as ray "
                   "queries and 4.9x as fast as pipelines over the shipped scenes (geometric means; up to 129x)");
  }
  plan.notes.assign(notes.begin(), notes.end());
  plan.backends.assign(needed.begin(), needed.end());
  return plan;
}

}  // namespace ptbench
