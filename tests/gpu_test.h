// Shared by the GPU tests: a context with the validation layer on, which fails the test on
// any validation message.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/trace/registry.h"
#include "core/vk/barrier.h"
#include "core/vk/buffer.h"
#include "core/vk/context.h"

namespace ptbench::test {

// The tests' answers (ray queries present, a CPU device) are lavapipe's, so they ask for it by
// name even on a machine with a GPU.
inline constexpr const char* testDevice = "llvmpipe";

// After a test kernel: its writes to `results` copied whole into the host-visible `readback`,
// ready for the host once the submission's fence has signalled.
inline void recordCopyToHost(VkCommandBuffer commands, const vk::Buffer& results, const vk::Buffer& readback) {
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
  const VkBufferCopy region{.size = results.bytes()};
  vkCmdCopyBuffer(commands, results.get(), readback.get(), 1, &region);
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

// What every validated test context is: lavapipe with the validation layer on, with `backends`.
inline vk::ContextOptions validatedContextOptions(std::vector<Backend> backends) {
  return {.validation = true, .deviceSelector = testDevice, .backends = trace::deviceNeeds(backends)};
}

// A context of validatedContextOptions(backends): one per set of backends in the process, shared
// by its tests. CTest runs each suite of the GPU tests in one process (tests/CMakeLists.txt), so
// that a pipeline its tests have in common is compiled once (lavapipe spends 0.3-1 s on each; the
// context keeps them, docs/DESIGN.md "Kernels").
std::shared_ptr<vk::Context> validatedContext(std::vector<Backend> backends = {});
// The validation messages `context` has reported since validatedContext last handed it out:
// the current test's.
uint32_t validationMessagesOfThisTest(const vk::Context& context);
// Destroys the shared contexts; main does, before the process's static objects go.
void releaseValidatedContexts();

class GpuTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (context) {
      EXPECT_EQ(validationMessagesOfThisTest(*context), 0u) << "validation layer messages (see log above)";
    }
  }
  std::shared_ptr<vk::Context> context;
};

struct CommandResult {
  int exitCode;
  std::string out;  // stdout
  std::string err;  // stderr
  std::string all() const { return out + err; }
};

// Runs a shell command line, capturing its stdout, stderr and exit code.
CommandResult runCommand(const std::string& commandLine);

// Runs the built ptbench on lavapipe (PTBENCH_DEVICE) with the given arguments (a shell
// fragment), after an optional environment prefix such as "VK_DRIVER_FILES=/x.json".
CommandResult runPtbench(const std::string& arguments, const std::string& environment = "",
                         const std::string& workingDirectory = ".");

}  // namespace ptbench::test
