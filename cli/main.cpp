#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/version.h"
#include "core/vk/check.h"

namespace {

// The first word on the command line that is neither an option, an option's value nor a
// subcommand: what a user meant as a command. Empty when there is none.
std::string unknownCommand(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.rfind("-", 0) == 0) {
      // A global option that takes a value (--device X) owns the next word, unless given as --option=X.
      const CLI::Option* option = app.get_option_no_throw(word);
      if (option && option->get_expected_min() > 0 && word.find('=') == std::string::npos) ++i;
      continue;
    }
    try {
      app.get_subcommand(word);
      return "";
    } catch (const CLI::OptionNotFound&) {
      return word;
    }
  }
  return "";
}

int runCommandLine(int argc, char** argv) {
  using namespace ptbench;
  // Logs go to stderr, so that stdout carries only results (tables, JSON).
  spdlog::set_default_logger(spdlog::stderr_color_mt("ptbench"));
  spdlog::set_pattern("%^%l%$: %v");

  CLI::App app{"ptbench: megakernel vs wavefront GPU path tracing benchmark", "ptbench"};
  app.set_version_flag("--version", std::string(version));
  app.require_subcommand(1);
  // Global options may follow the command too (ptbench run CONFIG --device 1): a command hands
  // what it does not know to ptbench's own options. run's --quiet stays run's (it does what -q does).
  app.fallthrough();
  cli::GlobalOptions global;
  app.add_option("--device", global.device, "Vulkan device: index or part of its name (see `ptbench devices`)")
      ->envname("PTBENCH_DEVICE");
  app.add_flag("--validate", global.validate, "Enable the Khronos validation layer");
  app.add_option("--gpu-timeout", global.gpuTimeoutSeconds,
                 "Seconds one GPU submission (about one frame) may run before the GPU is given up as hung; 0: "
                 "no limit")
      ->check(cli::numberIn(cli::gpuTimeoutRange, "seconds (0: no limit)"))
      ->capture_default_str();
  app.add_option("--threads", global.threads,
                 "Threads that load a scene's meshes and build its software BVH (default: every hardware thread of "
                 "this machine)")
      ->check(CLI::Range(1u, 4096u));
  app.add_flag("-v,--verbose", global.verbose, "Log more");
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet,
               "Log only warnings and errors: no progress (of runs, or of steps that take over a second)");
  app.parse_complete_callback([&] {
    if (global.verbose) spdlog::set_level(spdlog::level::debug);
    if (quiet) spdlog::set_level(spdlog::level::warn);
  });
  cli::addRunCommand(app, global);
  cli::addValidateCommand(app, global);
  cli::addCompareCommand(app, global);
  cli::addRenderCommand(app, global);
  cli::addDevicesCommand(app, global);
  cli::addSelftestCommand(app, global);
  cli::addSceneInfoCommand(app, global);
  cli::addVerifyCommand(app, global);
  cli::addSummaryCommand(app, global);
  cli::addReferenceCommand(app, global);
  cli::addMergeCommand(app, global);
  cli::addReportCommand(app, global);
  cli::addFlipCommand(app, global);
  // Set after the commands are added, so that their own --help does not inherit it.
  app.footer(
      "Global options go before or after the command: ptbench --device 1 run CONFIG, or ptbench run "
      "CONFIG --device 1.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand's own exit code (run, validate, compare)
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    if (const std::string unknown = unknownCommand(app, argc, argv); !unknown.empty()) {
      std::string commands;
      for (const CLI::App* command : app.get_subcommands({}))
        commands += (commands.empty() ? "" : ", ") + command->get_name();
      std::cerr << "ptbench: error: unknown command '" << unknown << "'; the commands are " << commands << "\n";
      return 1;
    }
    // --help and --version exit 0; every mistake on the command line exits 1, as docs/cli.md says.
    return app.exit(e) == 0 ? 0 : 1;
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

// What was printed must have reached standard output: a full disk or a closed pipe is an
// error (exit 1), never a silent success.
int flushedStandardOutput(int code) {
  try {
    ptbench::flushStandardOutput();
  } catch (const ptbench::UserError& e) {
    std::cerr << "ptbench: error: " << e.what() << "\n";
    return code == 0 ? e.exitCode() : code;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe or FIFO (EPIPE) and a file-size limit (EFBIG) are write errors that name what
  // was written, not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  const int code = flushedStandardOutput(runCommandLine(argc, argv));
  if (ptbench::vk::deviceAbandoned()) {
    // The GPU may still be running the submission that timed out: leave at once, without the
    // static destructors and driver teardown that could crash under it. Reports are written.
    std::cerr.flush();
    std::_Exit(code);
  }
  return code;
}
