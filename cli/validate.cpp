// `ptbench validate CONFIG...`: the config checks of `run`, and nothing else.
#include <fmt/format.h>

#include <iostream>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/config.h"

namespace ptbench::cli {

void addValidateCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand("validate", "Check experiment configs without running them");
  auto configs = std::make_shared<std::vector<std::string>>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  command->add_option("configs", *configs, "experiment configs")->required();
  command->add_option("--set", *overrides, "override a config key: key=value, as for run");
  command->callback([configs, overrides] {
    int worst = 0;
    for (const auto& file : *configs) {
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
