#include "core/experiment/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "core/errors.h"
#include "core/experiment/report.h"

namespace ptbench {
namespace {

using nlohmann::json;

const json* findStage(const json& run, const std::string& name) {
  if (!run.contains("stages")) return nullptr;
  for (const auto& stage : run["stages"])
    if (stage.at("name") == name) return &stage;
  return nullptr;
}

}  // namespace

double parseThreshold(const std::string& text) {
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used < text.size() && text.substr(used) == "%")
      value /= 100.0;
    else if (used != text.size())
      throw std::invalid_argument(text);
    if (!std::isfinite(value) || value <= 0 || value >= 10) throw std::invalid_argument(text);
    return value;
  } catch (const std::logic_error&) {
    throw UserError("--threshold " + text + ": expected a positive fraction or percentage, such as 0.05 or 5%");
  }
}

CompareResult compareReports(const json& base, const json& next, const CompareOptions& options) {
  for (const json* report : {&base, &next}) {
    const int version = report->is_object() ? report->value("schema_version", 0) : 0;
    if (version >= 1 && version < oldestComparableSchemaVersion)
      throw UserError("a report of schema version " + std::to_string(version) +
                      ": its frames were timed with the film read back between them, which let some GPUs lower "
                      "their clocks; measure the baseline again with this ptbench");
    if (version < oldestComparableSchemaVersion || version > reportSchemaVersion || !report->contains("runs"))
      throw UserError("not a ptbench report of schema version " + std::to_string(oldestComparableSchemaVersion) +
                      " to " + std::to_string(reportSchemaVersion));
  }
  if (options.metric != "median" && options.metric != "mean" && options.metric != "min")
    throw UserError("--metric " + options.metric + ": use median, mean or min");

  std::map<std::string, const json*> baseRuns, nextRuns;
  for (const auto& run : base.at("runs")) baseRuns[runKey(run)] = &run;
  for (const auto& run : next.at("runs")) nextRuns[runKey(run)] = &run;

  CompareResult result;
  bool regression = false, undecided = false;
  result.table +=
      fmt::format("{:<9} {:<14} {:>12} {:>12} {:>8}  {}\n", "verdict", "stage", "base ms", "new ms", "ratio", "run");
  auto line = [&](const std::string& verdict, const std::string& stage, double b, double n, const std::string& key) {
    result.table +=
        fmt::format("{:<9} {:<14} {:>12.4f} {:>12.4f} {:>8.3f}  {}\n", verdict, stage, b, n, b > 0 ? n / b : 0.0, key);
  };
  for (const auto& [key, baseRun] : baseRuns) {
    const auto found = nextRuns.find(key);
    if (found == nextRuns.end() || (*baseRun).at("status") != "ok" || (*found->second).at("status") != "ok") {
      undecided = true;
      result.table += fmt::format("{:<9} {:<14} {:>12} {:>12} {:>8}  {}\n", "missing", "frame",
                                  (*baseRun).at("status") == "ok" ? "" : "error",
                                  found == nextRuns.end()                 ? "absent"
                                  : (*found->second).at("status") == "ok" ? ""
                                                                          : "error",
                                  "", key);
      continue;
    }
    const json& nextRun = *found->second;
    const double b = (*baseRun).at("frame_gpu_ms").at(options.metric);
    const double n = nextRun.at("frame_gpu_ms").at(options.metric);
    // After nvbench: a difference within the threshold is "same"; beyond it, one larger than
    // twice the runs' combined frame-time noise is "faster" or "REGRESSED", and a slowdown the
    // noise could explain is "noisy" (undecided). Identical inputs are always the same.
    const double baseCv = (*baseRun).at("frame_gpu_ms").value("cv", 0.0);
    const double nextCv = nextRun.at("frame_gpu_ms").value("cv", 0.0);
    const double noise = std::sqrt(baseCv * baseCv + nextCv * nextCv);
    const double change = b > 0 ? n / b - 1 : 0.0;
    std::string verdict = "same";
    if (std::fabs(change) > options.threshold) {
      const bool beyondNoise = std::fabs(change) > 2 * noise;
      if (change < 0) {
        verdict = beyondNoise ? "faster" : "same";
      } else if (beyondNoise) {
        verdict = "REGRESSED";
        regression = true;
      } else {
        verdict = "noisy";
        undecided = true;
      }
    }
    line(verdict, "frame", b, n, key);
    if (baseRun->contains("overhead_gpu_ms") && nextRun.contains("overhead_gpu_ms"))
      line("", "overhead", (*baseRun).at("overhead_gpu_ms").at(options.metric),
           nextRun.at("overhead_gpu_ms").at(options.metric), key);
    for (const auto& stage : (*baseRun).at("stages")) {
      const json* other = findStage(nextRun, stage.at("name"));
      if (!other) continue;
      line("", stage.at("name"), stage.at("gpu_ms").at(options.metric), (*other).at("gpu_ms").at(options.metric), key);
      // Stages match by name and bounce; per-bounce figures are medians.
      if (!stage.contains("gpu_ms_median_per_bounce") || !other->contains("gpu_ms_median_per_bounce")) continue;
      const json& baseBounces = stage.at("gpu_ms_median_per_bounce");
      const json& nextBounces = (*other).at("gpu_ms_median_per_bounce");
      for (size_t bounce = 0; bounce < std::min(baseBounces.size(), nextBounces.size()); ++bounce)
        line("", stage.at("name").get<std::string>() + "[" + std::to_string(bounce) + "]", baseBounces[bounce],
             nextBounces[bounce], key);
    }
  }
  for (const auto& [key, nextRun] : nextRuns)
    if (!baseRuns.count(key)) {
      undecided = true;
      result.table += fmt::format("{:<9} {:<14} {:>12} {:>12} {:>8}  {}\n", "missing", "frame", "absent", "", "", key);
    }
  // A run with counters and the same run without look alike, but their times must not be set
  // side by side: say why they were not.
  const std::string countersKey = " counters=";
  auto withoutCounters = [&](const std::string& key) { return key.substr(0, key.find(countersKey)); };
  bool countersApart = false;
  for (const auto& [from, to] : {std::pair{&baseRuns, &nextRuns}, std::pair{&nextRuns, &baseRuns}})
    for (const auto& [key, run] : *from)
      if (key.find(countersKey) != std::string::npos && !to->count(key) && to->count(withoutCounters(key)))
        countersApart = true;
  if (countersApart)
    result.table +=
        "note: a run with counters: simt is compared only with runs with counters (their atomics perturb the "
        "timing); run both reports with the same counters\n";
  result.exitCode = regression ? compareExitRegression : undecided ? compareExitUndecided : compareExitOk;
  result.table += regression  ? fmt::format("regression: a run is more than {:.1f}% slower\n", options.threshold * 100)
                  : undecided ? std::string("undecided: runs are missing on one side or too noisy to judge\n")
                              : fmt::format("ok: no run is more than {:.1f}% slower\n", options.threshold * 100);
  return result;
}

}  // namespace ptbench
