// A user's mistake, one of the three kinds of failure (STYLE.md, rule 7); Vulkan errors are
// vk::VulkanError (core/vk/check.h), broken invariants std::logic_error.
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

}  // namespace ptbench
