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
#include "core/experiment/config.h"
#include "core/experiment/html_report.h"
#include "core/experiment/interrupt.h"
#include "core/experiment/merge.h"
#include "core/experiment/metrics.h"
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

// The runs' labels name every setting that differs between them (metrics.h: runLabel), so that
// no two runs of a sweep read alike.
class RunLabels {
 public:
  void plan(const std::vector<RunRecord>& runs) {
    json planned = json::array();
    for (const RunRecord& run : runs) planned.push_back({{"parameters", runParametersJson(run)}});
    varying_ = varyingAxes(runAxes(planned), planned);
  }
  std::string operator()(const RunRecord& run) const { return runLabel(runParametersJson(run), varying_); }

 private:
  std::vector<Axis> varying_;
};

std::string duration(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s", seconds);
  if (seconds < 5400) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// The newest report of the config's name under its output folder, where one exists: what the
// dry-run estimates from.
std::optional<fs::path> previousReport(const fs::path& folder) {
  std::optional<fs::path> newest;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return std::nullopt;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const fs::path report = entry.path() / "report.json";
    // Stamps sort as times do.
    if (fs::is_regular_file(report, error) && (!newest || report > *newest)) newest = report;
  }
  return newest;
}

// --dry-run's estimate of the sweep's time: each run as long as the same run (same settings,
// runKey) took in the newest earlier report of this config, its scenes' loads once each.
std::string sweepEstimate(const ExperimentConfig& config, const std::vector<RunRecord>& runs, const fs::path& root) {
  const fs::path folder = root / config.name;
  const std::optional<fs::path> found = previousReport(folder);
  if (!found) return "no estimate of its time: no earlier report under " + folder.string() + " (run it once)";
  json previous;
  try {
    previous = readCheckedReport(found->string());
  } catch (const UserError& error) {
    return std::string("no estimate of its time: ") + error.what();
  }
  std::map<std::string, const json*> measured;
  for (const auto& run : previous["runs"])
    if (run["status"] == "ok") measured.emplace(runKey(run), &run);
  double seconds = 0;
  size_t known = 0;
  std::map<std::string, double> sceneLoads;
  for (const RunRecord& run : runs) {
    if (run.kept || !run.error.empty()) continue;
    const auto match = measured.find(runKey(json{{"parameters", runParametersJson(run)}}));
    if (match == measured.end()) continue;
    const json& was = *match->second;
    double ms = was.value("wall_ms", 0.0);
    if (!(ms > 0))  // reports from before wall_ms: its frames and pipelines
      ms = was.value("pipeline_create_ms", 0.0) +
           double(was.value("warmup_frames", 0) + was.value("frames", 0) + 1) *
               was.value("frame_host_ms", json::object()).value("mean", 0.0);
    seconds += ms * 1e-3;
    sceneLoads[run.scene] = std::max(sceneLoads[run.scene], was.value("scene_load_ms", 0.0) * 1e-3);
    ++known;
  }
  for (const auto& [scene, load] : sceneLoads) seconds += load;
  const size_t toRun = size_t(std::count_if(runs.begin(), runs.end(), [](const RunRecord& r) { return !r.kept && r.error.empty(); }));
  if (known == 0) return "no estimate of its time: none of its runs is in " + found->string();
  const std::string device = previous.value("device", json::object()).value("name", "?");
  return fmt::format("estimated time: about {}{} (as its runs took in {}, on {})", duration(seconds),
                     known < toRun ? fmt::format(" for the {} of {} runs found there", known, toRun) : "",
                     found->string(), device);
}

