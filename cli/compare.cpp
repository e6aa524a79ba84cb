// `ptbench compare BASE NEW`: ratios per run and stage; exit 0, 1 (regression) or 2 (undecided).
#include "core/experiment/compare.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/config.h"

namespace ptbench::cli {

nlohmann::json readReport(const std::string& path, int exitCode) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw UserError(path + ": is a folder; give its report.json", exitCode);
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot read the report", exitCode);
  nlohmann::json report = parseJsonRefusingDuplicateKeys(in, path, exitCode);
  if (!report.is_object() || !report.contains("runs") || !report["runs"].is_array())
    throw UserError(path + ": not a ptbench report (no \"runs\" list)", exitCode);
  return report;
}

void addCompareCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand("compare", "Compare two reports; exit 1 on a regression beyond the threshold");
  struct Options {
    std::string base, next, threshold = "5%", metric = "median";
  };
  auto options = std::make_shared<Options>();
  command->add_option("base", options->base, "baseline report.json")->required();
  command->add_option("new", options->next, "new report.json")->required();
  command->add_option("--threshold", options->threshold, "slowdown that counts as a regression (5% or 0.05)")
      ->capture_default_str();
  command->add_option("--metric", options->metric, "median, mean or min of the frame GPU time")->capture_default_str();
  command->callback([options] {
    CompareOptions compareOptions{.metric = options->metric};
    try {
      compareOptions.threshold = parseThreshold(options->threshold);
      const auto base = readReport(options->base, compareExitUndecided);
      const auto next = readReport(options->next, compareExitUndecided);
      CompareResult result;
      try {
        result = compareReports(base, next, compareOptions);
      } catch (const nlohmann::json::exception& error) {
        throw UserError(options->base + " or " + options->next + ": a field is missing or of the wrong type (" +
                        error.what() + "); is it a ptbench report?");
      }
      std::cout << result.table;
      if (result.exitCode != 0) throw CLI::RuntimeError(result.exitCode);
    } catch (const UserError& error) {
      // Input a comparison cannot judge is "undecided", never "passed".
      throw UserError(error.what(), compareExitUndecided);
    }
  });
}

}  // namespace ptbench::cli
