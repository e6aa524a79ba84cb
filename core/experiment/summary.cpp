#include "core/experiment/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "core/experiment/report.h"
#include "core/integrators/integrator.h"

namespace ptbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The backend and its options: "software bvh2".
std::string backendLabel(const json& parameters) {
  std::string label = parameters["backend"];
  const json& options = parameters.value("options", json::object());
  if (options.contains("software_bvh")) label += " " + options["software_bvh"].get<std::string>();
  return label;
}

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

}  // namespace

std::optional<SummaryFormat> parseSummaryFormat(std::string_view name) {
  if (name == "table") return SummaryFormat::Table;
  if (name == "md") return SummaryFormat::Markdown;
  if (name == "csv") return SummaryFormat::Csv;
  return std::nullopt;
}

std::string integratorLabel(const json& parameters) {
  std::string label = parameters["integrator"];
  const json& options = parameters.value("options", json::object());
  if (options.contains("rays")) label += " " + options["rays"].get<std::string>();
  if (options.contains("schedule")) label += " " + options["schedule"].get<std::string>();
  if (options.value("compaction", true) == false) label += " -compact";
  if (options.value("material_queues", false) == true) label += " +matq";
  if (options.contains("hint")) label += " hint=" + options["hint"].get<std::string>();
  if (options.contains("reorder_from")) label += " from=" + options["reorder_from"].dump();
  // Runs with counters are not timed like the others: say so wherever their times appear.
  if (parameters.value("counters", "off") != "off") label += " [" + parameters["counters"].get<std::string>() + "]";
  // Runs that differ in pool size only must not share a label (the ratios group by it).
  if (options.contains("pool_size")) {
    const double pool = options["pool_size"].get<double>();
    label += pool >= 1e6   ? fmt::format(" {:.3g}M", pool * 1e-6)
             : pool >= 1e3 ? fmt::format(" {:.3g}k", pool * 1e-3)
                           : fmt::format(" {:g}", pool);
  }
  return label;
}

