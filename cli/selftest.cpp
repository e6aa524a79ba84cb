// `ptbench selftest`: opens the chosen device, runs one timed compute kernel and checks it.
#include "core/vk/selftest.h"

#include <fmt/format.h>

#include <iostream>

#include "cli/options.h"

namespace ptbench::cli {
namespace {

int runSelftest(const GlobalOptions& global) {
  vk::Context context(vk::ContextOptions{.validation = global.validate,
                                         .deviceSelector = global.device,
                                         .submitTimeoutSeconds = global.gpuTimeoutSeconds});
  constexpr uint32_t count = 4'000'000;  // under 65535 workgroups, the least maxComputeWorkGroupCount
  constexpr uint32_t multiplier = 2654435761u;
  const auto result = vk::runSelftestKernel(context, count, multiplier);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < count; ++i) wrong += result.values[i] != vk::selftestExpectedValue(i, multiplier);
  const double gigabytesPerSecond = count * sizeof(uint32_t) / result.gpuNs;
  std::cout << fmt::format("{}: {} elements, {} wrong, {:.3f} ms GPU ({:.1f} GB/s written)\n",
                           context.capabilities().name, count, wrong, result.gpuNs * 1e-6, gigabytesPerSecond);
  if (wrong > 0 || context.validationMessageCount() > 0) {
    std::cout << "selftest: FAILED\n";
    return 1;
  }
  std::cout << "selftest: ok\n";
  return 0;
}

}  // namespace

void addSelftestCommand(CLI::App& app, const GlobalOptions& global) {
  auto* command = app.add_subcommand("selftest", "Run one timed compute kernel on the device and check its output");
  command->callback([&global] {
    if (int code = runSelftest(global); code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace ptbench::cli