// --dry-run: the runs the sweep resolves to on this device, one line each, before any GPU work.
// Returns 1 when a run could not run (its reason is on its line), else 0.
// With --resume, `previous` is the folder's report (read from `previousFile`): the runs it
// finished are marked kept.
int printPlan(const ExperimentConfig& config, const GlobalOptions& global, const std::optional<Shard>& shard,
              const json& previous, const std::string& previousFile, const fs::path& root) {
  const vk::DeviceCapabilities device = vk::selectDevice(global.device.empty() ? config.device : global.device);
  ExperimentPlan plan = planExperiment(config, device, shard);
  if (!previous.is_null()) keepFinishedRuns(plan.runs, previous, previousFile);
  RunLabels label;
  label.plan(plan.runs);
  std::string backends;
  for (Backend backend : plan.backends) backends += (backends.empty() ? "" : ", ") + std::string(backendName(backend));
  std::cout << fmt::format("{}: {} run(s) from {} point(s) of the sweep on {} (backends: {}); nothing run\n",
                           config.name, plan.runs.size(), plan.shardSpecs.size(), device.name,
                           backends.empty() ? "none" : backends);
  for (const RunRecord& run : plan.runs) {
    const std::string outcome = run.kept            ? "  kept: " + run.status() + " in the folder's report"
                                : run.error.empty() ? ""
                                                    : "  CANNOT RUN: " + run.error;
    std::cout << fmt::format("  {} {}{}\n", run.id, label(run), outcome);
    if (!run.wavefrontPoolReason.empty()) std::cout << "       pool: " << run.wavefrontPoolReason << "\n";
  }
  for (const std::string& note : plan.notes) std::cout << "  note: " << note << "\n";
  std::cout << "  " << sweepEstimate(config, plan.runs, root) << "\n";
  return std::any_of(plan.runs.begin(), plan.runs.end(), [](const RunRecord& r) { return !r.kept && !r.error.empty(); })
             ? 1
             : 0;
}

// Progress on stderr: a line as each run finishes, with the sweep's ETA; and inside a run that
// lasts more than a few seconds its frames so far and how long it has left, as `reference` does.
class Progress {
 public:
  Progress(bool quiet, const ExperimentConfig& config)
      : quiet_(quiet), terminal_(isatty(STDERR_FILENO)), config_(config), start_(Clock::now()) {}

  void planned(const std::vector<RunRecord>& runs) { label_.plan(runs); }

