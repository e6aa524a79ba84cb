// Reports that describe themselves: report.json (schema_version 1) and report.csv (one row
// per run and stage, units in column names), written atomically into the results folder.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/experiment/runner.h"

namespace ptbench {

// 2: frame_gpu_ms runs from the first timestamp to the last (was: the sum of the stages);
// overhead, per-bounce times and work, options, invalid samples.
constexpr int reportSchemaVersion = 2;

// Which ptbench wrote a report: version, git revision, build type.
nlohmann::json toolJson();
nlohmann::json reportJson(const ExperimentResult& result);
std::string reportCsv(const nlohmann::json& report);
// report.json, report.csv and config.json (the config as resolved) into result.folder.
void writeReport(const ExperimentResult& result, const nlohmann::json& report);

// The software BVH's build figures, as scene-info and reports give them.
nlohmann::json softwareBvhJson(const SoftwareBvhStats& stats);

// The parameters that identify a run across reports (compare matches on them).
std::string runKey(const nlohmann::json& run);
// A run's options as "key=value key=value", for CSV cells and labels.
std::string optionsText(const nlohmann::json& options);

}  // namespace ptbench
