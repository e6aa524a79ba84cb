#include "core/experiment/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/experiment/metrics.h"
#include "core/experiment/report.h"
#include "core/experiment/statistics.h"
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

// The coefficient of variation of a statistics block, as a percentage, with the noise flag
// where it is noisy; blank where it has none.
std::string noise(const json& stats) {
  if (!stats.contains("cv") || !stats["cv"].is_number()) return "";
  const double cv = stats["cv"].get<double>();
  return fmt::format("{:.2f}%{}", cv * 100, noiseFlag(cv));
}

void addLine(std::string& table, const std::string& verdict, const std::string& stage, const std::string& base,
             const std::string& next, const std::string& change, const std::string& interval,
             const std::string& baseNoise, const std::string& nextNoise, const std::string& key) {
  table += fmt::format("{:<9} {:<14} {:>12} {:>12} {:>8} {:>15} {:>8} {:>8}  {}\n", verdict, stage, base, next, change,
                       interval, baseNoise, nextNoise, key);
}

struct Tally {
  size_t runs = 0, same = 0, faster = 0, regressed = 0, unsure = 0, missing = 0;
  size_t fewFrames = 0, noSamples = 0;  // of the unsure: too few frames on a side, or none recorded
};

}  // namespace

std::vector<double> frameSamples(const json& run) {
  std::vector<double> samples;
  for (const auto& value : run.value("frame_gpu_ms_samples", json::array())) {
    if (!value.is_number() || !(value.get<double>() > 0)) return {};
    samples.push_back(value.get<double>());
  }
  return samples;
}

bool onCpuDevice(const json& report) {
  return report.value("device", json::object()).value("type", "") == "cpu";
}

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

std::string judgeRun(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& options,
                     std::optional<RatioInterval>& interval) {
  interval.reset();
  if (base.size() < compareMinFrames || next.size() < compareMinFrames) return "unsure";
  interval = ratioInterval(base, next, compareConfidence);
  if (!interval) return "unsure";
  if (interval->low > 1 + options.threshold) return "REGRESSED";
  if (interval->high < 1 - options.threshold) return "faster";
  // Reaching past the threshold without lying beyond it: a regression the frames cannot rule out.
  if (interval->high > 1 + options.threshold) return "unsure";
  return "same";
}

