#include "core/progress.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace ptbench {
namespace {

// How long a step runs before it reports; PTBENCH_PROGRESS_AFTER_MS overrides the second (the
// tests set 0, so that every step reports).
std::chrono::milliseconds firstReport() {
  if (const char* value = std::getenv("PTBENCH_PROGRESS_AFTER_MS")) {
    char* end = nullptr;
    const long milliseconds = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && milliseconds >= 0) return std::chrono::milliseconds(milliseconds);
  }
  return std::chrono::seconds(1);
}

constexpr std::chrono::seconds reportInterval{10};

// The outermost step's phrase, copied where a signal handler can read it without allocating.
std::atomic<int> stepsUnderWay{0};
char outermostStep[256];

}  // namespace

StepProgress::StepProgress(std::string what)
    : what_(std::move(what)),
      start_(std::chrono::steady_clock::now()),
      uncaughtExceptions_(std::uncaught_exceptions()) {
  if (stepsUnderWay.load() == 0) {
    const size_t length = std::min(what_.size(), sizeof(outermostStep) - 1);
    std::copy_n(what_.data(), length, outermostStep);
    outermostStep[length] = '\0';
  }
  stepsUnderWay.fetch_add(1);
  // No thread where nothing would be printed.
  if (spdlog::should_log(spdlog::level::info)) watcher_ = std::thread([this] { watch(); });
}

StepProgress::~StepProgress() {
  stepsUnderWay.fetch_sub(1);
  if (!watcher_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  watcher_.join();
  if (!reported_) return;
  if (std::uncaught_exceptions() > uncaughtExceptions_)
    spdlog::info("{}: stopped after {:.1f} s", what_, elapsedSeconds());
  else
    spdlog::info("{}: done in {:.1f} s", what_, elapsedSeconds());
}

const char* StepProgress::current() {
  return stepsUnderWay.load() > 0 ? outermostStep : "";
}

double StepProgress::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void StepProgress::watch() {
  std::unique_lock lock(mutex_);
  auto next = start_ + firstReport();
  while (!wake_.wait_until(lock, next, [this] { return done_; })) {
    spdlog::info("{}: {:.1f} s so far", what_, elapsedSeconds());
    reported_ = true;
    next = std::chrono::steady_clock::now() + reportInterval;
  }
}

}  // namespace ptbench
