#include "core/experiment/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/experiment/metrics.h"
#include "core/experiment/report.h"
#include "core/integrators/registry.h"

namespace ptbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Column {
  std::string name;
  int width;  // in the text table; negative: left-aligned
};

// A run's cells, or its failure in one cell after the parameters.
struct Row {
  std::vector<std::string> cells;
  std::string failure;
};

std::string markdownCell(const std::string& text) {
  std::string escaped;
  for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

double geometricMean(const std::vector<double>& values) {
  double logSum = 0;
  for (double value : values) logSum += std::log(value);
  return std::exp(logSum / double(values.size()));
}

// Whether `name` is an option of some integrator (rather than of a backend).
bool integratorOption(const std::string& name) {
  for (IntegratorKind kind : allIntegrators)
    for (const IntegratorOption& option : integratorEntry(kind).options)
      if (option.info.name == name) return true;
  return false;
}

// The settings a run shares with the megakernel run it is timed against: every axis but the
// integrator and the integrators' options, except the options the megakernel takes too (`restir`,
// `ms_compensation`), at their defaults where a run has none: a wavefront with ReSTIR is timed
// against the megakernel with ReSTIR, not the plain one. Timing, counters and every backend option
// are part of it: a stage-timed wavefront is never set against a frame-timed megakernel.
std::string peerKey(const json& p, const std::vector<Axis>& axes) {
  std::string key;
  for (const Axis& axis : axes)
    if (axis.name != "integrator" && !(axis.option && integratorOption(axis.name)))
      key += axis.name + "=" + axis.value(p) + "|";
  const json& options = p.value("options", json::object());
  for (const IntegratorOption& option : integratorEntry(baselineIntegrator).options) {
    const std::string& name = option.info.name;
    key += "|" + name + "=" + (options.contains(name) ? options[name] : option.print(RenderSettings{})).dump();
  }
  return key;
}

// Options the integrator's label spells in words of its own for every run that has them
// (registry.h: IntegratorOption::label); the others are shown as name=value.
bool labelledByIntegrator(const Axis& axis, const json& runs) {
  if (!axis.option) return false;
  bool any = false;
  for (const auto& run : runs) {
    const json& p = run["parameters"];
    const json& options = p.value("options", json::object());
    const std::string name = axis.name.rfind("option_", 0) == 0 ? axis.name.substr(7) : axis.name;
    if (!options.contains(name)) continue;
    const auto kind = parseIntegrator(p.value("integrator", ""));
    if (!kind) return false;
    bool labelled = false;
    for (const IntegratorOption& option : integratorEntry(*kind).options)
      if (option.info.name == name) labelled = !option.label(options[name]).empty();
    if (!labelled) return false;
    any = true;
  }
  return any;
}

// The varying axes that the scene, integrator and backend columns do not already show.
std::vector<Axis> settingsAxes(const std::vector<Axis>& varying, const json& runs) {
  std::vector<Axis> shown;
  for (const Axis& axis : varying)
    // The integrator's label says its counters ([simt]) and options; the backend's its BVH.
    if (axis.name != "scene" && axis.name != "integrator" && axis.name != "backend" && axis.name != "counters" &&
        axis.name != "software_bvh" && axis.name != "software_builder" && !labelledByIntegrator(axis, runs))
      shown.push_back(axis);
  return shown;
}

// The settings of `axes` as cells print them: width and height as one size, the rest name=value.
std::string settingsText(const std::vector<Axis>& axes, const json& p) {
  std::string text;
  bool size = false;  // width or height varies: the size once, as WxH
  for (const Axis& axis : axes) {
    if (axis.name == "width" || axis.name == "height") {
      if (!size) text += (text.empty() ? "" : " ") + p["width"].dump() + "x" + p["height"].dump();
      size = true;
      continue;
    }
    if (const std::string value = axis.value(p); !value.empty())
      text += (text.empty() ? "" : " ") + axis.name + "=" + value;
  }
  return text;
}

// The megakernel's times for each peer key in the report's order, none where it failed. A sweep
// point given twice (a scene listed twice, with another camera say) has the same parameters
// twice: the k-th run of an integrator variant there is timed against the k-th megakernel run.
std::map<std::string, std::vector<std::optional<double>>> megakernelTimes(const json& runs,
                                                                        const std::vector<Axis>& axes) {
  std::map<std::string, std::vector<std::optional<double>>> times;
  for (const auto& run : runs) {
    if (run["parameters"]["integrator"] != integratorName(baselineIntegrator)) continue;
    const bool timed = run["status"] == "ok" && run["frame_gpu_ms"]["median"].get<double>() > 0;
    times[peerKey(run["parameters"], axes)].push_back(timed ? std::optional<double>(run["frame_gpu_ms"]["median"])
                                                      : std::nullopt);
  }
  return times;
}

}  // namespace