std::string reportSummary(const json& report, SummaryFormat format) {
  const json& runs = report.at("runs");
  bool anyRaycast = false, anySimt = false;
  for (const auto& run : runs) {
    anyRaycast |= run.contains("raycast");
    anySimt |= run.contains("simt");
  }
  std::vector<Column> columns = {{"run", -5},     {"scene", -32}, {"integrator", -36}, {"backend", -14},
                                 {"size", 9},     {"spp", 4},     {"GPU ms", 11},      {"cv %", 6},
                                 {"Mrays/s", 10}, {"vs mk", 8},   {"roofline", 8}};
  if (anySimt) {
    columns.push_back({"SIMT util", 9});
    columns.push_back({"classes", 7});
  }
  // A run's peers: the runs that differ from it in the integrator (and its options) only.
  auto peerKey = [](const json& p) {
    return p["scene"].get<std::string>() + "|" + backendLabel(p) + "|" + p["width"].dump() + "x" + p["height"].dump() +
           "|" + p["spp"].dump() + "|" + p["max_depth"].dump() + "|" + p["rr_depth"].dump() + "|" + p["seed"].dump() +
           "|" + p["sampler"].get<std::string>() + "|" + p.value("counters", "off");
  };
  std::map<std::string, double> megakernelMs;
  for (const auto& run : runs)
    if (run["status"] == "ok" && run["parameters"]["integrator"] == integratorName(IntegratorKind::Megakernel))
      megakernelMs[peerKey(run["parameters"])] = run["frame_gpu_ms"]["median"];
  std::map<std::pair<std::string, std::string>, std::vector<double>> ratios;  // (scene, integrator) -> ratios
  std::vector<Row> rows;
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
    if (run["status"] != "ok") {
      row.failure = run["status"] == "interrupted" ? "interrupted" : "failed: " + run["error"].get<std::string>();
      rows.push_back(row);
      continue;
    }
    const double ms = run["frame_gpu_ms"]["median"];
    const bool raycast = run.contains("raycast");
    std::string relative;
    if (const auto found = megakernelMs.find(peerKey(p));
        !raycast && found != megakernelMs.end() && found->second > 0) {
      relative = fmt::format("{:.3f}", ms / found->second);
      ratios[{p["scene"], integrator}].push_back(ms / found->second);
    }
    const double raysPerSecond = (raycast ? run["raycast"] : run["throughput"])["rays_per_s"].get<double>();
    // A shadow raycast in a scene without emitters has no light samples to trace towards.
    const bool noRays = raycast && run["raycast"]["rays_traced"] == 0;
    const json& fraction = run.value("roofline_fraction", json());
    row.cells.push_back(fmt::format("{:.3f}", ms));
    row.cells.push_back(fmt::format("{:.2f}", 100.0 * run["frame_gpu_ms"]["cv"].get<double>()));
    row.cells.push_back(noRays ? std::string("none") : fmt::format("{:.2f}", raysPerSecond * 1e-6));
    row.cells.push_back(relative);
    row.cells.push_back(fraction.is_number() ? fmt::format("{:.3f}", fraction.get<double>()) : "");
    if (anySimt) {
      const json simt = run.value("simt", json::object());
      auto number = [&](const char* key) {
        return simt.contains(key) && simt[key].is_number() ? fmt::format("{:.3f}", simt[key].get<double>()) : "";
      };
      row.cells.push_back(number("utilisation"));
      row.cells.push_back(number("coherence"));
    }
    rows.push_back(row);
  }
  std::vector<std::string> notes;
  if (anyRaycast)
    notes.push_back(
        "raycast rows: Mrays/s of the trace stage alone (none: no emitter to aim shadow rays at). roofline: a path "
        "tracer's Mrays/s over the diffuse raycast's of the same scene and backend (the same size preferred).");
  if (anySimt)
    notes.push_back(
        "SIMT util: active lanes / subgroup lanes at the shading point; classes: distinct material classes per "
        "subgroup there (counters: simt, whose atomics slow those runs).");
  for (const auto& note : report.value("notes", json::array())) notes.push_back(note.get<std::string>());
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
  // Geometric means, for lists of ratios.
  std::vector<std::array<std::string, 3>> relative;
  for (const auto& [key, values] : ratios) {
    double logSum = 0;
    for (double r : values) logSum += std::log(r);
    relative.push_back({fs::path(key.first).filename().string(), key.second,
                        fmt::format("{:.3f}", std::exp(logSum / double(values.size())))});
  }
  const std::string ratioTitle =
      "GPU time relative to the megakernel (geometric mean over matching runs; < 1 is faster)";

  std::string out;
  if (format == SummaryFormat::Csv) {
    for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csvField(columns[c].name);
    out += ",status\n";
    for (const Row& row : rows) {
      for (size_t c = 0; c < columns.size(); ++c)
        out += (c ? "," : "") + csvField(c < row.cells.size() ? row.cells[c] : "");
      out += "," + csvField(row.failure.empty() ? "ok" : row.failure) + "\n";
    }
    return out;
  }
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
    if (!relative.empty()) {
      out += "\n" + ratioTitle + ":\n\n| scene | integrator | relative GPU time |\n| --- | --- | ---: |\n";
      for (const auto& [scene, integrator, ratio] : relative)
        out += "| " + markdownCell(scene) + " | " + markdownCell(integrator) + " | " + ratio + "x |\n";
    }
    return out;
  }
  auto cell = [](const std::string& text, int width) {
    return width < 0 ? fmt::format("{:<{}}", text, -width) : fmt::format("{:>{}}", text, width);
  };
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? " " : "") + cell(columns[c].name, columns[c].width);
  out += "\n";
  for (const Row& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.cells.size(); ++c) line += (c ? " " : "") + cell(row.cells[c], columns[c].width);
    if (!row.failure.empty()) line += "   " + row.failure;
    out += line + "\n";
  }
  for (const std::string& note : notes) out += "\n" + note + "\n";
  if (!relative.empty()) {
    out += "\n" + ratioTitle + ":\n";
    for (const auto& [scene, integrator, ratio] : relative)
      out += fmt::format("  {:<32} {:<36} {}x\n", scene, integrator, ratio);
  }
  return out;
}

}  // namespace ptbench
