// What tells one run from another (its axes: the settings a sweep can vary) and what was
// measured of it (its metrics), each declared once. report.csv's columns, the summary's table
// and relative block, compare's matching and verdicts, and the run labels of the dry-run and
// the progress lines are all printed from these two lists, after nvbench's one result model
// behind several printers: a setting added to a sweep shows everywhere, or nowhere.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ptbench {

// One setting of a run, read from its report `parameters`.
struct Axis {
  std::string name;  // the CSV column, and the key in labels (name=value)
  // The run's value as labels and cells print it; empty where the run has none (an option of
  // another integrator or backend).
  std::function<std::string(const nlohmann::json& parameters)> value;
  // An option of an integrator or backend (parameters.options), rather than a parameter of every run.
  bool option = false;
};

// Every axis of `runs` (a report's list): the parameters every run has, then one per option that
// any of them has, in the order they first appear.
std::vector<Axis> runAxes(const nlohmann::json& runs);

// The axes whose values differ between `runs`.
std::vector<Axis> varyingAxes(const std::vector<Axis>& axes, const nlohmann::json& runs);

// "name=value name=value" of `axes` for a run's parameters, leaving out those a run has no value for.
std::string axisText(const std::vector<Axis>& axes, const nlohmann::json& parameters);

// A run's label in progress lines, the dry-run and plots: scene, integrator, backend, then every
// axis of `varying` beyond those three (timing=frame, pool_size=1048576, 64x64, spp=4, ...).
std::string runLabel(const nlohmann::json& parameters, const std::vector<Axis>& varying);

enum class Better { Lower, Higher, Neither };

// One figure measured of a run, as every output names and reads it.
struct Metric {
  std::string name;    // CSV column (units in the name, as the JSON's)
  std::string header;  // the summary's column
  std::string unit;    // for the HTML report's axes and the docs: ms, %, rays/s, ...
  Better better = Better::Neither;
  double scale = 1;    // the summary prints value x scale (rays/s as Mrays/s)
  int decimals = 3;    // in the summary
  // The run's value; none where the run has none (a failed run, a raycast's relMSE, ...).
  std::function<std::optional<double>(const nlohmann::json& run)> value;
  bool inSummary = true;  // a column of the summary's table where any run has a value
};

// The metrics of a run, in the order CSV and summary print them.
const std::vector<Metric>& runMetrics();
const Metric& metric(const std::string& name);
// The report's device by name: a column of report.csv and of the summary's CSV.
std::string deviceName(const nlohmann::json& report);

// A run whose frame times vary by more than this (their cv) is flagged as noisy: by the
// summary, the report's notes and compare. On a GPU at its clocks ptbench's frames stay under
// 2%; a run above 5% shares its GPU, throttles, or has too few or too short frames.
constexpr double noisyFrameCv = 0.05;
inline bool isNoisy(double frameCv) {
  return frameCv > noisyFrameCv;
}
// The flag summary and compare print beside a noisy run's cv.
inline const char* noiseFlag(double frameCv) {
  return isNoisy(frameCv) ? "!" : "";
}

}  // namespace ptbench
