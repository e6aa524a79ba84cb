// Options every subcommand shares.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/number_range.h"

namespace ptbench::cli {

struct GlobalOptions {
  std::string device;     // --device INDEX|NAME-SUBSTRING
  bool validate = false;  // --validate: Khronos validation layer and debug messenger
  bool verbose = false;
  double gpuTimeoutSeconds = 600;  // --gpu-timeout: a submission running longer is a hung GPU
  unsigned threads = 0;            // --threads: the software BVH build's; 0: every hardware thread
};

// --gpu-timeout: 0 (no limit) to a day; seconds as nanoseconds stay far inside 64 bits.
constexpr NumberRange gpuTimeoutRange{0, 86400};

// The check of every floating-point flag (core/number_range.h): a number, finite and within
// `range`, else a message naming the flag (CLI11 prefixes it), what it measures and what is
// accepted. --help shows the range.
inline CLI::Validator numberIn(const NumberRange& range, const std::string& what) {
  return CLI::Validator(
      [range, what](std::string& input) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(input.c_str(), &end);
        if (input.empty() || *end != '\0' || !range.contains(value))
          return "expected " + what + ", " + range.text() + ", got " + input;
        return "";
      },
      range.text());
}

void addDevicesCommand(CLI::App& app, const GlobalOptions& global);
void addSelftestCommand(CLI::App& app, const GlobalOptions& global);
void addSceneInfoCommand(CLI::App& app, const GlobalOptions& global);
void addRenderCommand(CLI::App& app, const GlobalOptions& global);
void addRunCommand(CLI::App& app, const GlobalOptions& global);
void addValidateCommand(CLI::App& app, const GlobalOptions& global);
void addCompareCommand(CLI::App& app, const GlobalOptions& global);
void addVerifyCommand(CLI::App& app, const GlobalOptions& global);
void addSummaryCommand(CLI::App& app, const GlobalOptions& global);
void addReferenceCommand(CLI::App& app, const GlobalOptions& global);
void addMergeCommand(CLI::App& app, const GlobalOptions& global);
void addReportCommand(CLI::App& app, const GlobalOptions& global);
void addFlipCommand(CLI::App& app, const GlobalOptions& global);

// A report.json that `run` wrote, or that file gzipped, parsed; a UserError naming the file with `exitCode` when it
// cannot be read, with `malformedExitCode` when it is not JSON or no report (cli/compare.cpp).
nlohmann::json readReport(const std::string& path, int exitCode, int malformedExitCode);
// readReport for summary, merge and run --resume: exit 1 when unreadable, and 65
// (exitReportMalformed) naming the file and the field when it is no report or a malformed one
// (checkReport).
nlohmann::json readCheckedReport(const std::string& path);

}  // namespace ptbench::cli
