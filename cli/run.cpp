// `ptbench run [CONFIG]`: an experiment from a JSON config, with its report and images.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/interrupt.h"
#include "core/experiment/report.h"
#include "core/experiment/statistics.h"
#include "core/integrators/options.h"

namespace ptbench::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct RunOptions {
  std::string config;
  std::string out;
  std::vector<std::string> overrides;
  bool quiet = false;
  std::string json;
};

// configs/default.json from the current folder, else beside the executable's build folder.
fs::path defaultConfig() {
  if (fs::exists("configs/default.json")) return "configs/default.json";
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error && fs::exists(executable.parent_path().parent_path() / "configs/default.json"))
    return executable.parent_path().parent_path() / "configs/default.json";
  throw UserError("no config given and configs/default.json not found; run from the ptbench folder or name a config",
                  exitConfigMissing);
}

std::string runLabel(const RunRecord& run) {
  const auto& s = run.spec.settings;
  const std::string options = optionsText(runOptionsJson(run.spec.integrator, run.backend, s));
  return fmt::format("{} | {}{} | {} | {}x{} | {} spp", fs::path(run.scene).filename().string(),
                     integratorName(run.spec.integrator), options.empty() ? "" : " [" + options + "]", run.backend,
                     s.width, s.height, s.samplesPerPixel);
}

class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), terminal_(isatty(STDERR_FILENO)), start_(Clock::now()) {}

  void operator()(size_t index, size_t total, const RunRecord& run, bool finished) {
    if (quiet_) return;
    const std::string position = fmt::format("[{}/{}]", index + 1, total);
    if (!finished) {
      if (terminal_) std::cerr << fmt::format("\r\033[K{} {} ...", position, runLabel(run)) << std::flush;
      runStart_ = Clock::now();
      return;
    }
    ++done_;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = elapsed / double(done_) * double(total - index - 1);
    const std::string outcome = run.ok()          ? fmt::format("{:.3f} ms/frame GPU ({} frames)",
                                                                summarize(run.frameGpuMs).median, run.frameGpuMs.size())
                                : run.interrupted ? std::string("interrupted")
                                                  : "FAILED: " + run.error;
    if (terminal_)
      std::cerr << fmt::format("\r\033[K{} {}  {}  ETA {:.0f} s\n", position, runLabel(run), outcome, eta);
    else
      spdlog::info("{} {}  {}", position, runLabel(run), outcome);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool quiet_, terminal_;
  Clock::time_point start_, runStart_;
  size_t done_ = 0;
};

// The integrator and what sets its runs apart: "wavefront pool -compact +matq 1.05M",
// "megakernel-ser hint=material from=2", "megakernel [simt]".
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

// The backend and its options: "software bvh2".
std::string backendLabel(const json& parameters) {
  std::string label = parameters["backend"];
  const json& options = parameters.value("options", json::object());
  if (options.contains("software_bvh")) label += " " + options["software_bvh"].get<std::string>();
  return label;
}

