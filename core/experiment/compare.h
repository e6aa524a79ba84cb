// `ptbench compare`: a CI gate over two reports.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace ptbench {

constexpr int compareExitOk = 0;
constexpr int compareExitRegression = 1;
constexpr int compareExitUndecided = 2;  // runs missing on one side, or too noisy to judge

struct CompareOptions {
  double threshold = 0.05;  // a run regressed when new / base > 1 + threshold
  std::string metric = "median";
};

struct CompareResult {
  int exitCode = compareExitOk;
  std::string table;
};

// "5%" or "0.05"; a UserError otherwise.
double parseThreshold(const std::string& text);
CompareResult compareReports(const nlohmann::json& base, const nlohmann::json& next, const CompareOptions& options);

}  // namespace ptbench
