#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>

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

}  // namespace ptbench::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
