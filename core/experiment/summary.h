// The summary of a report: one row per run (its time, noise, throughput, time relative to the
// megakernel, roofline fraction and, for runs with counters, SIMT utilisation and coherence),
// then each integrator variant's time relative to the megakernel of the same scene, backend (and
// BVH layout) and parameters, one line each, a geometric mean only over runs that differ in
// nothing else. As a text table (what `run` prints), Markdown (for pull requests and READMEs) or
// CSV (the runs alone, one flat table; its `vs mk` column is the per-run ratio).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ptbench {

enum class SummaryFormat { Table, Markdown, Csv };

std::optional<SummaryFormat> parseSummaryFormat(std::string_view name);

// The line that names the report's device with its driver, whether it is a CPU implementation,
// and the ptbench build and date: at the top of every summary but the CSV's, which carries the
// device's name in a column (deviceName, core/experiment/metrics.h).
std::string deviceLine(const nlohmann::json& report);

std::string reportSummary(const nlohmann::json& report, SummaryFormat format);

// The integrator and what sets its runs apart: "wavefront pool 1.05M -compact +matq",
// "megakernel-ser hint=material from=2", "megakernel [simt]".
std::string integratorLabel(const nlohmann::json& parameters);

}  // namespace ptbench
