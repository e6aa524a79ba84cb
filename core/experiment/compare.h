// `ptbench compare`: a CI gate over two reports.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace ptbench {

constexpr int compareExitOk = 0;
constexpr int compareExitRegression = 1;
constexpr int compareExitUndecided = 2;  // runs missing on one side, or too noisy to judge

struct CompareOptions {
  // A run regressed when new / base > 1 + threshold and the slowdown is beyond twice the two
  // runs' combined noise. 3%: twice the combined noise of two runs of cv 1% is 2.8%.
  double threshold = 0.03;
  std::string metric = "median";
  bool runsOnly = false;  // one line per run: no overhead, stage or bounce lines
};

struct CompareResult {
  int exitCode = compareExitOk;
  // A line per run (and per stage and bounce), ending with one that CI logs grep for:
  // "compare: verdict OK|REGRESSION|UNDECIDED (...)".
  std::string table;
};

// "5%" or "0.05"; a UserError otherwise.
double parseThreshold(const std::string& text);
// Runs are matched by their parameters (runKey), never by their place in the report or their id.
CompareResult compareReports(const nlohmann::json& base, const nlohmann::json& next, const CompareOptions& options);

}  // namespace ptbench
