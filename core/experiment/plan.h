// A sweep fully resolved before any GPU work: every run of a config (or of one shard of it),
// its backend resolved against the device and typed, its backend's options and the
// wavefront's default pool applied, or the reason it cannot run. The runner runs a plan;
// `run --dry-run` prints one; `render` and `reference` plan their one run the same way.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/record.h"

namespace ptbench {

struct ExperimentPlan {
  std::vector<RunRecord> runs;     // in sweep order; a run that cannot run carries its error
  std::vector<std::string> notes;  // what the sweep left out and why (megakernel-ser without SER under "all")
  std::vector<Backend> backends;   // those the runnable runs trace with: the context enables these
  size_t sweepSpecs = 0;           // expandSweep's runs in the whole sweep
  std::vector<size_t> shardSpecs;  // those of `shard` (all of them without one)
};

ExperimentPlan planExperiment(const ExperimentConfig& config, const vk::DeviceCapabilities& device,
                              const std::optional<Shard>& shard = std::nullopt);

}  // namespace ptbench
