#include "core/experiment/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/experiment/report.h"
#include "core/number_range.h"

namespace ptbench {
namespace {

using nlohmann::json;

const json* findStage(const json& run, const std::string& name) {
  if (!run.contains("stages")) return nullptr;
  for (const auto& stage : run["stages"])
    if (stage.at("name") == name) return &stage;
  return nullptr;
}

// A report's runs by their parameters (runKey), in report order. Runs of one report with the
// same parameters (a scene listed twice with other lights or another camera, which parameters do
// not carry) are told apart by their order among themselves: "#2", "#3", ...
struct KeyedRuns {
  std::vector<std::pair<std::string, const json*>> inOrder;
  std::map<std::string, const json*> byKey;
  bool repeatedKeys = false;
};

KeyedRuns keyedRuns(const json& report) {
  KeyedRuns out;
  std::map<std::string, int> seen;
  for (const auto& run : report.at("runs")) {
    std::string key = runKey(run);
    if (const int count = ++seen[key]; count > 1) {
      key += " #" + std::to_string(count);
      out.repeatedKeys = true;
    }
    out.inOrder.emplace_back(key, &run);
    out.byKey[key] = &run;
  }
  return out;
}

std::string milliseconds(double value) {
  return fmt::format("{:.4f}", value);
}

std::string ratio(double base, double next) {
  return base > 0 ? fmt::format("{:.3f}", next / base) : std::string();
}

// The coefficient of variation of a statistics block, as a percentage; blank where it has none.
std::string noise(const json& stats) {
  return stats.contains("cv") && stats["cv"].is_number() ? fmt::format("{:.2f}%", stats["cv"].get<double>() * 100)
                                                         : std::string();
}

void addLine(std::string& table, const std::string& verdict, const std::string& stage, const std::string& base,
             const std::string& next, const std::string& change, const std::string& baseNoise,
             const std::string& nextNoise, const std::string& key) {
  table += fmt::format("{:<9} {:<14} {:>12} {:>12} {:>8} {:>8} {:>8}  {}\n", verdict, stage, base, next, change,
                       baseNoise, nextNoise, key);
}

struct Tally {
  size_t runs = 0, same = 0, faster = 0, regressed = 0, noisy = 0, unsure = 0, missing = 0;
};

// Fewer frames than this give no estimate of a run's noise (one frame's cv is 0): its time may
// differ from another's by its noise alone, and the difference decides nothing.
constexpr double framesForNoise = 3;

// Whether a run's frame statistics estimate its noise; a report that gives no count is taken at
// its word (its cv).
bool hasNoiseEstimate(const json& run, const json& frame) {
  const json& count = frame.contains("count") ? frame["count"] : run.contains("frames") ? run["frames"] : json();
  return !count.is_number() || count.get<double>() >= framesForNoise;
}

}  // namespace

// A slowdown of 0 would call every run's noise a regression; one of 10x is no threshold.
constexpr NumberRange thresholdRange{0, 10, true};

double parseThreshold(const std::string& text) {
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used < text.size() && text.substr(used) == "%")
      value /= 100.0;
    else if (used != text.size())
      throw std::invalid_argument(text);
    if (!thresholdRange.contains(value)) throw std::invalid_argument(text);
    return value;
  } catch (const std::logic_error&) {
    throw UserError("--threshold " + text + ": expected a fraction or percentage, " + thresholdRange.text() +
                    " (1000%), such as 0.03 or 3%");
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

  CompareResult result;
  // Reports without a run have nothing to judge: never "OK".
  for (const auto& [report, side] : {std::pair{&base, "the base report"}, std::pair{&next, "the new report"}})
    if (report->at("runs").empty()) {
      result.exitCode = compareExitUndecided;
      result.table = fmt::format("compare: verdict UNDECIDED (nothing to compare: {} has no run)\n", side);
      return result;
    }
  const KeyedRuns baseRuns = keyedRuns(base), nextRuns = keyedRuns(next);
  Tally tally;
  std::string& table = result.table;
  addLine(table, "verdict", "stage", "base ms", "new ms", "ratio", "base cv", "new cv", "run");
  // A run on one side only, or one that failed or was interrupted: listed, and the comparison
  // goes on; its column says what became of it.
  auto missing = [&](const json* baseRun, const json* nextRun, const std::string& key) {
    ++tally.missing;
    auto state = [](const json* run) { return !run ? std::string("absent") : run->value("status", std::string("?")); };
    addLine(table, "missing", "frame", state(baseRun), state(nextRun), "", "", "", key);
  };
  for (const auto& [key, baseRun] : baseRuns.inOrder) {
    ++tally.runs;
    const auto found = nextRuns.byKey.find(key);
    const json* nextRun = found == nextRuns.byKey.end() ? nullptr : found->second;
    if (!nextRun || baseRun->at("status") != "ok" || nextRun->at("status") != "ok") {
      missing(baseRun, nextRun, key);
      continue;
    }
    const json& baseFrame = baseRun->at("frame_gpu_ms");
    const json& nextFrame = nextRun->at("frame_gpu_ms");
    const double b = baseFrame.at(options.metric);
    const double n = nextFrame.at(options.metric);
    // After nvbench: a difference within the threshold is "same"; beyond it, one larger than
    // twice the runs' combined frame-time noise is "faster" or "REGRESSED", and a slowdown the
    // noise could explain is "noisy" (undecided). Identical inputs are always the same.
    const double baseCv = baseFrame.value("cv", 0.0);
    const double nextCv = nextFrame.value("cv", 0.0);
    const double combinedNoise = std::sqrt(baseCv * baseCv + nextCv * nextCv);
    const double change = b > 0 ? n / b - 1 : 0.0;
    // Runs of fewer than 3 frames have no noise estimate: a difference between them beyond the
    // threshold is "unsure" (undecided), faster or slower, never a regression.
    const bool noiseKnown = hasNoiseEstimate(*baseRun, baseFrame) && hasNoiseEstimate(*nextRun, nextFrame);
    std::string verdict = "same";
    if (std::fabs(change) > options.threshold) {
      const bool beyondNoise = std::fabs(change) > 2 * combinedNoise;
      if (!noiseKnown)
        verdict = "unsure";
      else if (change < 0)
        verdict = beyondNoise ? "faster" : "same";
      else
        verdict = beyondNoise ? "REGRESSED" : "noisy";
    }
    if (verdict == "same") ++tally.same;
    if (verdict == "faster") ++tally.faster;
    if (verdict == "REGRESSED") ++tally.regressed;
    if (verdict == "noisy") ++tally.noisy;
    if (verdict == "unsure") ++tally.unsure;
    addLine(table, verdict, "frame", milliseconds(b), milliseconds(n), ratio(b, n), noise(baseFrame), noise(nextFrame),
            key);
    if (options.runsOnly) continue;
    if (baseRun->contains("overhead_gpu_ms") && nextRun->contains("overhead_gpu_ms")) {
      const json& baseOverhead = baseRun->at("overhead_gpu_ms");
      const json& nextOverhead = nextRun->at("overhead_gpu_ms");
      const double bo = baseOverhead.at(options.metric), no = nextOverhead.at(options.metric);
      addLine(table, "", "overhead", milliseconds(bo), milliseconds(no), ratio(bo, no), noise(baseOverhead),
              noise(nextOverhead), key);
    }
    for (const auto& stage : baseRun->at("stages")) {
      const json* other = findStage(*nextRun, stage.at("name"));
      if (!other) continue;
      const double bs = stage.at("gpu_ms").at(options.metric), ns = other->at("gpu_ms").at(options.metric);
      addLine(table, "", stage.at("name"), milliseconds(bs), milliseconds(ns), ratio(bs, ns), noise(stage["gpu_ms"]),
              noise(other->at("gpu_ms")), key);
      // Stages match by name and bounce; per-bounce figures are medians.
      if (!stage.contains("gpu_ms_median_per_bounce") || !other->contains("gpu_ms_median_per_bounce")) continue;
      const json& baseBounces = stage.at("gpu_ms_median_per_bounce");
      const json& nextBounces = other->at("gpu_ms_median_per_bounce");
      for (size_t bounce = 0; bounce < std::min(baseBounces.size(), nextBounces.size()); ++bounce) {
        const double bb = baseBounces[bounce], nb = nextBounces[bounce];
        addLine(table, "", stage.at("name").get<std::string>() + "[" + std::to_string(bounce) + "]", milliseconds(bb),
                milliseconds(nb), ratio(bb, nb), "", "", key);
      }
    }
  }
  for (const auto& [key, nextRun] : nextRuns.inOrder)
    if (!baseRuns.byKey.count(key)) {
      ++tally.runs;
      missing(nullptr, nextRun, key);
    }

  // A run with counters and the same run without look alike, but their times must not be set
  // side by side: say why they were not.
  const std::string countersKey = " counters=";
  auto withoutCounters = [&](const std::string& key) { return key.substr(0, key.find(countersKey)); };
  bool countersApart = false;
  for (const auto& [from, to] :
       {std::pair{&baseRuns.byKey, &nextRuns.byKey}, std::pair{&nextRuns.byKey, &baseRuns.byKey}})
    for (const auto& [key, run] : *from)
      if (key.find(countersKey) != std::string::npos && !to->count(key) && to->count(withoutCounters(key)))
        countersApart = true;
  if (countersApart)
    table +=
        "note: a run with counters: simt or clocks is compared only with runs with counters (their atomics and "
        "clock reads perturb the timing); run both reports with the same counters\n";
  if (baseRuns.repeatedKeys || nextRuns.repeatedKeys)
    table +=
        "note: runs of one report with the same parameters (a scene listed twice, with other lights or another "
        "camera?) are matched by their order among themselves (#2, #3, ...)\n";

  // The line a CI log greps for: the verdict, and how many runs each verdict took.
  const bool undecided = tally.noisy > 0 || tally.unsure > 0 || tally.missing > 0 || tally.runs == 0;
  result.exitCode = tally.regressed ? compareExitRegression : undecided ? compareExitUndecided : compareExitOk;
  std::string counts;
  for (const auto& [count, what] : {std::pair{tally.same, "same"},
                                    {tally.faster, "faster"},
                                    {tally.noisy, "noisy (slower, within the noise)"},
                                    {tally.unsure, "unsure (fewer than 3 frames: no noise estimate)"},
                                    {tally.missing, "missing or failed on one side"}})
    if (count > 0) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, what);
  const char* verdict = tally.regressed ? "REGRESSION" : undecided ? "UNDECIDED" : "OK";
  table += fmt::format("compare: verdict {} ({} of {} runs slower beyond {:g}% and 2x noise{}{})\n", verdict,
                       tally.regressed, tally.runs, options.threshold * 100, counts.empty() ? "" : "; ", counts);
  return result;
}

}  // namespace ptbench
