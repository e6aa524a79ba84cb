// `ptbench validate CONFIG...`: the config checks of `run`, and nothing else.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/config.h"
#include "core/experiment/sweep.h"

namespace ptbench::cli {
namespace {

// A JSON Schema, such as the configs/schema.json that `validate configs/*.json` names with the
// configs: its "$schema" is a json-schema.org meta-schema's URI, where a config's names the
// config schema (./schema.json). A file that does not parse is left for loadConfig to report.
bool isJsonSchema(const std::string& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return false;  // loadConfig names what it is
  std::ifstream in(file);
  try {
    const nlohmann::json document = parseJsonRefusingDuplicateKeys(in, file, exitConfigInvalid);
    const auto schema = document.is_object() ? document.find("$schema") : document.end();
    return schema != document.end() && schema->is_string() &&
           schema->get<std::string>().find("://json-schema.org/") != std::string::npos;
  } catch (const UserError&) {
    return false;
  }
}

}  // namespace

void addValidateCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand("validate", "Check experiment configs without running them");
  auto configs = std::make_shared<std::vector<std::string>>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  command
      ->add_option("configs", *configs,
                   "experiment configs (a JSON Schema among them, such as configs/schema.json, is skipped)")
      ->required();
  command->add_option("--set", *overrides, "override a config key: key=value, as for run");
  command->callback([configs, overrides] {
    int worst = 0;
    for (const auto& file : *configs) {
      if (isJsonSchema(file)) {
        std::cout << fmt::format("{}: a JSON Schema, not a config; skipped\n", file);
        continue;
      }
      try {
        const auto config = loadConfig(file, *overrides);
        std::cout << fmt::format("{}: ok, {} run(s) before backends are resolved\n", file, expandSweep(config).size());
      } catch (const UserError& error) {
        std::cerr << "ptbench: error: " << error.what() << "\n";
        worst = std::max(worst, error.exitCode());
      }
    }
    if (worst != 0) throw CLI::RuntimeError(worst);
  });
}

}  // namespace ptbench::cli
