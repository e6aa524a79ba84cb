#include "core/progress.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ptbench {
namespace {

// A step past its threshold reports its time, then "done", or "stopped" when it ends by an
// exception; below it, nothing.
TEST(StepProgressLog, ReportsDoneOrStoppedAndNothingForAQuickStep) {
  std::ostringstream log;
  auto logger =
      std::make_shared<spdlog::logger>("progress-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  const auto previous = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  setenv("PTBENCH_PROGRESS_AFTER_MS", "0", 1);
  {
    const StepProgress step("a finished step");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  try {
    const StepProgress step("a failed step");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    throw std::runtime_error("no");
  } catch (const std::runtime_error&) {
  }
  unsetenv("PTBENCH_PROGRESS_AFTER_MS");
  { const StepProgress step("a quick step"); }
  spdlog::set_default_logger(previous);
  const std::string text = log.str();
  EXPECT_NE(text.find("a finished step: done in"), std::string::npos) << text;
  EXPECT_NE(text.find("a failed step: stopped after"), std::string::npos) << text;
  EXPECT_EQ(text.find("a failed step: done"), std::string::npos) << text;
  EXPECT_EQ(text.find("a quick step"), std::string::npos) << text;
}

}  // namespace
}  // namespace ptbench
