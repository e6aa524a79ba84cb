// A config's sweep: the cartesian product of its list-valued parameters, as runs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/experiment/experiment_config.h"

namespace ptbench {

// One point of the sweep. The backend is as configured ("auto" and "all" are resolved
// against the device by the runner).
struct RunSpec {
  size_t scene = 0;  // index into ExperimentConfig::scenes
  IntegratorKind integrator{};
  std::string backend;
  RenderSettings settings;  // camera and environment filled in by the runner
};

// The runs expandSweep would make, counted without making them; the largest uint64_t when they
// are more than 64 bits count.
uint64_t sweepSize(const ExperimentConfig& config);

// The counters axis of `integrator`'s runs: the config's, or only off for the raycast, which has
// no shading point to count at.
std::vector<Counters> countersAxis(const ExperimentConfig& config, IntegratorKind integrator);
// The timing axis likewise: the config's for the path tracers, stages only for the raycast.
std::vector<bool> timingAxis(const ExperimentConfig& config, IntegratorKind integrator);

// The cartesian product of every list-valued parameter, scenes outermost. Runs on backend
// "all" take their backend options when the runner resolves them (withBackendOptions).
std::vector<RunSpec> expandSweep(const ExperimentConfig& config);

// `settings` under every combination of the options configured for `backend`.
std::vector<RenderSettings> withBackendOptions(const ExperimentConfig& config, Backend backend,
                                               const RenderSettings& settings);

}  // namespace ptbench
