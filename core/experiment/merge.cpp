#include "core/experiment/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/errors.h"
#include "core/experiment/image_output.h"
#include "core/experiment/report.h"

namespace ptbench {
namespace {

using nlohmann::json;

std::string deviceText(const json& report) {
  const json& device = report.value("device", json::object());
  return device.value("name", "?") + ", driver " + device.value("driver_info", device.value("driver", "?"));
}

}  // namespace

MergedReport mergeReports(const std::vector<ShardReport>& shards) {
  if (shards.empty()) throw UserError("merge: give the reports of a sweep's shards");
  const json& first = shards.front().report;
  for (const ShardReport& shard : shards) {
    const json& report = shard.report;
    const std::string name = (shard.folder / "report.json").string();
    if (!report.contains("config_hash") || !report.contains("sweep"))
      throw UserError(name + ": written by a ptbench without sweeps' shards; run it again with this one");
    if (report["config_hash"] != first["config_hash"])
      throw UserError(name + ": made from another config (hash " + report["config_hash"].get<std::string>() +
                      ", the first report's is " + first["config_hash"].get<std::string>() +
                      "); merge the shards of one sweep");
    for (const char* key : {"version", "git_revision"})
      if (report["tool"][key] != first["tool"][key])
        throw UserError(name + ": written by another ptbench (" + report["tool"][key].dump() + ", the first report's " +
                        first["tool"][key].dump() + "); run every shard with the same build");
  }
  MergedReport merged;
  std::set<std::string> devices;
  for (const ShardReport& shard : shards) devices.insert(deviceText(shard.report));
  const bool mixedDevices = devices.size() > 1;
  if (mixedDevices)
    merged.warnings.push_back(fmt::format("the shards ran on different devices or drivers ({}): each run keeps its own",
                                          fmt::join(devices, "; ")));

  // Every run once, in the order of the sweep: (spec index, variant).
  std::map<std::pair<size_t, size_t>, std::pair<json, const ShardReport*>> runs;
  std::set<size_t> specsRun;
  for (const ShardReport& shard : shards) {
    for (size_t spec : shard.report["sweep"]["specs"]) {
      if (!specsRun.insert(spec).second)
        merged.warnings.push_back(
            fmt::format("run(s) of sweep entry {} appear in more than one shard: the first kept", spec));
    }
    for (const json& run : shard.report["runs"]) {
      const auto key = std::pair(run.value("sweep_index", size_t{0}), run.value("variant", size_t{0}));
      if (runs.count(key)) continue;
      json copy = run;
      if (mixedDevices)
        copy["device"] = {{"name", shard.report["device"].value("name", "?")},
                          {"driver_info", shard.report["device"].value("driver_info", "?")}};
      runs.emplace(key, std::pair(std::move(copy), &shard));
    }
  }
  const size_t sweepSpecs = first["sweep"].value("runs_before_backends", size_t{0});
  std::vector<size_t> missingSpecs;
  for (size_t spec = 0; spec < sweepSpecs; ++spec)
    if (!specsRun.count(spec)) missingSpecs.push_back(spec);
  merged.missingRuns = missingSpecs.size();
  if (merged.missingRuns > 0)
    merged.warnings.push_back(
        fmt::format("{} of the sweep's {} runs (before backends are resolved) are in no shard (sweep entries {}): "
                    "the merged report is incomplete; run the missing shards and merge again",
                    merged.missingRuns, sweepSpecs, fmt::join(missingSpecs, ", ")));

  json out = first;
  out["runs"] = json::array();
  size_t number = 0;
  bool complete = merged.missingRuns == 0;
  int validationMessages = 0;
  bool validation = false;
  json notes = json::array(), shardList = json::array();
  for (const ShardReport& shard : shards) {
    complete = complete && shard.report.value("complete", false);
    validationMessages += shard.report.value("validation_messages", 0);
    validation = validation || shard.report.value("validation", false);
    for (const json& note : shard.report.value("notes", json::array()))
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    shardList.push_back({{"shard", shard.report["sweep"]["shard"]},
                         {"device", deviceText(shard.report)},
                         {"date", shard.report.value("date", "")},
                         {"host", shard.report.value("host", json::object()).value("hostname", "")}});
  }
  std::vector<std::string> interrupted;  // "r001 (scene=...)"
  for (auto& [key, entry] : runs) {
    // Named, not bound: a lambda below captures them (clang refuses to capture bindings).
    json& run = entry.first;
    const ShardReport* shard = entry.second;
    const std::string id = runId(number++);
    // Each image is renamed for its run's new id; a camera path's frames keep their frame
    // numbers, and the run's own images (its last frame's) are that frame's files, copied once.
    const json& p = run["parameters"];
    std::map<std::string, std::string> renamedFiles;  // a shard's file name -> the merged one
    const auto rename = [&](json& holder, std::optional<uint32_t> frame) {
      if (!holder.contains("images")) return;
      for (const char* format : {"png", "exr"}) {
        const std::string file = holder["images"].value(format, "");
        if (file.empty()) continue;
        // A run's images lie in its shard's folder, named by their file names alone: a name with
        // a folder (an absolute path, ../..) would have merge copy a file from anywhere.
        if (!isFileNameBesideReport(file))
          throw UserError((shard->folder / "report.json").string() + ": run " + run.value("id", "?") + "'s images." +
                              format + " is \"" + file +
                              "\", not the name of a file in the shard's folder; a report names its images so",
                          exitReportMalformed);
        auto [found, added] = renamedFiles.try_emplace(file);
        if (added) {
          std::string renamed =
              runImageName(id, p["scene"].get<std::string>(), p["integrator"].get<std::string>(),
                           p["backend"].get<std::string>(), std::filesystem::path(file).extension().string());
          if (frame) renamed = frameImagePath(renamed, *frame).string();
          found->second = renamed;
          merged.images.emplace_back(shard->folder / file, renamed);
        }
        holder["images"][format] = found->second;
      }
    };
    if (run.contains("camera_path"))  // its frames in order (checkReport holds them to an array)
      for (uint32_t k = 0; k < run["camera_path"]["frames"].size(); ++k) rename(run["camera_path"]["frames"][k], k);
    rename(run, std::nullopt);
    run["id"] = id;
    if (run.value("status", "") == "interrupted") interrupted.push_back(id + " (" + runKey(run) + ")");
    out["runs"].push_back(std::move(run));
  }
  merged.interruptedRuns = interrupted.size();
  if (!interrupted.empty())
    merged.warnings.push_back(fmt::format(
        "{} run(s) were interrupted before they ran: {}; the merged report is incomplete; run --resume the folders "
        "of their shards and merge again",
        interrupted.size(), fmt::join(interrupted, ", ")));
  // Roofline runs are named by id: read them again among the merged runs.
  for (json& run : out["runs"]) {
    run.erase("roofline_run");
    run.erase("roofline_fraction");
  }
  addRooflineFractions(out["runs"]);
  out["complete"] = complete;
  out["validation"] = validation;
  out["validation_messages"] = validationMessages;
  out["notes"] = notes;
  out["sweep"] = {{"runs_before_backends", sweepSpecs}, {"shard", json()}, {"merged_from", shardList}};
  std::vector<size_t> all(specsRun.begin(), specsRun.end());
  out["sweep"]["specs"] = all;
  merged.report = std::move(out);
  return merged;
}

}  // namespace ptbench
