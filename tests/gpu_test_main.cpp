#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "gpu_test.h"

namespace ptbench::test {

CommandResult runPtbench(const std::string& arguments, const std::string& environment) {
  const std::string command = "env " + environment + " " + PTBENCH_EXECUTABLE + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> chunk{};
  size_t read = 0;
  while ((read = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) output.append(chunk.data(), read);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace ptbench::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
