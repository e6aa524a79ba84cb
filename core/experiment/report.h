// Reports that describe themselves: report.json (schema_version below) and report.csv (one row
// per run and stage, units in column names), written atomically into the results folder.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/experiment/record.h"

namespace ptbench {

// 2: frame_gpu_ms runs from the first timestamp to the last (was: the sum of the stages);
// overhead, per-bounce times and work, options, invalid samples.
// 3: raycast runs (`raycast`: the trace stage's rays and rays per second), path-tracing runs'
// `roofline_fraction` and `roofline_run`; stages `spawn` and `trace`; CSV columns
// raycast_rays_per_s and roofline_fraction; software runs' `software_bvh`. Frames are timed
// back to back, without the film's readback between them (before, some GPUs lowered their
// clocks under short frames: up to 5x slower on an H100), so compare refuses older reports.
constexpr int reportSchemaVersion = 3;
constexpr int oldestComparableSchemaVersion = 3;

// A clocked stage counting more lane-cycles than this share of the most its SMs could hold
// (`of_resident_lane_cycles`) has clocks that are wrong: its report says `"plausible": false`
// and `summary` says not to trust its shares. Frame-to-frame noise stays far below it.
constexpr double implausibleLaneCycles = 1.1;

// Which ptbench wrote a report: version, git revision, build type.
nlohmann::json toolJson();
nlohmann::json reportJson(const ExperimentResult& result);
std::string reportCsv(const nlohmann::json& report);
// report.json, report.csv and config.json (the report's resolved config) into `folder` (a run's
// results folder, or a merge's), each atomically, the JSON last.
void writeReportFiles(const std::filesystem::path& folder, const nlohmann::json& report);
// A CSV cell: quoted, with quotes doubled, where it holds a comma, a quote or a newline.
std::string csvField(const std::string& text);
// The id of the run at `position` in sweep order: r000, r001, ..., r1000.
std::string runId(size_t position);

// The software BVH's build figures, as scene-info and reports give them.
nlohmann::json softwareBvhJson(const SoftwareBvhStats& stats);
// The diffuse raycast run among `runs` that is `run`'s roofline: the same scene and backend,
// and the same value of every parameter and option that is neither the integrator's own nor a
// render setting; the same resolution preferred, then the same spp. nullptr when there is none.
const nlohmann::json* rooflineOf(const nlohmann::json& run, const nlohmann::json& runs);
// Gives every successful path-tracing run `roofline_fraction` (its throughput rays_per_s over
// its roofline's, null without one) and `roofline_run` (that run's id, or null).
void addRooflineFractions(nlohmann::json& runs);

// Exit code of a report.json that is JSON but not what ptbench writes, as of an invalid config
// (the sysexits EX_DATAERR docs/cli.md lists).
constexpr int exitReportMalformed = 65;

// Whether `name` names a file beside its report: a file name alone, no folder (absolute, ../..)
// and not . or ..; the images a report names must be, since every reader joins them to the
// report's folder.
bool isFileNameBesideReport(const std::string& name);
// The image files a checked report names, its runs' and their camera-path frames'.
std::set<std::string> reportImageNames(const nlohmann::json& report);

// Checks the fields that summary, the CSV, merge, run --resume and compare read from a report
// and its runs (those they require, and the type of any they take when present): a UserError
// with `exitCode` naming `source`, the field's JSON pointer and what was expected otherwise.
void checkReport(const nlohmann::json& report, const std::string& source, int exitCode = exitReportMalformed);

// A run's `parameters` as reports give them.
nlohmann::json runParametersJson(const RunRecord& run);
// The parameters that identify a run across reports (compare matches on them).
std::string runKey(const nlohmann::json& run);
// A run's options as "key=value key=value", for CSV cells and labels.
std::string optionsText(const nlohmann::json& options);

}  // namespace ptbench
