// Options every subcommand shares.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace ptbench::cli {

struct GlobalOptions {
  std::string device;     // --device INDEX|NAME-SUBSTRING
  bool validate = false;  // --validate: Khronos validation layer and debug messenger
  bool verbose = false;
  double gpuTimeoutSeconds = 600;  // --gpu-timeout: a submission running longer is a hung GPU
};

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

// A report.json that `run` wrote, parsed; a UserError with `exitCode` naming the file when it
// cannot be read, is not JSON or is no report (cli/compare.cpp).
nlohmann::json readReport(const std::string& path, int exitCode);

}  // namespace ptbench::cli
