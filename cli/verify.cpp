// `ptbench verify`: renders the analytic scenes with every integrator and backend the device
// has and checks each image against its known answer (core/verify/).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/device_json.h"
#include "core/experiment/report.h"
#include "core/trace/registry.h"
#include "core/verify/verification.h"

namespace ptbench::cli {
namespace {

using nlohmann::json;

// The exit code when a check fails (docs/cli.md, exit codes): apart from 1, so that a script can
// tell a wrong image from a missing device or a bad option.
constexpr int verifyFailedExitCode = 3;

struct VerifyOptions {
  std::vector<std::string> integrators;  // empty: every one
  std::vector<std::string> backends;     // empty: every one
  bool quick = false;
  uint32_t samplesPerPixel = 0;  // 0: the budget's
  std::string json;              // a file, or - for stdout
};

std::string tableHeader() {
  return fmt::format("{:<34} {:<16} {:<9} {:>9} {:>9} {:>9} {:>11} {:>7}  {}\n", "case", "integrator", "backend",
                     "expected", "measured", "tolerance", "regions off", "invalid", "result");
}

std::string tableRow(const verify::CaseResult& result) {
  const verify::MeanCheck& image = result.check.image;
  const std::string verdict = result.passed() ? "pass" : "FAIL: " + result.problems();
  if (!result.error.empty())
    return fmt::format("{:<34} {:<16} {:<9} {:>9} {:>9} {:>9} {:>11} {:>7}  {}\n", result.caseName,
                       integratorName(result.combination.integrator), backendName(result.combination.backend), "-", "-",
                       "-", "-", "-", verdict);
  return fmt::format("{:<34} {:<16} {:<9} {:>9.5f} {:>9.5f} {:>9.5f} {:>11} {:>7}  {}\n", result.caseName,
                     integratorName(result.combination.integrator), backendName(result.combination.backend),
                     image.expected, image.measured, image.tolerance,
                     result.check.regions.empty()
                         ? std::string("-")
                         : fmt::format("{}/{}", result.check.regionsOff(), result.check.regions.size()),
                     result.check.invalidSamples, verdict);
}

std::string skippedRow(const verify::SkippedCombination& skipped) {
  return fmt::format("{:<34} {:<16} {:<9} skipped: {}\n", "(every case)",
                     integratorName(skipped.combination.integrator), backendName(skipped.combination.backend),
                     skipped.reason);
}

json meanCheckJson(const verify::MeanCheck& check) {
  return {{"region", check.region},
          {"pixels", check.pixels},
          {"expected_mean", check.expected},
          {"measured_mean", check.measured},
          {"standard_error", check.standardError},
          {"degrees_of_freedom", check.degreesOfFreedom},
          {"standard_errors", check.standardErrors},
          {"tolerance", check.tolerance},
          {"pass", check.passed()}};
}

json resultJson(const verify::CaseResult& result, const verify::AnalyticCase& analyticCase) {
  json out = {{"case", result.caseName},
              {"scene", analyticCase.scene},
              {"integrator", integratorName(result.combination.integrator)},
              {"backend", backendName(result.combination.backend)},
              {"width", analyticCase.settings.width},
              {"height", analyticCase.settings.height},
              {"samples_per_pixel", analyticCase.settings.samplesPerPixel},
              {"max_depth", analyticCase.settings.maxDepth},
              {"tolerance_rule",
               {{"standard_errors", analyticCase.tolerance.standardErrors},
                {"relative", analyticCase.tolerance.relative},
                {"absolute", analyticCase.tolerance.absolute}}},
              {"validation_messages", result.validationMessages},
              {"error", result.error},
              {"pass", result.passed()},
              {"problems", result.problems()}};
  if (!result.error.empty()) return out;
  // The whole image's check at the top level, the regions' beside it.
  out.update(meanCheckJson(result.check.image));
  out.erase("region");
  out["invalid_samples"] = result.check.invalidSamples;
  json regions = json::array();
  for (const auto& region : result.check.regions) regions.push_back(meanCheckJson(region));
  out["regions"] = regions;
  out["pass"] = result.passed();
  return out;
}

// Every integrator and backend, or those the options name.
std::vector<verify::Combination> chosenCombinations(const VerifyOptions& options) {
  for (const auto& name : options.integrators) {
    const auto integrator = parseIntegrator(name);
    if (integrator && !isPathTracer(*integrator))
      throw UserError("--integrator " + name +
                      ": raycast traces rays without shading and has no known answers to check; use " +
                      integratorNameList(pathTracers));
    if (!integrator)
      throw UserError("--integrator " + name + ": unknown integrator; use " + integratorNameList(pathTracers));
  }
  for (const auto& name : options.backends)
    if (!parseBackend(name))
      throw UserError("--backend " + name + ": unknown backend; use " + trace::backendNameList(" or "));
  const auto chosen = [](const std::vector<std::string>& names, std::string_view name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<verify::Combination> combinations;
  for (const verify::Combination& c : verify::everyCombination())
    if (chosen(options.integrators, integratorName(c.integrator)) && chosen(options.backends, backendName(c.backend)))
      combinations.push_back(c);
  return combinations;
}

int runVerify(const GlobalOptions& global, const VerifyOptions& options) {
  const std::vector<verify::Combination> combinations = chosenCombinations(options);
  if (!options.json.empty() && options.json != "-") requireOutputFolder(options.json, "--json");
  verify::CaseBudget budget = options.quick ? verify::quickBudget : verify::CaseBudget{};
  if (options.samplesPerPixel > 0) budget.samplesPerPixel = options.samplesPerPixel;

  const std::vector<verify::AnalyticCase> cases = verify::analyticCases(budget);
  for (const verify::AnalyticCase& analyticCase : cases)
    if (const uint32_t minimum = verify::minimumSamplesPerPixel(analyticCase);
        analyticCase.settings.samplesPerPixel < minimum)
      throw UserError(fmt::format("--spp {}: the case \"{}\" cannot estimate its noise from fewer than {} samples "
                                  "per pixel; use --spp {} or more",
                                  budget.samplesPerPixel, analyticCase.name, minimum, minimum),
                      2);
  const auto start = std::chrono::steady_clock::now();
  const vk::DeviceCapabilities device = vk::selectDevice(global.device);
  vk::Context context(vk::ContextOptions{.validation = global.validate,
                                         .deviceSelector = global.device,
                                         .backends = trace::deviceNeeds(trace::supportedBackends(device))});

  // The table goes to stdout row by row as the cases finish, or to stderr when stdout carries JSON.
  std::ostream& table = options.json == "-" ? std::cerr : std::cout;
  table << fmt::format("ptbench verify on {}: {} cases, {}x{} furnaces at {} spp\n", context.capabilities().name,
                       cases.size(), budget.resolution, budget.resolution, budget.samplesPerPixel)
        << tableHeader() << std::flush;
  const verify::Verification verification = verify::verifyCases(
      context, cases, combinations, [&](const verify::CaseResult& result) { table << tableRow(result) << std::flush; });
  for (const auto& skipped : verification.skipped) table << skippedRow(skipped);
  const auto failed = std::count_if(verification.results.begin(), verification.results.end(),
                                    [](const verify::CaseResult& r) { return !r.passed(); });
  // Validation messages that no case caused (creating the device, say) fail the run as well.
  uint32_t caseMessages = 0;
  for (const auto& result : verification.results) caseMessages += result.validationMessages;
  const uint32_t otherMessages = context.validationMessageCount() - caseMessages;
  if (otherMessages > 0) table << otherMessages << " validation message(s) outside the cases (see above)\n";
  const bool passed = verification.passed() && otherMessages == 0;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  table << fmt::format("verify: {} passed, {} failed, {} skipped in {:.1f} s: {}\n",
                       verification.results.size() - size_t(failed), failed, verification.skipped.size(), seconds,
                       passed ? "ok" : "FAILED");

  if (!options.json.empty()) {
    json results = json::array();
    for (const auto& result : verification.results) {
      const auto analyticCase = std::find_if(cases.begin(), cases.end(),
                                             [&](const verify::AnalyticCase& c) { return c.name == result.caseName; });
      results.push_back(resultJson(result, *analyticCase));
    }
    json skipped = json::array();
    for (const auto& s : verification.skipped)
      skipped.push_back({{"integrator", integratorName(s.combination.integrator)},
                         {"backend", backendName(s.combination.backend)},
                         {"reason", s.reason}});
    const json report = {{"schema_version", 1},
                         {"tool", toolJson()},
                         {"device", deviceJson(context.capabilities())},
                         {"validation", global.validate},
                         {"validation_messages_outside_cases", otherMessages},
                         {"passed", passed},
                         {"seconds", seconds},
                         {"results", results},
                         {"skipped", skipped}};
    if (options.json == "-")
      std::cout << report.dump(2) << "\n";
    else
      writeFileAtomically(options.json, report.dump(2) + "\n");
  }
  if (verification.results.empty())
    throw UserError(context.capabilities().name +
                    " runs none of the chosen integrators and backends: each was skipped (see the table)");
  return passed ? 0 : verifyFailedExitCode;
}

}  // namespace

void addVerifyCommand(CLI::App& app, const GlobalOptions& global) {
  auto* command = app.add_subcommand(
      "verify", "Render scenes with known answers with every integrator and backend; exit 3 if any check fails");
  auto options = std::make_shared<VerifyOptions>();
  command->add_option("--integrator", options->integrators,
                      "only this integrator (" + integratorNameList(pathTracers, ", ") + "); repeatable");
  command->add_option("--backend", options->backends,
                      "only this backend (" + trace::backendNameList(", ") + "); repeatable");
  command->add_flag("--quick", options->quick,
                    "16x16 furnaces at 64 spp instead of 32x32 at 256: for CPU implementations such as lavapipe");
  command
      ->add_option(
          "--spp", options->samplesPerPixel,
          "samples per pixel of the furnaces and the emissive sphere (more narrow the tolerances, fewer widen them)")
      ->check(CLI::Range(1u, 1u << 16));
  command->add_option("--json", options->json,
                      "also write the results to this file; - for stdout (the table then goes to stderr)");
  command->callback([&global, options] {
    if (int code = runVerify(global, *options); code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace ptbench::cli