  void operator()(size_t index, size_t total, const RunRecord& run, RunPhase phase) {
    if (quiet_) return;
    const std::string position = fmt::format("[{}/{}]", index + 1, total);
    if (phase == RunPhase::Started) {
      if (terminal_) std::cerr << fmt::format("\r\033[K{} {} ...", position, label_(run)) << std::flush;
      runStart_ = lastLine_ = Clock::now();
      return;
    }
    if (phase == RunPhase::BetweenFrames) {
      betweenFrames(position, run);
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
      std::cerr << fmt::format("\r\033[K{} {}  {}  ETA {:.0f} s\n", position, label_(run), outcome, eta);
    else
      spdlog::info("{} {}  {}", position, label_(run), outcome);
  }

 private:
  using Clock = std::chrono::steady_clock;

  // Within a run: nothing for its first seconds, then its frames so far, every second on a
  // terminal (one line rewritten) and every 10 s in a log.
  void betweenFrames(const std::string& position, const RunRecord& run) {
    const auto now = Clock::now();
    const double running = std::chrono::duration<double>(now - runStart_).count();
    const double sinceLine = std::chrono::duration<double>(now - lastLine_).count();
    // Before its first frame the run is creating its pipelines, which say so themselves (StepProgress).
    if (running < 3 || sinceLine < (terminal_ ? 1.0 : 10.0) || (run.warmupFrames == 0 && run.frameGpuMs.empty()))
      return;
    lastLine_ = now;
    const size_t measured = run.frameGpuMs.size();
    std::string where;
    if (measured == 0) {
      where = fmt::format("warm-up, {} frame(s)", run.warmupFrames);
    } else {
      const SceneEntry& entry = config_.scenes[run.spec.scene];
      // A camera path is timed once and rendered again for its images: twice its frames.
      const std::optional<size_t> frames = entry.cameraPath     ? std::optional<size_t>(entry.cameraPath->frames)
                                           : config_.repetition.repeats ? std::optional<size_t>(*config_.repetition.repeats)
                                                                        : std::nullopt;
      const double frameSeconds = summarize(run.frameHostMs).mean * 1e-3;
      if (frames) {
        const double timedLeft = double(*frames > measured ? *frames - measured : 0) * frameSeconds;
        const double left = timedLeft + (entry.cameraPath ? double(*frames) * frameSeconds : 0.0);
        where = fmt::format("{} of {} frames, about {} left", measured, *frames, duration(left));
      } else {
        where = fmt::format("{} frames, until their cv is within {:g}% (at most {})", measured,
                            config_.repetition.maxNoise * 100, duration(config_.repetition.timeoutSeconds));
      }
    }
    const std::string line = fmt::format("{} {}: {}, {} so far", position, label_(run), where, duration(running));
    if (terminal_)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      spdlog::info("{}", line);
  }

  bool quiet_, terminal_;
  const ExperimentConfig& config_;
  RunLabels label_;
  Clock::time_point start_, runStart_, lastLine_;
  size_t done_ = 0;
};

// The files a run reads, which its --json and --md must not overwrite: the config, the resumed
// report, and each scene's glTF, environment map and reference.
std::vector<std::string> runInputs(const ExperimentConfig& config, const RunOptions& options) {
  std::vector<std::string> inputs{config.file.string()};
  if (!options.resume.empty()) inputs.push_back((fs::path(options.resume) / "report.json").string());
  for (const SceneEntry& entry : config.scenes) {
    inputs.push_back(entry.load);
    if (entry.environmentMap) inputs.push_back(entry.environmentMap->file.string());
    if (entry.reference) inputs.push_back(entry.reference->string());
  }
  return inputs;
}

int run(const GlobalOptions& global, const RunOptions& options) {
  nlohmann::json previous;
  std::optional<FolderLock> resumeLock;
  std::optional<Shard> shard;
  if (!options.resume.empty()) {
    // The folder's own config, as resolved when it started, and its shard: nothing else.
    if (!options.config.empty() || !options.overrides.empty() || !options.shard.empty() || !options.out.empty())
      throw UserError("--resume " + options.resume +
                      ": continues that folder's sweep with its own config; give no config, --set, --shard or --out");
    // Held from before the report is read: another resume must not continue what this one runs.
    if (!options.dryRun && fs::is_directory(options.resume)) resumeLock.emplace(options.resume);
    previous = readCheckedReport((fs::path(options.resume) / "report.json").string());
    if (!previous.contains("config") || !previous.contains("config_file") || !previous.contains("sweep"))
      throw UserError("--resume " + options.resume + ": its report was written by a ptbench that cannot resume it");
    const json& recorded = previous["sweep"]["shard"];
    if (recorded.is_object()) shard = Shard{recorded["index"], recorded["count"]};
  } else if (!options.shard.empty() && !(shard = parseShard(options.shard))) {
    throw UserError("--shard " + options.shard + ": expected K/N, the K-th of N parts (1 <= K <= N <= " +
                    std::to_string(maxShards) + "), such as 2/4");
  }
  const ExperimentConfig config =
      options.resume.empty()
          ? loadConfig(options.config.empty() ? defaultConfig() : fs::path(options.config), options.overrides)
          : configFromJson(previous["config"], previous["config_file"].get<std::string>());
  if (options.dryRun)
    return printPlan(config, global, shard, previous, (fs::path(options.resume) / "report.json").string(),
                     options.out.empty() ? config.output : fs::path(options.out));
  const std::vector<std::string> inputs = runInputs(config, options);
  if (!options.json.empty() && options.json != "-") {
    requireNotAnInput(options.json, inputs, "--json");
    requireOutputFolder(options.json, "--json");
  }
  if (!options.markdown.empty()) {
    requireNotAnInput(options.markdown, inputs, "--md");
    // The report is not written yet: its name, links resolved, is what --md must not repeat.
    std::error_code error;
    if (!options.json.empty() && options.json != "-" &&
        fs::weakly_canonical(fs::absolute(options.markdown), error) ==
            fs::weakly_canonical(fs::absolute(options.json), error))
      throw UserError("--md " + options.markdown + " is also --json " + options.json +
                      ": the summary would replace the report; name another file");
    requireOutputFolder(options.markdown, "--md");
  }
  // --quiet as the global -q: the long steps' progress (core/progress.h) is silenced with the rest.
  if (options.quiet) spdlog::set_level(spdlog::level::warn);
  Progress progress(options.quiet || !spdlog::should_log(spdlog::level::info), config);
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
          .planned = [&](const std::vector<RunRecord>& runs) { progress.planned(runs); },
          .progress = [&](size_t i, size_t n, const RunRecord& r, RunPhase phase) { progress(i, n, r, phase); },
          .stopRequested = [] { return InterruptGuard::signal() != 0; },
          .checkpoint = [](const ExperimentResult& partial) { writeReportFiles(partial.folder, reportJson(partial)); },
          .resumeFolder = options.resume,
          .resumeReport = previous});
  const json report = reportJson(result);
  writeReportFiles(result.folder, report);
  writeReportPage(result.folder, report);
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
                      "the others run (those that failed too), and its report is rewritten");
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
