#include <execinfo.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <vector>

#include "gpu_test.h"

namespace ptbench::test {

CommandResult runCommand(const std::string& commandLine) {
  const std::string errFile = ::testing::TempDir() + "ptbench-stderr-" + std::to_string(::getpid());
  FILE* pipe = popen((commandLine + " 2>" + errFile).c_str(), "r");
  if (!pipe) return {-1, "", "popen failed"};
  std::string out;
  std::array<char, 4096> chunk{};
  size_t read = 0;
  while ((read = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) out.append(chunk.data(), read);
  const int status = pclose(pipe);
  std::ifstream errStream(errFile);
  std::string err((std::istreambuf_iterator<char>(errStream)), std::istreambuf_iterator<char>());
  std::remove(errFile.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, err};
}

CommandResult runPtbench(const std::string& arguments, const std::string& environment,
                         const std::string& workingDirectory) {
  return runCommand("cd '" + workingDirectory + "' && env PTBENCH_DEVICE=" + testDevice + " " + environment + " " +
                    PTBENCH_EXECUTABLE + " " + arguments);
}

namespace {

struct ValidatedContexts {
  std::map<std::vector<Backend>, std::shared_ptr<vk::Context>> byBackends;
  std::map<const vk::Context*, uint32_t> messagesWhenHandedOut;
};

ValidatedContexts& validatedContexts() {
  static ValidatedContexts contexts;
  return contexts;
}

}  // namespace

std::shared_ptr<vk::Context> validatedContext(std::vector<Backend> backends) {
  ValidatedContexts& contexts = validatedContexts();
  std::shared_ptr<vk::Context>& context = contexts.byBackends[backends];
  if (!context) context = std::make_shared<vk::Context>(validatedContextOptions(std::move(backends)));
  contexts.messagesWhenHandedOut[context.get()] = context->validationMessageCount();
  return context;
}

uint32_t validationMessagesOfThisTest(const vk::Context& context) {
  const auto& handedOut = validatedContexts().messagesWhenHandedOut;
  const auto found = handedOut.find(&context);
  return context.validationMessageCount() - (found == handedOut.end() ? 0 : found->second);
}

void releaseValidatedContexts() {
  validatedContexts() = {};
}

}  // namespace ptbench::test

namespace {

// A test process that dies of a signal (a bus error in the Vulkan driver under CI's load, once)
// leaves nothing but the signal's name in CTest's log: this prints the stack first, so that the
// log says whose frame it was (a driver's frames print as library+offset), then dies as it would.
void printStackAndDie(int signal) {
  constexpr const char header[] = "\nfatal signal in the test process; its stack:\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, header, sizeof header - 1);
  std::array<void*, 64> frames{};
  ::backtrace_symbols_fd(frames.data(), ::backtrace(frames.data(), int(frames.size())), STDERR_FILENO);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
  // backtrace() loads libgcc on first use, which is not safe inside a handler: load it now.
  std::array<void*, 1> warmUp{};
  ::backtrace(warmUp.data(), 1);
  for (int signal : {SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGABRT}) std::signal(signal, printStackAndDie);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  ptbench::test::releaseValidatedContexts();
  return status;
}
