#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/options.h"
#include "core/errors.h"
#include "core/version.h"
#include "core/vk/check.h"

int main(int argc, char** argv) {
  using namespace ptbench;
  // Logs go to stderr, so that stdout carries only results (tables, JSON).
  spdlog::set_default_logger(spdlog::stderr_color_mt("ptbench"));
  spdlog::set_pattern("%^%l%$: %v");

  CLI::App app{"ptbench: megakernel vs wavefront GPU path tracing benchmark", "ptbench"};
  app.set_version_flag("--version", std::string(version));
  app.require_subcommand(1);
  cli::GlobalOptions global;
  app.add_option("--device", global.device, "Vulkan device: index or part of its name (see `ptbench devices`)")
      ->envname("PTBENCH_DEVICE");
  app.add_flag("--validate", global.validate, "Enable the Khronos validation layer");
  app.add_flag("-v,--verbose", global.verbose, "Log more");
  app.parse_complete_callback([&] {
    if (global.verbose) spdlog::set_level(spdlog::level::debug);
  });
  cli::addRunCommand(app, global);
  cli::addValidateCommand(app, global);
  cli::addCompareCommand(app, global);
  cli::addRenderCommand(app, global);
  cli::addDevicesCommand(app, global);
  cli::addSelftestCommand(app, global);
  cli::addSceneInfoCommand(app, global);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const UserError& e) {
    std::cerr << "ptbench: error: " << e.what() << "\n";
    return e.exitCode();
  } catch (const vk::VulkanError& e) {
    std::cerr << "ptbench: Vulkan error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ptbench: internal error: " << e.what() << "\n";
    return 70;
  }
  return 0;
}
