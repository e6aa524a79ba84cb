// The summary of a report: one row per run (its time, noise, throughput, time relative to the
// megakernel, roofline fraction and, for runs with counters, SIMT utilisation and coherence),
// then each integrator variant's time relative to the megakernel of the same scene, backend (and
// BVH layout) and parameters, one line each, a geometric mean only over runs that differ in
// nothing else. As a text table (what `run` prints), Markdown (for pull requests and READMEs) or
// CSV (the runs alone, one flat table; its `vs mk` column is the per-run ratio).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptbench {

enum class SummaryFormat { Table, Markdown, Csv };

std::optional<SummaryFormat> parseSummaryFormat(std::string_view name);

// The line that names the report's device with its driver, whether it is a CPU implementation,
// and the ptbench build and date: at the top of every summary but the CSV's, which carries the
// device's name in a column (deviceName, core/experiment/metrics.h).
std::string deviceLine(const nlohmann::json& report);

std::string reportSummary(const nlohmann::json& report, SummaryFormat format);

// One line of the relative-time block (the verdict of the summary and the HTML report): an
// integrator variant's runs that differ in nothing else (a repeated sweep point), each over the
// megakernel of its scene, backend and parameters.
struct RelativeTimeLine {
  std::string scene, integrator, backend;          // as the summary labels them
  std::string settings;                            // what else sets the line apart from the others
  std::vector<std::string> runIds, megakernelIds;  // each run and the megakernel run it is timed against
  std::vector<double> ratios;                      // each run's median frame time over its megakernel's
  double geometricMean = 0;
};
struct RelativeTimes {
  std::map<std::string, double> ofRun;  // run id -> ratio, every run with a megakernel to set it against
  std::vector<RelativeTimeLine> lines;  // in the order of their first runs (the sweep's)
};
inline constexpr std::string_view relativeTimeConvention =
    "GPU time relative to the megakernel on the same scene, backend and parameters (geometric mean over runs "
    "that differ in nothing else; < 1 is faster)";
// The runs of a report's `runs` set against their megakernels; never a mean across backends,
// sizes or any other setting, whose ratios may lie on either side of 1.
RelativeTimes relativeTimes(const nlohmann::json& runs);

// The integrator and what sets its runs apart: "wavefront pool 1.05M -compact +matq",
// "megakernel-ser hint=material from=2", "megakernel [simt]".
std::string integratorLabel(const nlohmann::json& parameters);
// The backend and its options: "software bvh2", "software cwbvh gpu" (the GPU builder's tree).
std::string backendLabel(const nlohmann::json& parameters);

}  // namespace ptbench
