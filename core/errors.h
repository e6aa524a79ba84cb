// The three kinds of failure (STYLE.md, rule 7) and how each is carried.
#pragma once
#include <stdexcept>
#include <string>

namespace ptbench {

// A user's mistake or a missing prerequisite: one clear sentence naming the file, key or
// flag and what would be accepted. The CLI prints it and exits non-zero, without a trace.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message, int exitCode = 1) : std::runtime_error(message), exitCode_(exitCode) {}
  int exitCode() const { return exitCode_; }

 private:
  int exitCode_;
};

// A broken invariant: prints both values.
#define PTBENCH_CHECK_EQ(a, b)                                                                           \
  do {                                                                                                   \
    if (!((a) == (b)))                                                                                   \
      throw std::logic_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " +             \
                             #a " == " #b " failed: " + std::to_string(a) + " vs " + std::to_string(b)); \
  } while (0)

}  // namespace ptbench
