// `ptbench compare`: a CI gate over two reports.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/statistics.h"

namespace ptbench {

constexpr int compareExitOk = 0;
constexpr int compareExitRegression = 1;
constexpr int compareExitUndecided = 2;  // runs missing on one side, too noisy or too few frames to judge, a CPU device

// The confidence of the interval a run's slowdown is judged by, and the fewest frames a side
// that give one (ratioInterval: five a side at 99%).
constexpr double compareConfidence = 0.99;
constexpr size_t compareMinFrames = 5;

struct CompareOptions {
  // A run regressed when its whole interval lies above 1 + threshold. Two processes of one build
  // on one H200, back to back, moved every gate run by 0.6% or less, and at 20 frames a run every
  // interval lay within 2%: 3% calls neither a regression nor unsure (docs/testing.md, "GPU performance gate").
  double threshold = 0.03;
  std::string metric = "median";  // the statistic the table prints; the verdict reads every frame
  bool runsOnly = false;          // one line per run: no overhead, stage or bounce lines
};

// One run as compare judged it, for the pages that draw it (core/experiment/html_report.h).
struct ComparedRun {
  std::string key;                       // runKey, with "#2" where a report repeats it
  std::string verdict;                   // REGRESSED, faster, same, unsure or missing
  std::string baseStatus, nextStatus;    // ok, failed, interrupted, or absent (missing runs)
  std::optional<double> baseMs, nextMs;  // the table's statistic of the frame times
  std::optional<double> baseCv, nextCv;
  std::optional<RatioInterval> interval;
};

struct CompareResult {
  int exitCode = compareExitOk;
  std::string verdict;  // OK, REGRESSION or UNDECIDED
  std::vector<ComparedRun> runs;
  // A line per run (and per stage and bounce), ending with one that CI logs grep for:
  // "compare: verdict OK|REGRESSION|UNDECIDED (...)".
  std::string table;
};

// A run's measured frame times, or none where the report holds none that are all positive.
std::vector<double> frameSamples(const nlohmann::json& run);
// A report measured on a CPU implementation of Vulkan (lavapipe, llvmpipe, SwiftShader): its times
// are the host's, which other processes share, and say nothing of a GPU.
bool onCpuDevice(const nlohmann::json& report);

// "5%" or "0.05"; a UserError otherwise.
double parseThreshold(const std::string& text);
// A run's verdict from its frame times on both sides: REGRESSED, faster, same or unsure, and
// the interval it was judged by (none with too few frames).
std::string judgeRun(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& options,
                     std::optional<RatioInterval>& interval);
// Runs are matched by their parameters (runKey), never by their place in the report or their id.
CompareResult compareReports(const nlohmann::json& base, const nlohmann::json& next, const CompareOptions& options);

}  // namespace ptbench
