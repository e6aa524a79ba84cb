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

int run(const GlobalOptions& global, const RunOptions& options) {
  const fs::path configPath = options.config.empty() ? defaultConfig() : fs::path(options.config);
  const ExperimentConfig config = loadConfig(configPath, options.overrides);
  if (!options.json.empty() && options.json != "-") requireOutputFolder(options.json, "--json");
  if (!options.markdown.empty()) requireOutputFolder(options.markdown, "--md");
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
  command->add_option("--set", options->overrides, "override a config key: key=value (value as JSON), repeatable");
  command->add_flag("--quiet", options->quiet, "no progress output");
  command->add_option("--json", options->json, "also write the report to this file; - for stdout");
  command->add_option("--md", options->markdown, "also write the summary as a Markdown table to this file");
  command->callback([&global, options] {
    if (int code = run(global, *options); code != 0) throw CLI::RuntimeError(code);
  });
}

void addSummaryCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand("summary", "The summary table of a saved report, as text, Markdown or CSV");
  auto report = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  command->add_option("report", *report, "a report.json that `ptbench run` wrote")->required();
  command->add_option("--format", *format, "table (as `run` prints it), md (Markdown) or csv")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "md", "csv"}));
  command->callback(
      [report, format] { std::cout << reportSummary(readReport(*report, 1), *parseSummaryFormat(*format)); });
}

}  // namespace ptbench::cli
