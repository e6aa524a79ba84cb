// `ptbench compare BASE NEW`: runs matched by their parameters, a verdict and ratios per run and
// stage, a summary line for CI logs; exit 0, 1 (regression) or 2 (undecided).
#include "core/experiment/compare.h"

#include <unistd.h>
#include <zlib.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/config.h"
#include "core/experiment/html_report.h"
#include "core/experiment/report.h"
#include "core/input_file.h"

namespace ptbench::cli {

namespace {

// Far above any sweep's report (the largest shipped config's is a few megabytes): a gzipped file
// that inflates past it is refused rather than filling memory.
constexpr size_t maxReportBytes = size_t(1) << 30;

// The report's text, as run wrote it or gzipped as a published study keeps it (report.json.gz):
// zlib reads a file that is not gzipped as it is.
std::string readReportText(const std::string& path, int exitCode, int malformedExitCode) {
  // gzip's reader reads plain JSON as it is.
  const int fd = openInput(path, "the report", exitCode);
  gzFile file = gzdopen(fd, "rb");
  if (!file) {
    ::close(fd);
    throw UserError(path + ": cannot read the report", exitCode);
  }
  std::string text;
  std::vector<char> buffer(size_t(1) << 16);
  int read = 0;
  while ((read = gzread(file, buffer.data(), unsigned(buffer.size()))) > 0) {
    text.append(buffer.data(), size_t(read));
    if (text.size() > maxReportBytes) {
      gzclose(file);
      throw UserError(path + ": inflates to over " + std::to_string(maxReportBytes >> 20) +
                          " MiB, more than any report; is it one?",
                      malformedExitCode);
    }
  }
  int code = Z_OK;
  const std::string why = read < 0 ? gzerror(file, &code) : "";
  gzclose(file);
  if (read < 0)
    throw UserError(path + ": cannot read the report: " + why + " (a truncated or damaged gzip file?)",
                    code == Z_ERRNO ? exitCode : malformedExitCode);
  return text;
}

}  // namespace

nlohmann::json readReport(const std::string& path, int exitCode, int malformedExitCode) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw UserError(path + ": is a folder; give its report.json", exitCode);
  nlohmann::json report =
      parseJsonRefusingDuplicateKeys(readReportText(path, exitCode, malformedExitCode), path, malformedExitCode);
  if (!report.is_object() || !report.contains("runs") || !report["runs"].is_array())
    throw UserError(path + ": not a ptbench report (no \"runs\" list)", malformedExitCode);
  return report;
}

nlohmann::json readCheckedReport(const std::string& path) {
  nlohmann::json report = readReport(path, 1, exitReportMalformed);
  checkReport(report, path);
  return report;
}

void addCompareCommand(CLI::App& app, const GlobalOptions&) {
  auto* command =
      app.add_subcommand("compare",
                         "Compare two reports; exit 1 on a regression beyond the threshold and the noise, 2 when "
                         "it cannot decide");
  command->footer(
      "Runs are matched by their parameters (scene, integrator and options, backend and its options, size, spp, "
      "depths, seed, sampler, counters, timing), never by their place or id. Each gets a verdict from every frame of "
      "both runs: the Hodges-Lehmann estimate of new/base and its 99% Mann-Whitney interval. REGRESSED where the "
      "interval lies wholly above 1 + threshold, faster where wholly below 1 - threshold, unsure where it reaches "
      "above 1 + threshold without lying there or a side has fewer than 5 frames, same otherwise, missing where a "
      "run is absent, failed or interrupted on one side. Reports measured on a CPU implementation (lavapipe) are "
      "never judged: UNDECIDED. The last line is 'compare: verdict OK|REGRESSION|UNDECIDED (...)'. Exit 0: no "
      "regression; 1: a regression; 2: undecided (a run missing or unsure, a CPU device, a report without runs: "
      "nothing to compare, or a report that cannot be read).");
  struct Options {
    std::string base, next, threshold = "3%", metric = "median", html;
    bool runsOnly = false;
  };
  auto options = std::make_shared<Options>();
  command->add_option("base", options->base, "baseline report.json")->required();
  command->add_option("new", options->next, "new report.json")->required();
  command
      ->add_option("--threshold", options->threshold,
                   "slowdown that counts as a regression (the whole 99% interval beyond it): more than 0, up to 10 "
                   "(1000%); 3% or 0.03")
      ->capture_default_str();
  command->add_option("--metric", options->metric,
                      "median, mean or min of the frame GPU time, as the table prints it (the verdict reads every "
                      "frame)")->capture_default_str();
  command->add_flag("--runs-only", options->runsOnly, "one line per run: no overhead, stage or bounce lines");
  command->add_option("--html", options->html,
                      "also write the comparison as an HTML page (each run's ratio, interval and verdict, then the new "
                      "report's page)");
  command->callback([options] {
    CompareOptions compareOptions{.metric = options->metric, .runsOnly = options->runsOnly};
    try {
      if (!options->html.empty()) {
        requireNotAnInput(options->html, std::array{options->base, options->next}, "--html");
        requireOutputFolder(options->html, "--html");
      }
      compareOptions.threshold = parseThreshold(options->threshold);
      const auto base = readReport(options->base, compareExitUndecided, compareExitUndecided);
      const auto next = readReport(options->next, compareExitUndecided, compareExitUndecided);
      CompareResult result;
      try {
        result = compareReports(base, next, compareOptions);
      } catch (const nlohmann::json::exception& error) {
        throw UserError(options->base + " or " + options->next + ": a field is missing or of the wrong type (" +
                        error.what() + "); is it a ptbench report?");
      }
      std::cout << result.table;
      if (!options->html.empty()) {
        const HtmlOptions html{.out = options->html};
        writeFileAtomically(options->html,
                            comparePage({base, options->base}, {next, options->next}, result, compareOptions, html));
      }
      if (result.exitCode != 0) throw CLI::RuntimeError(result.exitCode);
    } catch (const UserError& error) {
      // Input a comparison cannot judge is "undecided", never "passed".
      throw UserError(error.what(), compareExitUndecided);
    }
  });
}

}  // namespace ptbench::cli