CompareResult compareReports(const json& base, const json& next, const CompareOptions& options) {
  for (const json* report : {&base, &next}) {
    const int schemaVersion = report->is_object() ? report->value("schema_version", 0) : 0;
    if (schemaVersion >= 1 && schemaVersion < oldestComparableSchemaVersion)
      throw UserError("a report of schema version " + std::to_string(schemaVersion) +
                      ": its frames were timed with the film read back between them, which let some GPUs lower "
                      "their clocks; measure the baseline again with this ptbench");
    if (schemaVersion < oldestComparableSchemaVersion || schemaVersion > reportSchemaVersion ||
        !report->contains("runs"))
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
      result.verdict = "UNDECIDED";
      result.table = fmt::format("compare: verdict UNDECIDED (nothing to compare: {} has no run)\n", side);
      return result;
    }
  const KeyedRuns baseRuns = keyedRuns(base), nextRuns = keyedRuns(next);
  // The host's other work moves a CPU implementation's times by more than any threshold: what
  // its runs say of the code is too little to fail a build on.
  const bool cpu = onCpuDevice(base) || onCpuDevice(next);
  Tally tally;
  std::string& table = result.table;
  addLine(table, "verdict", "stage", "base ms", "new ms", "ratio",
          fmt::format("{:g}% interval", compareConfidence * 100), "base cv", "new cv", "run");
  // A run on one side only, or one that failed or was interrupted: listed, and the comparison
  // goes on; its column says what became of it.
  auto missing = [&](const json* baseRun, const json* nextRun, const std::string& key) {
    ++tally.missing;
    auto state = [](const json* run) { return !run ? std::string("absent") : run->value("status", std::string("?")); };
    addLine(table, "missing", "frame", state(baseRun), state(nextRun), "", "", "", "", key);
    result.runs.push_back({key, "missing", state(baseRun), state(nextRun), {}, {}, {}, {}, {}});
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
    // After nvbench-compare, with ranks rather than deviations: a run is REGRESSED (or faster)
    // only where the whole interval of its slowdown lies beyond the threshold, unsure where the
    // interval reaches above the threshold without lying beyond it (or there are too few frames
    // for one), and the same otherwise. Noise widens the interval, so it can make a run unsure,
    // never a regression.
    std::optional<RatioInterval> interval;
    const std::vector<double> baseSamples = frameSamples(*baseRun), nextSamples = frameSamples(*nextRun);
    std::string verdict = judgeRun(baseSamples, nextSamples, options, interval);
    if (cpu && verdict != "same") verdict = "unsure";
    if (baseSamples.empty() || nextSamples.empty())
      ++tally.noSamples;
    else if (!interval)
      ++tally.fewFrames;
    if (verdict == "same") ++tally.same;
    if (verdict == "faster") ++tally.faster;
    if (verdict == "REGRESSED") ++tally.regressed;
    if (verdict == "unsure") ++tally.unsure;
    auto cv = [](const json& frame) {
      return frame.contains("cv") && frame["cv"].is_number() ? std::optional<double>(frame["cv"]) : std::nullopt;
    };
    result.runs.push_back({key, verdict, "ok", "ok", b, n, cv(baseFrame), cv(nextFrame), interval});
    addLine(table, verdict, "frame", milliseconds(b), milliseconds(n), ratio(b, n),
            interval ? fmt::format("[{:.3f}, {:.3f}]", interval->low, interval->high) : "", noise(baseFrame),
            noise(nextFrame), key);
    if (options.runsOnly) continue;
    if (baseRun->contains("overhead_gpu_ms") && nextRun->contains("overhead_gpu_ms")) {
      const json& baseOverhead = baseRun->at("overhead_gpu_ms");
      const json& nextOverhead = nextRun->at("overhead_gpu_ms");
      const double bo = baseOverhead.at(options.metric), no = nextOverhead.at(options.metric);
      addLine(table, "", "overhead", milliseconds(bo), milliseconds(no), ratio(bo, no), "", noise(baseOverhead),
              noise(nextOverhead), key);
    }
    for (const auto& stage : baseRun->at("stages")) {
      const json* other = findStage(*nextRun, stage.at("name"));
      if (!other) continue;
      const double bs = stage.at("gpu_ms").at(options.metric), ns = other->at("gpu_ms").at(options.metric);
      addLine(table, "", stage.at("name"), milliseconds(bs), milliseconds(ns), ratio(bs, ns), "",
              noise(stage["gpu_ms"]), noise(other->at("gpu_ms")), key);
      // Stages match by name and bounce; per-bounce figures are medians.
      if (!stage.contains("gpu_ms_median_per_bounce") || !other->contains("gpu_ms_median_per_bounce")) continue;
      const json& baseBounces = stage.at("gpu_ms_median_per_bounce");
      const json& nextBounces = other->at("gpu_ms_median_per_bounce");
      for (size_t bounce = 0; bounce < std::min(baseBounces.size(), nextBounces.size()); ++bounce) {
        const double bb = baseBounces[bounce], nb = nextBounces[bounce];
        addLine(table, "", stage.at("name").get<std::string>() + "[" + std::to_string(bounce) + "]", milliseconds(bb),
                milliseconds(nb), ratio(bb, nb), "", "", "", key);
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
  // The key without its " counters=..." word (what follows it, timing or a camera path, kept).
  auto withoutCounters = [&](const std::string& key) {
    const size_t start = key.find(countersKey);
    if (start == std::string::npos) return key;
    const size_t end = key.find(' ', start + 1);
    return key.substr(0, start) + (end == std::string::npos ? "" : key.substr(end));
  };
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
  if (tally.noSamples > 0)
    table += fmt::format(
        "note: {} run(s) have no frame times of their own on a side (frame_gpu_ms_samples missing, or a time "
        "that is not positive), so no interval: measure them again with this ptbench\n",
        tally.noSamples);
  if (tally.fewFrames > 0)
    table += fmt::format(
        "note: {} run(s) have fewer than {} frames on a side, too few for a {:g}% interval: raise repeats (or "
        "min_samples)\n",
        tally.fewFrames, compareMinFrames, compareConfidence * 100);
  if (cpu)
    table +=
        "note: a report measured on a CPU implementation of Vulkan (device type cpu, such as lavapipe): its times "
        "are the host's, shared with whatever else runs there, so no verdict is drawn from them; compare reports "
        "of a GPU\n";

  // The line a CI log greps for: the verdict, and how many runs each verdict took.
  const bool undecided = cpu || tally.unsure > 0 || tally.missing > 0 || tally.runs == 0;
  result.exitCode = cpu                ? compareExitUndecided
                    : tally.regressed  ? compareExitRegression
                    : undecided        ? compareExitUndecided
                                       : compareExitOk;
  std::string counts;
  for (const auto& [count, what] : {std::pair{tally.same, "same"},
                                    {tally.faster, "faster"},
                                    {tally.unsure,
                                     cpu ? "unsure (measured on a CPU device)"
                                         : "unsure (a slowdown beyond the threshold within the interval, or too few "
                                           "frames)"},
                                    {tally.missing, "missing or failed on one side"}})
    if (count > 0) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, what);
  const char* verdict = cpu ? "UNDECIDED" : tally.regressed ? "REGRESSION" : undecided ? "UNDECIDED" : "OK";
  result.verdict = verdict;
  table += fmt::format("compare: verdict {} ({} of {} runs slower beyond {:g}% with {:g}% confidence{}{}{})\n", verdict,
                       tally.regressed, tally.runs, options.threshold * 100, compareConfidence * 100,
                       counts.empty() ? "" : "; ", counts, cpu ? "; measured on a CPU device" : "");
  return result;
}

}  // namespace ptbench
