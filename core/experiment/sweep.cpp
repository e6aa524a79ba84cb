#include "core/experiment/sweep.h"

#include <limits>

#include "core/integrators/options.h"
#include "core/integrators/registry.h"
#include "core/trace/registry.h"

namespace ptbench {

namespace {

using nlohmann::json;

// `settings` under every combination of one owner's option axes (an integrator's or a backend's,
// in the config's order), each value applied by `apply` (validated by loadConfig).
template <typename Apply>
std::vector<RenderSettings> everyCombination(const std::vector<std::pair<std::string, std::vector<json>>>& axes,
                                             const RenderSettings& settings, const Apply& apply) {
  std::vector<RenderSettings> result = {settings};
  for (const auto& [key, values] : axes) {
    std::vector<RenderSettings> expanded;
    for (const RenderSettings& partial : result)
      for (const json& value : values) {
        RenderSettings next = partial;
        apply(key, value, next);
        expanded.push_back(next);
      }
    result = std::move(expanded);
  }
  return result;
}

std::vector<RenderSettings> withOptions(const ExperimentConfig& config, IntegratorKind integrator,
                                        const RenderSettings& settings) {
  const auto found = config.options.find(integrator);
  if (found == config.options.end()) return {settings};
  return everyCombination(found->second, settings, [integrator](const std::string& key, const json& value,
                                                                RenderSettings& next) {
    applyOption(integrator, key, value, next);
  });
}

}  // namespace

std::vector<RenderSettings> withBackendOptions(const ExperimentConfig& config, Backend backend,
                                               const RenderSettings& settings) {
  const auto found = config.backendOptions.find(backend);
  if (found == config.backendOptions.end()) return {settings};
  return everyCombination(found->second, settings,
                          [backend](const std::string& key, const json& value, RenderSettings& next) {
                            applyBackendOption(backend, key, value, next);
                          });
}

std::vector<Counters> countersAxis(const ExperimentConfig& config, IntegratorKind integrator) {
  // The raycast has no shading point to count at nor phases to time: it runs once, without counters.
  return isPathTracer(integrator) ? config.counters : std::vector<Counters>{Counters::Off};
}

std::vector<bool> timingAxis(const ExperimentConfig& config, IntegratorKind integrator) {
  // The raycast's measure is its trace stage's time: it is always timed per stage.
  return isPathTracer(integrator) ? config.stageTimestamps : std::vector<bool>{true};
}

uint64_t sweepSize(const ExperimentConfig& config) {
  // Products and sums that leave 64 bits stay at the most: four lists of 65,536 would otherwise
  // wrap to 0 runs and pass max_runs. Backend options are counted, not expanded (as
  // withBackendOptions would expand them), so that counting allocates nothing.
  const auto times = [](uint64_t a, uint64_t b) {
    uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<uint64_t>::max() : product;
  };
  const auto plus = [](uint64_t a, uint64_t b) {
    uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
  };
  const auto optionCombinations = [&](Backend backend) {
    uint64_t combinations = 1;
    if (const auto found = config.backendOptions.find(backend); found != config.backendOptions.end())
      for (const auto& [key, values] : found->second) combinations = times(combinations, values.size());
    return combinations;
  };
  // A backend with options counts once per combination; "all" as if it meant every backend.
  uint64_t backendRuns = 0;
  for (const std::string& name : config.backends) {
    std::vector<Backend> backends;
    if (name == "all")
      backends.assign(allBackends.begin(), allBackends.end());
    else if (const auto backend = parseBackend(name))
      backends.push_back(*backend);
    else  // auto: one hardware backend, or the software one with its options
      backendRuns = plus(backendRuns, optionCombinations(Backend::Software));
    for (Backend backend : backends) backendRuns = plus(backendRuns, optionCombinations(backend));
  }
  uint64_t perIntegrator = times(config.scenes.size(), backendRuns);
  for (const size_t axis : {config.resolutions.size(), config.spps.size(), config.maxDepths.size(),
                            config.rrDepths.size(), config.seeds.size(), config.samplers.size()})
    perIntegrator = times(perIntegrator, axis);
  uint64_t total = 0;
  for (IntegratorKind integrator : config.integrators) {
    uint64_t combinations = times(times(perIntegrator, countersAxis(config, integrator).size()),
                                  timingAxis(config, integrator).size());
    if (const auto found = config.options.find(integrator); found != config.options.end())
      for (const auto& [key, values] : found->second) combinations = times(combinations, values.size());
    total = plus(total, combinations);
  }
  return total;
}

std::vector<RunSpec> expandSweep(const ExperimentConfig& config) {
  std::vector<RunSpec> runs;
  for (size_t scene = 0; scene < config.scenes.size(); ++scene)
    for (IntegratorKind integrator : config.integrators)
      for (const auto& backend : config.backends)
        for (const auto& [width, height] : config.resolutions)
          for (uint32_t spp : config.spps)
            for (uint32_t maxDepth : config.maxDepths)
              for (uint32_t rrDepth : config.rrDepths)
                for (uint32_t seed : config.seeds)
                  for (SamplerKind sampler : config.samplers)
                    for (Counters counters : countersAxis(config, integrator))
                      for (bool stageTimestamps : timingAxis(config, integrator)) {
                        RenderSettings settings;
                        settings.width = width;
                        settings.height = height;
                        settings.samplesPerPixel = spp;
                        settings.maxDepth = maxDepth;
                        settings.rrDepth = rrDepth;
                        settings.seed = seed;
                        settings.sampler = sampler;
                        settings.counters = counters;
                        settings.stageTimestamps = stageTimestamps;
                        const auto named = parseBackend(backend);
                        for (const RenderSettings& withOption : withOptions(config, integrator, settings))
                          for (const RenderSettings& withBackend :
                               named ? withBackendOptions(config, *named, withOption) : std::vector{withOption})
                            runs.push_back({scene, integrator, backend, withBackend});
                      }
  return runs;
}

}  // namespace ptbench