RelativeTimes relativeTimes(const json& runs) {
  const std::vector<Axis> axes = runAxes(runs);
  // Each run is timed against the megakernel of its scene, backend (and layout) and parameters.
  const auto megakernelMs = megakernelTimes(runs, axes);
  std::map<std::string, size_t> occurrences;                      // runs so far of each peer key and integrator variant
  std::map<std::string, std::vector<std::string>> megakernelIds;  // peer key -> its megakernel runs' ids
  for (const auto& run : runs)
    if (run["parameters"]["integrator"] == integratorName(baselineIntegrator))
      megakernelIds[peerKey(run["parameters"], axes)].push_back(run["id"]);
  RelativeTimes result;
  std::map<std::string, size_t> lineIndex;
  std::vector<json> lineParameters;
  for (const auto& run : runs) {
    const auto& p = run["parameters"];
    const std::string peer = peerKey(p, axes);
    // A line: every setting of the run (runKey), so that runs that differ in any of them are
    // never averaged. A failed run keeps its place among its repeats, as megakernelTimes does.
    const std::string lineKey = runKey(run);
    const size_t occurrence = occurrences[peer + "|" + lineKey]++;
    if (run["status"] != "ok" || run.contains("raycast")) continue;
    const auto found = megakernelMs.find(peer);
    if (found == megakernelMs.end() || occurrence >= found->second.size() || !found->second[occurrence]) continue;
    const double ratio = run["frame_gpu_ms"]["median"].get<double>() / *found->second[occurrence];
    const std::string id = run["id"];
    result.ofRun[id] = ratio;
    // The megakernel against itself is 1 by construction: its line would say nothing.
    if (p["integrator"] == integratorName(baselineIntegrator)) continue;
    const auto [line, added] = lineIndex.try_emplace(peer + "|" + lineKey, result.lines.size());
    if (added) {
      result.lines.push_back({fs::path(p["scene"].get<std::string>()).filename().string(),
                              integratorLabel(p),
                              backendLabel(p),
                              "",
                              {},
                              {},
                              {},
                              0});
      lineParameters.push_back({{"parameters", p}});
    }
    RelativeTimeLine& entry = result.lines[line->second];
    entry.runIds.push_back(id);
    entry.megakernelIds.push_back(megakernelIds[peer][occurrence]);
    entry.ratios.push_back(ratio);
  }
  // The settings that set a line apart beside scene, integrator and backend: those that differ
  // between its lines (a resolution sweep's sizes, timing frame and stages, a pool size, ...).
  const json lineRuns = lineParameters;
  const std::vector<Axis> lineSettings = settingsAxes(varyingAxes(runAxes(lineRuns), lineRuns), lineRuns);
  for (size_t i = 0; i < result.lines.size(); ++i) {
    result.lines[i].settings = settingsText(lineSettings, lineParameters[i]["parameters"]);
    result.lines[i].geometricMean = geometricMean(result.lines[i].ratios);
  }
  return result;
}

std::string deviceLine(const json& report) {
  const json& device = report.value("device", json::object());
  const json& tool = report.value("tool", json::object());
  std::string line = device.value("name", "unknown device");
  std::vector<std::string> details;
  if (device.contains("driver_info") && device["driver_info"].is_string())
    details.push_back("driver " + device["driver_info"].get<std::string>());
  if (device.value("type", "") == "cpu") details.push_back("a CPU implementation: its times are the host's, not a GPU's");
  if (!details.empty()) line += " (" + fmt::format("{}", fmt::join(details, "; ")) + ")";
  if (tool.contains("git_revision") && tool["git_revision"].is_string())
    line += ", ptbench " + tool["git_revision"].get<std::string>().substr(0, 7) +
            (tool.value("git_dirty", false) ? " (modified)" : "");
  if (report.contains("date") && report["date"].is_string()) line += ", " + report["date"].get<std::string>();
  return line;
}

std::optional<SummaryFormat> parseSummaryFormat(std::string_view name) {
  if (name == "table") return SummaryFormat::Table;
  if (name == "md") return SummaryFormat::Markdown;
  if (name == "csv") return SummaryFormat::Csv;
  return std::nullopt;
}

