// Reports that describe themselves: report.json (schema_version 1) and report.csv (one row
// per run and stage, units in column names), written atomically into the results folder.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/experiment/runner.h"

namespace ptbench {

constexpr int reportSchemaVersion = 1;

nlohmann::json reportJson(const ExperimentResult& result);
std::string reportCsv(const nlohmann::json& report);
// report.json, report.csv and config.json (the config as resolved) into result.folder.
void writeReport(const ExperimentResult& result, const nlohmann::json& report);

// The parameters that identify a run across reports (compare matches on them).
std::string runKey(const nlohmann::json& run);

}  // namespace ptbench