// One row per run, then each integrator's GPU time relative to the megakernel, per scene.
// A raycast run's Mrays/s are its trace stage's alone: the roofline the path tracers' are read against.
std::string summaryTable(const json& report) {
  std::string table =
      fmt::format("{:<5} {:<32} {:<36} {:<14} {:>9} {:>4} {:>11} {:>6} {:>10} {:>8} {:>8}\n", "run", "scene",
                  "integrator", "backend", "size", "spp", "GPU ms", "cv %", "Mrays/s", "vs mk", "roofline");
  bool anyRaycast = false;
  std::map<std::string, double> megakernelMs;  // by parameters other than the integrator
  auto peerKey = [](const json& p) {
    return p["scene"].get<std::string>() + "|" + backendLabel(p) + "|" + p["width"].dump() + "x" + p["height"].dump() +
           "|" + p["spp"].dump() + "|" + p["max_depth"].dump() + "|" + p["rr_depth"].dump() + "|" + p["seed"].dump() +
           "|" + p["sampler"].get<std::string>();
  };
  for (const auto& run : report["runs"])
    if (run["status"] == "ok" && run["parameters"]["integrator"] == integratorName(IntegratorKind::Megakernel))
      megakernelMs[peerKey(run["parameters"])] = run["frame_gpu_ms"]["median"];
  std::map<std::pair<std::string, std::string>, std::vector<double>> ratios;  // (scene, integrator) -> ratios
  for (const auto& run : report["runs"]) {
    const auto& p = run["parameters"];
    const std::string scene = fs::path(p["scene"].get<std::string>()).filename().string();
    const std::string size = p["width"].dump() + "x" + p["height"].dump();
    const std::string integrator = integratorLabel(p);
    if (run["status"] != "ok") {
      table += fmt::format("{:<5} {:<32} {:<36} {:<14} {:>9} {:>4} {}\n", run["id"].get<std::string>(), scene,
                           integrator, backendLabel(p), size, p["spp"].dump(),
                           run["status"] == "interrupted" ? std::string("  interrupted")
                                                          : "  failed: " + run["error"].get<std::string>());
      continue;
    }
    const double ms = run["frame_gpu_ms"]["median"];
    const bool raycast = run.contains("raycast");
    anyRaycast = anyRaycast || raycast;
    std::string relative = "";
    if (const auto found = megakernelMs.find(peerKey(p));
        !raycast && found != megakernelMs.end() && found->second > 0) {
      relative = fmt::format("{:.3f}", ms / found->second);
      ratios[{p["scene"], integrator}].push_back(ms / found->second);
    }
    const double raysPerSecond = (raycast ? run["raycast"] : run["throughput"])["rays_per_s"].get<double>();
    // A shadow raycast in a scene without emitters has no light samples to trace towards.
    const bool noRays = raycast && run["raycast"]["rays_traced"] == 0;
    const json& fraction = run.value("roofline_fraction", json());
    table += fmt::format("{:<5} {:<32} {:<36} {:<14} {:>9} {:>4} {:>11.3f} {:>6.2f} {:>10} {:>8} {:>8}\n",
                         run["id"].get<std::string>(), scene, integrator, backendLabel(p), size, p["spp"].dump(), ms,
                         100.0 * run["frame_gpu_ms"]["cv"].get<double>(),
                         noRays ? std::string("none") : fmt::format("{:.2f}", raysPerSecond * 1e-6), relative,
                         fraction.is_number() ? fmt::format("{:.3f}", fraction.get<double>()) : "");
  }
  if (anyRaycast)
    table +=
        "\nraycast rows: Mrays/s of the trace stage alone (none: no emitter to aim shadow rays at). roofline: a\n"
        "path tracer's Mrays/s over the diffuse raycast's of the same scene and backend (the same size preferred).\n";
  if (!ratios.empty()) {
    table += "\nGPU time relative to the megakernel (geometric mean over matching runs; < 1 is faster):\n";
    for (const auto& [key, values] : ratios) {
      double logSum = 0;
      for (double r : values) logSum += std::log(r);
      table += fmt::format("  {:<32} {:<36} {:.3f}x\n", fs::path(key.first).filename().string(), key.second,
                           std::exp(logSum / double(values.size())));
    }
  }
  return table;
}

int run(const GlobalOptions& global, const RunOptions& options) {
  const fs::path configPath = options.config.empty() ? defaultConfig() : fs::path(options.config);
  const ExperimentConfig config = loadConfig(configPath, options.overrides);
  if (!options.json.empty() && options.json != "-") requireOutputFolder(options.json, "--json");
  Progress progress(options.quiet);
  const InterruptGuard interrupts;
  const ExperimentResult result = runExperiment(
      config,
      RunnerOptions{.device = global.device,
                    .validate = global.validate,
                    .gpuTimeoutSeconds = global.gpuTimeoutSeconds,
                    .outputRoot = options.out,
                    .progress = [&](size_t i, size_t n, const RunRecord& r, bool done) { progress(i, n, r, done); },
                    .stopRequested = [] { return InterruptGuard::signal() != 0; }});
  const json report = reportJson(result);
  writeReport(result, report);
  if (options.json == "-") {
    std::cout << report.dump(2) << "\n";
    std::cerr << summaryTable(report);
  } else {
    if (!options.json.empty()) writeFileAtomically(options.json, report.dump(2) + "\n");
    std::cout << summaryTable(report);
  }
  if (!options.quiet) spdlog::info("results in {}", result.folder.string());
  if (const int signal = InterruptGuard::signal(); signal != 0) {
    const auto finished =
        std::count_if(result.runs.begin(), result.runs.end(), [](const RunRecord& r) { return r.ok(); });
    spdlog::warn("interrupted by {}: the report in {} keeps the {} finished run(s) of {} and is marked incomplete",
                 signal == SIGINT ? "Ctrl-C" : "SIGTERM", result.folder.string(), finished, result.runs.size());
    throw CLI::RuntimeError(128 + signal);  // 130 for SIGINT, 143 for SIGTERM, as shells expect
  }
  const bool failed = std::any_of(result.runs.begin(), result.runs.end(), [](const RunRecord& r) { return !r.ok(); });
  return failed || result.validationMessages > 0 ? 1 : 0;
}

}  // namespace

void addRunCommand(CLI::App& app, const GlobalOptions& global) {
  auto* command = app.add_subcommand("run", "Run an experiment config (default: configs/default.json)");
  auto options = std::make_shared<RunOptions>();
  command->add_option("config", options->config, "experiment config (JSON; see docs/config.md)");
  command->add_option("--out", options->out,
                      "put results/<name>/<stamp>/ under this folder instead of the config's output");
  command->add_option("--set", options->overrides, "override a config key: key=value (value as JSON), repeatable");
  command->add_flag("--quiet", options->quiet, "no progress output");
  command->add_option("--json", options->json, "also write the report to this file; - for stdout");
  command->callback([&global, options] {
    if (int code = run(global, *options); code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace ptbench::cli
