#include "core/experiment/metrics.h"

#include <filesystem>
#include <set>
#include <stdexcept>

namespace ptbench {
namespace {

using nlohmann::json;

std::string text(const json& value) {
  if (value.is_null()) return "";
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Axis parameterAxis(const std::string& name, const std::string& fallback = "") {
  return {.name = name, .value = [name, fallback](const json& p) {
            return p.contains(name) ? text(p[name]) : fallback;
          }};
}

// The run's statistic `statistic` of its frame GPU times.
std::optional<double> frameStatistic(const json& run, const char* statistic) {
  if (run.value("status", "") != "ok" || !run.contains("frame_gpu_ms")) return std::nullopt;
  const json& value = run["frame_gpu_ms"].value(statistic, json());
  return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
}

// The number at a JSON pointer into the run, where it is one.
std::function<std::optional<double>(const json&)> at(const std::string& pointer) {
  return [pointer = json::json_pointer(pointer)](const json& run) -> std::optional<double> {
    if (run.value("status", "") != "ok" || !run.contains(pointer)) return std::nullopt;
    const json& value = run[pointer];
    return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
  };
}

}  // namespace

std::vector<Axis> runAxes(const json& runs) {
  // Reports from before the counters and timing axes ran with their defaults.
  std::vector<Axis> axes = {parameterAxis("scene"),     parameterAxis("integrator"), parameterAxis("backend"),
                            parameterAxis("width"),     parameterAxis("height"),     parameterAxis("spp"),
                            parameterAxis("max_depth"), parameterAxis("rr_depth"),   parameterAxis("seed"),
                            parameterAxis("sampler"),   parameterAxis("counters", "off"),
                            parameterAxis("timing", "stages"), parameterAxis("camera_path")};
  std::set<std::string> parameters, options;
  for (const Axis& axis : axes) parameters.insert(axis.name);
  for (const auto& run : runs) {
    const json& given = run.value("parameters", json::object()).value("options", json::object());
    for (const auto& entry : given.items()) {
      const std::string name = entry.key();
      if (!options.insert(name).second) continue;
      // An option named like a parameter would make two columns of one name.
      const std::string column = parameters.count(name) ? "option_" + name : name;
      axes.push_back({.name = column,
                      .value =
                          [name](const json& p) {
                            const json& runOptions = p.value("options", json::object());
                            return runOptions.contains(name) ? text(runOptions[name]) : std::string();
                          },
                      .option = true});
    }
  }
  return axes;
}

std::vector<Axis> varyingAxes(const std::vector<Axis>& axes, const json& runs) {
  std::vector<Axis> varying;
  for (const Axis& axis : axes) {
    std::set<std::string> values;
    for (const auto& run : runs) values.insert(axis.value(run.value("parameters", json::object())));
    // An option that only some runs have (the wavefront's, beside the megakernel) varies where
    // the runs that have it differ in it: its absence says no more than the integrator does.
    if (axis.option) values.erase("");
    if (values.size() > 1) varying.push_back(axis);
  }
  return varying;
}

std::string axisText(const std::vector<Axis>& axes, const json& parameters) {
  std::string out;
  for (const Axis& axis : axes)
    if (const std::string value = axis.value(parameters); !value.empty())
      out += (out.empty() ? "" : " ") + axis.name + "=" + value;
  return out;
}

std::string runLabel(const json& parameters, const std::vector<Axis>& varying) {
  std::string label = std::filesystem::path(parameters.value("scene", "")).filename().string() + " | " +
                      parameters.value("integrator", "") + " | " + parameters.value("backend", "");
  std::vector<Axis> rest;
  bool size = false;
  for (const Axis& axis : varying) {
    if (axis.name == "scene" || axis.name == "integrator" || axis.name == "backend") continue;
    if (axis.name == "width" || axis.name == "height") {
      size = true;
      continue;
    }
    rest.push_back(axis);
  }
  if (size) label += " | " + text(parameters.value("width", json())) + "x" + text(parameters.value("height", json()));
  if (const std::string settings = axisText(rest, parameters); !settings.empty()) label += " | " + settings;
  return label;
}

const std::vector<Metric>& runMetrics() {
  static const std::vector<Metric> metrics = {
      {.name = "frame_gpu_ms_median",
       .header = "GPU ms",
       .unit = "ms",
       .better = Better::Lower,
       .value = [](const json& run) { return frameStatistic(run, "median"); }},
      {.name = "frame_gpu_ms_cv",
       .header = "cv %",
       .unit = "%",
       .better = Better::Lower,
       .scale = 100,
       .decimals = 2,
       .value = [](const json& run) { return frameStatistic(run, "cv"); }},
      {.name = "frames",
       .header = "frames",
       .unit = "frames",
       .decimals = 0,
       .value = at("/frames"),
       .inSummary = false},
      {.name = "frame_host_ms_median",
       .header = "host ms",
       .unit = "ms",
       .better = Better::Lower,
       .value = at("/frame_host_ms/median"),
       .inSummary = false},
      {.name = "paths_per_s",
       .header = "Mpaths/s",
       .unit = "paths/s",
       .better = Better::Higher,
       .scale = 1e-6,
       .decimals = 2,
       .value = at("/throughput/paths_per_s"),
       .inSummary = false},
      // The frame's rays (extension and shadow) over its median time.
      {.name = "rays_per_s",
       .header = "Mrays/s",
       .unit = "rays/s",
       .better = Better::Higher,
       .scale = 1e-6,
       .decimals = 2,
       .value = at("/throughput/rays_per_s")},
      {.name = "segments_per_s",
       .header = "Msegments/s",
       .unit = "segments/s",
       .better = Better::Higher,
       .scale = 1e-6,
       .decimals = 2,
       .value = at("/throughput/segments_per_s"),
       .inSummary = false},
      {.name = "invalid_samples",
       .header = "invalid",
       .unit = "samples",
       .better = Better::Lower,
       .decimals = 0,
       .value = at("/invalid_samples"),
       .inSummary = false},
      // A raycast's trace stage alone: the roofline a path tracer's rays_per_s is held against.
      {.name = "raycast_rays_per_s",
       .header = "Mrays/s",
       .unit = "rays/s",
       .better = Better::Higher,
       .scale = 1e-6,
       .decimals = 2,
       .value = at("/raycast/rays_per_s"),
       .inSummary = false},
      {.name = "roofline_fraction",
       .header = "roofline",
       .unit = "fraction",
       .better = Better::Higher,
       .value = at("/roofline_fraction")},
      {.name = "simt_utilisation",
       .header = "SIMT util",
       .unit = "fraction",
       .better = Better::Higher,
       .value = at("/simt/utilisation")},
      {.name = "simt_coherence",
       .header = "classes",
       .unit = "classes",
       .better = Better::Lower,
       .value = at("/simt/coherence")},
      {.name = "relmse",
       .header = "relMSE",
       .unit = "",
       .better = Better::Lower,
       .decimals = 5,
       .value =
           [](const json& run) {
             return run.contains("camera_path") ? at("/camera_path/relmse_mean")(run) : at("/convergence/relmse")(run);
           }},
      {.name = "flip",
       .header = "FLIP",
       .unit = "",
       .better = Better::Lower,
       .decimals = 4,
       .value =
           [](const json& run) {
             return run.contains("camera_path") ? at("/camera_path/flip_mean")(run) : at("/convergence/flip")(run);
           }},
      // A camera path's error per time, 1 / (mean relMSE x mean frame seconds): what ReSTIR buys.
      {.name = "efficiency",
       .header = "1/(relMSE s)",
       .unit = "1/s",
       .better = Better::Higher,
       .value = at("/camera_path/efficiency"),
       .inSummary = false},
      // ReSTIR's visibility rays a pixel, by pass: what its reuse costs beside its time.
      {.name = "restir_temporal_rays_per_pixel",
       .header = "temporal rays/px",
       .unit = "rays/pixel",
       .value = at("/restir/visibility_rays_per_pixel/temporal"),
       .inSummary = false},
      {.name = "restir_spatial_rays_per_pixel",
       .header = "spatial rays/px",
       .unit = "rays/pixel",
       .value = at("/restir/visibility_rays_per_pixel/spatial"),
       .inSummary = false},
      {.name = "restir_shade_rays_per_pixel",
       .header = "shade rays/px",
       .unit = "rays/pixel",
       .value = at("/restir/visibility_rays_per_pixel/shade"),
       .inSummary = false},
  };
  return metrics;
}

std::string deviceName(const json& report) {
  return report.value("device", json::object()).value("name", "");
}

const Metric& metric(const std::string& name) {
  for (const Metric& m : runMetrics())
    if (m.name == name) return m;
  throw std::logic_error("no metric " + name);
}

}  // namespace ptbench
