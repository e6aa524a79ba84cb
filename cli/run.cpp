// `ptbench run [CONFIG]`: an experiment from a JSON config, with its report and images.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/interrupt.h"
#include "core/experiment/merge.h"
#include "core/experiment/plan.h"
#include "core/experiment/report.h"
#include "core/experiment/runner.h"
#include "core/experiment/statistics.h"
#include "core/experiment/summary.h"
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
  std::string markdown;  // --md: the summary as Markdown, to this file
  std::string shard;     // --shard K/N
  std::string resume;    // --resume DIR
  bool dryRun = false;   // --dry-run: print the plan, run nothing
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
  // Runs with counters are runs of their own: a sweep's twins must not read alike.
  const std::string counters =
      s.counters == Counters::Off ? "" : " | counters=" + std::string(countersName(s.counters));
  return fmt::format("{} | {}{} | {} | {}x{} | {} spp{}", fs::path(run.scene).filename().string(),
                     integratorName(run.spec.integrator), options.empty() ? "" : " [" + options + "]", run.backend,
                     s.width, s.height, s.samplesPerPixel, counters);
}

// --dry-run: the runs the sweep resolves to on this device, one line each, before any GPU work.
// Returns 1 when a run could not run (its reason is on its line), else 0.
// With --resume, `previous` is the folder's report: the runs it finished are marked kept.
int printPlan(const ExperimentConfig& config, const GlobalOptions& global, const std::optional<Shard>& shard,
              const json& previous) {
  const vk::DeviceCapabilities device = vk::selectDevice(global.device.empty() ? config.device : global.device);
  ExperimentPlan plan = planExperiment(config, device, shard);
  if (!previous.is_null()) keepFinishedRuns(plan.runs, previous);
  std::string backends;
  for (Backend backend : plan.backends) backends += (backends.empty() ? "" : ", ") + std::string(backendName(backend));
  std::cout << fmt::format("{}: {} run(s) from {} point(s) of the sweep on {} (backends: {}); nothing run\n",
                           config.name, plan.runs.size(), plan.shardSpecs.size(), device.name,
                           backends.empty() ? "none" : backends);
  for (const RunRecord& run : plan.runs) {
    const std::string outcome = run.kept            ? "  kept: " + run.status() + " in the folder's report"
                                : run.error.empty() ? ""
                                                    : "  CANNOT RUN: " + run.error;
    std::cout << fmt::format("  {} {}{}\n", run.id, runLabel(run), outcome);
    if (!run.wavefrontPoolReason.empty()) std::cout << "       pool: " << run.wavefrontPoolReason << "\n";
  }
  for (const std::string& note : plan.notes) std::cout << "  note: " << note << "\n";
  return std::any_of(plan.runs.begin(), plan.runs.end(), [](const RunRecord& r) { return !r.kept && !r.error.empty(); })
             ? 1
             : 0;
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

int run(const GlobalOptions& global, const RunOptions& options) {
  nlohmann::json previous;
  std::optional<Shard> shard;
  if (!options.resume.empty()) {
    // The folder's own config, as resolved when it started, and its shard: nothing else.
    if (!options.config.empty() || !options.overrides.empty() || !options.shard.empty() || !options.out.empty())
      throw UserError("--resume " + options.resume +
                      ": continues that folder's sweep with its own config; give no config, --set, --shard or --out");
    previous = readCheckedReport((fs::path(options.resume) / "report.json").string());
    if (!previous.contains("config") || !previous.contains("config_file") || !previous.contains("sweep"))
      throw UserError("--resume " + options.resume + ": its report was written by a ptbench that cannot resume it");
    const json& recorded = previous["sweep"]["shard"];
    if (recorded.is_object()) shard = Shard{recorded["index"], recorded["count"]};
  } else if (!options.shard.empty() && !(shard = parseShard(options.shard))) {
    throw UserError("--shard " + options.shard + ": expected K/N, the K-th of N parts (1 <= K <= N), such as 2/4");
  }
  const ExperimentConfig config =
      options.resume.empty()
          ? loadConfig(options.config.empty() ? defaultConfig() : fs::path(options.config), options.overrides)
          : configFromJson(previous["config"], previous["config_file"].get<std::string>());
  if (options.dryRun) return printPlan(config, global, shard, previous);
  if (!options.json.empty() && options.json != "-") requireOutputFolder(options.json, "--json");
  if (!options.markdown.empty()) requireOutputFolder(options.markdown, "--md");
  // --quiet as the global -q: the long steps' progress (core/progress.h) is silenced with the rest.
  if (options.quiet) spdlog::set_level(spdlog::level::warn);
  Progress progress(options.quiet || !spdlog::should_log(spdlog::level::info));
  const InterruptGuard interrupts;
  const ExperimentResult result = runExperiment(
      config,
      RunnerOptions{
          .device = global.device,
          .validate = global.validate,
          .gpuTimeoutSeconds = global.gpuTimeoutSeconds,
          .sceneThreads = global.threads,
          .shard = shard,
          .outputRoot = options.out,
          .progress = [&](size_t i, size_t n, const RunRecord& r, bool done) { progress(i, n, r, done); },
          .stopRequested = [] { return InterruptGuard::signal() != 0; },
          .checkpoint = [](const ExperimentResult& partial) { writeReportFiles(partial.folder, reportJson(partial)); },
          .resumeFolder = options.resume,
          .resumeReport = previous});
  const json report = reportJson(result);
  writeReportFiles(result.folder, report);
  if (options.json == "-") {
    std::cout << report.dump(2) << "\n";
    std::cerr << reportSummary(report, SummaryFormat::Table);
  } else {
    if (!options.json.empty()) writeFileAtomically(options.json, report.dump(2) + "\n");
    std::cout << reportSummary(report, SummaryFormat::Table);
  }
  if (!options.markdown.empty()) writeFileAtomically(options.markdown, reportSummary(report, SummaryFormat::Markdown));
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
  command->add_option("--set", options->overrides,
                      "override a config key: key=value (value as JSON, or a bare word; a value starting with [, { or "
                      "\" must be valid JSON; a number in the key picks a list's element: "
                      "scenes.0.camera.path.frames=8), repeatable");
  command->add_flag("--quiet", options->quiet,
                    "no progress output (of runs, or of steps over a second): as the global -q");
  command->add_option("--json", options->json, "also write the report to this file; - for stdout");
  command->add_option("--md", options->markdown, "also write the summary as a Markdown table to this file");
  command->add_option("--resume", options->resume,
                      "continue this results folder's interrupted or incomplete sweep: its finished runs are kept, "
                      "the others run, and its report is rewritten");
  command->add_flag("--dry-run", options->dryRun,
                    "print the runs the sweep resolves to on this device (backends, options, default pool) and "
                    "why any cannot run, then stop: no GPU work, no results folder; exit 1 if a run cannot run");
  command->add_option("--shard", options->shard,
                      "run only the K-th of N disjoint parts of the sweep (K/N, 1 <= K <= N); `ptbench merge` puts "
                      "the shards' reports back together");
  command->callback([&global, options] {
    if (int code = run(global, *options); code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace ptbench::cli
