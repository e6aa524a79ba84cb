// `ptbench merge`: the shards of one sweep (run --shard K/N) put back into one report, run for
// run the report one process would have written.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ptbench {

struct ShardReport {
  nlohmann::json report;
  std::filesystem::path folder;  // where its images are
};

struct MergedReport {
  nlohmann::json report;
  std::vector<std::string> warnings;  // devices that differ, runs missing or duplicated
  // Images to copy: from a shard's folder to the merged one under the run's new id.
  std::vector<std::pair<std::filesystem::path, std::string>> images;
  size_t missingRuns = 0;      // sweep entries no shard ran
  size_t interruptedRuns = 0;  // runs a shard did not finish (Ctrl-C, a lost device)
};

// Refuses (UserError, naming the report) reports of different configs (their config_hash) or
// of different ptbench builds; warns when they ran on different devices or drivers, and then
// gives each run its `device`; drops a run a second shard ran again; counts, and names in a
// warning, the sweep's runs no shard ran and those a shard left interrupted. Runs are ordered by their place in the
// sweep and numbered r000, r001, ...
MergedReport mergeReports(const std::vector<ShardReport>& shards);

}  // namespace ptbench