std::string backendLabel(const json& parameters) {
  std::string label = parameters["backend"];
  const json& options = parameters.value("options", json::object());
  if (options.contains("software_bvh")) label += " " + options["software_bvh"].get<std::string>();
  if (options.contains("software_builder")) label += " " + options["software_builder"].get<std::string>();
  return label;
}

std::string integratorLabel(const json& parameters) {
  std::string label = parameters["integrator"];
  const json& options = parameters.value("options", json::object());
  if (const auto kind = parseIntegrator(label)) label += optionsLabel(*kind, options);
  // Runs with counters are not timed like the others: say so wherever their times appear.
  if (parameters.value("counters", "off") != "off") label += " [" + parameters["counters"].get<std::string>() + "]";
  return label;
}

std::string reportSummary(const json& report, SummaryFormat format) {
  const json& runs = report.at("runs");
  bool anyRaycast = false, anySimt = false;
  for (const auto& run : runs) {
    anyRaycast |= run.contains("raycast");
    anySimt |= run.contains("simt");
  }
  const std::vector<Axis> axes = runAxes(runs);
  // Every setting that differs between the runs gets a column: two runs never read alike.
  std::vector<Axis> settings;
  for (const Axis& axis : settingsAxes(varyingAxes(axes, runs), runs))
    if (axis.name != "width" && axis.name != "height" && axis.name != "spp") settings.push_back(axis);
  std::vector<Column> columns = {{"run", -5}, {"scene", -32}, {"integrator", -36}, {"backend", -14},
                                 {"size", 9}, {"spp", 4}};
  if (!settings.empty()) columns.push_back({"settings", -8});
  // The metrics of the summary that some run has, from the one list; the time relative to the
  // megakernel after the throughput.
  std::vector<const Metric*> shownMetrics;
  for (const Metric& m : runMetrics()) {
    if (!m.inSummary) continue;
    const bool any = std::any_of(runs.begin(), runs.end(), [&](const json& run) { return m.value(run).has_value(); });
    // Every summary has the time, noise, rays and roofline columns; the counters' and errors' only with them.
    const bool always = m.name == "frame_gpu_ms_median" || m.name == "frame_gpu_ms_cv" || m.name == "rays_per_s" ||
                        m.name == "roofline_fraction";
    if (any || always) shownMetrics.push_back(&m);
  }
  for (const Metric* m : shownMetrics) {
    columns.push_back({m->header, std::max(8, int(m->header.size()))});
    if (m->name == "rays_per_s") columns.push_back({"vs mk", 8});
  }
  const RelativeTimes relative = relativeTimes(runs);
  std::vector<Row> rows;
  std::vector<std::string> noisy;
  for (const auto& run : runs) {
    const auto& p = run["parameters"];
    const std::string scene = fs::path(p["scene"].get<std::string>()).filename().string();
    const std::string integrator = integratorLabel(p);
    Row row;
    row.cells = {run["id"].get<std::string>(),
                 scene,
                 integrator,
                 backendLabel(p),
                 p["width"].dump() + "x" + p["height"].dump(),
                 p["spp"].dump()};
    if (!settings.empty()) row.cells.push_back(settingsText(settings, p));
    if (run["status"] != "ok") {
      row.failure = run["status"] == "interrupted" ? "interrupted" : "failed: " + run["error"].get<std::string>();
      rows.push_back(row);
      continue;
    }
    const bool raycast = run.contains("raycast");
    const auto ratio = relative.ofRun.find(run["id"].get<std::string>());
    const std::string versusMegakernel = ratio == relative.ofRun.end() ? "" : fmt::format("{:.3f}", ratio->second);
    // A shadow raycast in a scene without emitters has no light samples to trace towards.
    const bool noRays = raycast && run["raycast"]["rays_traced"] == 0;
    const std::optional<double> cv = metric("frame_gpu_ms_cv").value(run);
    if (cv && isNoisy(*cv)) noisy.push_back(run["id"].get<std::string>());
    for (const Metric* m : shownMetrics) {
      // A raycast's rays are its trace stage's (its roofline's), as the note under the table says.
      const std::optional<double> value =
          m->name == "rays_per_s" && raycast ? metric("raycast_rays_per_s").value(run) : m->value(run);
      if (m->name == "rays_per_s" && noRays)
        row.cells.push_back("none");
      else
        row.cells.push_back(value ? fmt::format("{:.{}f}", *value * m->scale, m->decimals) : "");
      // The noise bound's flag, beside the number it judges.
      if (m->name == "frame_gpu_ms_cv" && cv) row.cells.back() += noiseFlag(*cv);
      if (m->name == "rays_per_s") row.cells.push_back(versusMegakernel);
    }
    rows.push_back(row);
  }
  std::vector<std::string> notes;
  if (!noisy.empty())
    notes.push_back(fmt::format(
        "noisy (cv %!): run(s) {} vary by more than {:g}% from frame to frame: their medians are uncertain and compare "
        "may call them unsure (more frames, more warm-up, or an idle GPU help)",
        fmt::join(noisy, ", "), noisyFrameCv * 100));
  if (anyRaycast)
    notes.push_back(
        "raycast rows: Mrays/s of the trace stage alone (none: no emitter to aim shadow rays at). roofline: a path "
        "tracer's Mrays/s over the diffuse raycast's of the same scene and backend (the same size preferred).");
  if (anySimt)
    notes.push_back(
        "SIMT util: active lanes / subgroup lanes at the shading point; classes: distinct material classes per "
        "subgroup there (counters: simt, whose atomics slow those runs).");
  // counters: clocks: each clocked run's phase shares, and its time over its unclocked twin's
  // (the same run key without the counters), the clocks' cost, where the report holds both.
  std::map<std::string, double> unclockedMs;
  for (const auto& run : runs)
    if (run["status"] == "ok" && run["parameters"].value("counters", "off") == "off")
      unclockedMs.emplace(runKey(run), run["frame_gpu_ms"]["median"].get<double>());
  for (const auto& run : runs) {
    if (run["status"] != "ok" || !run.contains("clocks")) continue;
    std::string shares;
    for (std::string_view phase : phaseNames) {
      const json& share = run["clocks"]["phases"].value(std::string(phase), json());
      shares += fmt::format("{}{} {}", shares.empty() ? "" : ", ", phase,
                            share.is_number() ? fmt::format("{:.3f}", share.get<double>()) : "-");
    }
    std::string key = runKey(run);
    key.erase(key.find(" counters=clocks"), std::string(" counters=clocks").size());
    const auto twin = unclockedMs.find(key);
    // Stages whose clocks counted more than their SMs could hold (report.h, implausibleLaneCycles).
    std::vector<std::string> implausible;
    auto judge = [&](const json& block, const std::string& name) {
      const json& fraction = block.value("of_resident_lane_cycles", json());
      if (fraction.is_number() && fraction.get<double>() > implausibleLaneCycles)
        implausible.push_back(fmt::format("{} {:.2f}x", name, fraction.get<double>()));
    };
    judge(run["clocks"], "trace_shade");
    for (const auto& stage : run["clocks"].value("per_stage", json::array())) judge(stage, stage.value("stage", "?"));
    notes.push_back(fmt::format(
        "phases of run {}: {}{}{}", run["id"].get<std::string>(), shares,
        twin == unclockedMs.end() ? std::string()
                                  : fmt::format("; {:.3f}x the frame time without clocks",
                                                run["frame_gpu_ms"]["median"].get<double>() / twin->second),
        implausible.empty() ? std::string()
                            : fmt::format("; NOT TRUSTED: clocks counted more lane-cycles than the SMs hold ({})",
                                          fmt::join(implausible, ", "))));
  }
  // Camera paths: each run's error per millisecond, and over its twin without ReSTIR (the same
  // run key with restir: off) as ReSTIR against plain path tracing at equal time.
  std::map<std::string, std::pair<std::string, double>> plainEfficiency;  // run key -> id, efficiency
  for (const auto& run : runs)
    if (run["status"] == "ok" && run.contains("camera_path") && run["camera_path"].contains("efficiency"))
      plainEfficiency.emplace(runKey(run),
                              std::pair{run["id"].get<std::string>(), run["camera_path"]["efficiency"].get<double>()});
  for (const auto& run : runs) {
    if (run["status"] != "ok" || !run.contains("camera_path") || !run["camera_path"].contains("efficiency")) continue;
    const json& path = run["camera_path"];
    json plain = run;
    std::string versus;
    if (plain["parameters"].contains("options") && plain["parameters"]["options"].value("restir", "off") != "off") {
      plain["parameters"]["options"]["restir"] = "off";
      if (const auto twin = plainEfficiency.find(runKey(plain));
          twin != plainEfficiency.end() && twin->second.second > 0)
        versus = fmt::format("; {:.2f}x plain path tracing's (run {})",
                             path["efficiency"].get<double>() / twin->second.second, twin->second.first);
    }
    // Reports from before FLIP have none.
    const std::string flip =
        path.contains("flip_mean") ? fmt::format(", mean FLIP {:.4f}", path["flip_mean"].get<double>()) : "";
    notes.push_back(fmt::format(
        "camera path of run {} ({}, {}): {} frames, mean {:.3f} ms a frame, mean relMSE {:.4g}{}, efficiency "
        "1/(relMSE x s) {:.4g}{}",
        run["id"].get<std::string>(), integratorLabel(run["parameters"]), backendLabel(run["parameters"]),
        path["frames"].size(), path["gpu_ms_mean"].get<double>(), path["relmse_mean"].get<double>(), flip,
        path["efficiency"].get<double>(), versus));
  }
  // The driver's register counts and the warps per SM they allow, per kernel (where the device
  // gives them: VK_KHR_pipeline_executable_properties on NVIDIA).
  for (const auto& run : runs) {
    std::vector<std::string> kernels;
    for (const auto& kernel : run.value("kernels", json::array()))
      if (kernel.value("occupancy", json()).is_object()) {
        const json& occupancy = kernel["occupancy"];
        kernels.push_back(fmt::format("{} {} regs, {}/{} warps", kernel["stage"].get<std::string>(),
                                      occupancy["registers_per_thread"].get<int>(),
                                      occupancy["warps_per_sm"].get<int>(), occupancy["max_warps_per_sm"].get<int>()));
      }
    if (!kernels.empty())
      notes.push_back(fmt::format("kernels of run {} (registers a thread, resident warps a SM): {}",
                                  run["id"].get<std::string>(), fmt::join(kernels, "; ")));
  }
  for (const auto& note : report.value("notes", json::array())) notes.push_back(note.get<std::string>());
  // Runs' own notes (an unlit scene), each once with the runs it concerns.
  std::vector<std::pair<std::string, std::vector<std::string>>> runNotes;
  for (const auto& run : runs)
    for (const auto& note : run.value("notes", json::array())) {
      if (!note.is_string()) continue;
      auto found = std::find_if(runNotes.begin(), runNotes.end(), [&](const auto& entry) { return entry.first == note; });
      if (found == runNotes.end()) found = runNotes.insert(runNotes.end(), {note.get<std::string>(), {}});
      found->second.push_back(run["id"].get<std::string>());
    }
  for (const auto& [note, ids] : runNotes)
    notes.push_back(fmt::format("warning: run{} {}: {}", ids.size() > 1 ? "s" : "", fmt::join(ids, ", "), note));
  // A GPU that changed its clocks or throttled during a run measured something else than asked.
  for (const auto& run : runs) {
    const json context = run.value("gpu_context", json::object());
    if (!context.value("sm_clock_mhz_mean", json()).is_number()) continue;
    const double mean = context["sm_clock_mhz_mean"], low = context["sm_clock_mhz_min"],
                 high = context["sm_clock_mhz_max"];
    if (mean > 0 && (high - low) / mean > 0.05)
      notes.push_back(
          fmt::format("warning: run {}: the SM clock varied by {:.0f}% over its frames ({:.0f} to {:.0f} "
                      "MHz); its times mix clock speeds (more warm-up frames may help)",
                      run["id"].get<std::string>(), 100 * (high - low) / mean, low, high));
    if (!context["throttled_frames"].empty())
      notes.push_back(fmt::format("warning: run {}: {} of its frames ran throttled ({})", run["id"].get<std::string>(),
                                  context["throttled_frames"].size(),
                                  fmt::join(context["throttle_reasons"].get<std::vector<std::string>>(), ", ")));
  }
  // The relative-time block: one line per scene, integrator variant, backend and whatever
  // parameters differ between its lines; never a mean across backends or sizes, whose ratios
  // may lie on either side of 1.
  std::vector<Column> relativeColumns = {{"scene", -1}, {"integrator", -1}, {"backend", -1}};
  std::vector<std::vector<std::string>> relativeLines;
  bool anyRepeated = false, anyParameters = false;
  for (const RelativeTimeLine& line : relative.lines) {
    anyRepeated |= line.ratios.size() > 1;
    anyParameters |= !line.settings.empty();
  }
  // A column where any line has settings to show, and a cell on every line then, empty or not.
  if (anyParameters) relativeColumns.push_back({"parameters", -1});
  relativeColumns.push_back({"relative GPU time", 1});
  if (anyRepeated) relativeColumns.push_back({"runs", 1});
  for (const RelativeTimeLine& line : relative.lines) {
    std::vector<std::string> cells = {line.scene, line.integrator, line.backend};
    if (anyParameters) cells.push_back(line.settings);
    cells.push_back(fmt::format("{:.3f}x", line.geometricMean));
    if (anyRepeated) cells.push_back(std::to_string(line.ratios.size()));
    relativeLines.push_back(cells);
  }
  const std::string ratioTitle = std::string(relativeTimeConvention);

  std::string out;
  const std::string device = deviceName(report);
  if (format == SummaryFormat::Csv) {
    for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csvField(columns[c].name);
    out += ",status,device\n";
    for (const Row& row : rows) {
      for (size_t c = 0; c < columns.size(); ++c)
        out += (c ? "," : "") + csvField(c < row.cells.size() ? row.cells[c] : "");
      out += "," + csvField(row.failure.empty() ? "ok" : row.failure) + "," + csvField(device) + "\n";
    }
    return out;
  }
  // A table pasted elsewhere keeps what it was measured on.
  out += "device: " + deviceLine(report) + "\n\n";
  if (format == SummaryFormat::Markdown) {
    std::string header = "|", rule = "|";
    for (const Column& column : columns) {
      header += " " + column.name + " |";
      rule += column.width < 0 ? " --- |" : " ---: |";
    }
    out += header + "\n" + rule + "\n";
    for (const Row& row : rows) {
      out += "|";
      for (size_t c = 0; c < columns.size(); ++c) {
        const std::string cell = c < row.cells.size() ? row.cells[c] : (c == row.cells.size() ? row.failure : "");
        out += " " + markdownCell(cell) + " |";
      }
      out += "\n";
    }
    for (const std::string& note : notes) out += "\n" + markdownCell(note) + "\n";
    if (!relativeLines.empty()) {
      std::string ratioHeader = "|", ratioRule = "|";
      for (const Column& column : relativeColumns) {
        ratioHeader += " " + column.name + " |";
        ratioRule += column.width < 0 ? " --- |" : " ---: |";
      }
      out += "\n" + ratioTitle + ":\n\n" + ratioHeader + "\n" + ratioRule + "\n";
      for (const auto& cells : relativeLines) {
        out += "|";
        for (const std::string& text : cells) out += " " + markdownCell(text) + " |";
        out += "\n";
      }
    }
    return out;
  }
  auto cell = [](const std::string& text, int width) {
    return width < 0 ? fmt::format("{:<{}}", text, -width) : fmt::format("{:>{}}", text, width);
  };
  // A column widens to its longest cell (a builtin scene's spec, "software cwbvh gpu"), so that
  // the columns after it stay aligned.
  for (const Row& row : rows)
    for (size_t c = 0; c < row.cells.size(); ++c) {
      const int width = std::max(std::abs(columns[c].width), int(row.cells[c].size()));
      columns[c].width = columns[c].width < 0 ? -width : width;
    }
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? " " : "") + cell(columns[c].name, columns[c].width);
  out += "\n";
  for (const Row& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.cells.size(); ++c) line += (c ? " " : "") + cell(row.cells[c], columns[c].width);
    if (!row.failure.empty()) line += "   " + row.failure;
    out += line + "\n";
  }
  for (const std::string& note : notes) out += "\n" + note + "\n";
  if (!relativeLines.empty()) {
    // Columns as wide as their longest cell: scene specs of builtin scenes run long.
    for (size_t c = 0; c < relativeColumns.size(); ++c) {
      size_t width = relativeColumns[c].name.size();
      for (const auto& cells : relativeLines) width = std::max(width, cells[c].size());
      relativeColumns[c].width = relativeColumns[c].width < 0 ? -int(width) : int(width);
    }
    auto line = [&](const std::vector<std::string>& cells) {
      std::string text;
      for (size_t c = 0; c < cells.size(); ++c) text += "  " + cell(cells[c], relativeColumns[c].width);
      return text + "\n";
    };
    std::vector<std::string> names;
    for (const Column& column : relativeColumns) names.push_back(column.name);
    out += "\n" + ratioTitle + ":\n" + line(names);
    for (const auto& cells : relativeLines) out += line(cells);
  }
  return out;
}

}  // namespace ptbench
