#include "core/experiment/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "core/progress.h"

namespace ptbench {
namespace {

std::atomic<int> requested{0};
std::atomic<int64_t> firstAtNs{0};

int64_t nowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

void writeToStderr(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;  // nothing to do about a failed write in a signal handler
}

extern "C" void onInterrupt(int number) {
  if (requested.load() == 0) {
    firstAtNs = nowNs();
    requested = number;
    // A long step (reading a scene, building its acceleration structures or BVH, creating
    // pipelines) checks no flag and can run for minutes: stop now. No report is being written
    // during one, and reports are written whole, so the last one on disk stays valid.
    if (const char* step = StepProgress::current(); *step != '\0') {
      writeToStderr(number == SIGINT ? "\nptbench: interrupted by Ctrl-C while "
                                     : "\nptbench: interrupted by SIGTERM while ");
      writeToStderr(step);
      writeToStderr(
          ": stopped at once; a run's report keeps the runs finished before, marked incomplete (run --resume "
          "continues it)\n");
      _exit(128 + number);
    }
    return;
  }
  // One signal can arrive twice (timeout(1) signals the child and then its process group);
  // a second within half a second is that echo, not the user's second Ctrl-C.
  if (nowNs() - firstAtNs.load() < 500'000'000) return;
  // The second signal: the user means it. Die of it, as the shell expects.
  std::signal(number, SIG_DFL);
  std::raise(number);
}

struct sigaction previousInt, previousTerm;

}  // namespace

InterruptGuard::InterruptGuard() {
  requested = 0;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  action.sa_flags = SA_RESTART;  // the GPU waits and file writes in flight carry on
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previousInt);
  sigaction(SIGTERM, &action, &previousTerm);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previousInt, nullptr);
  sigaction(SIGTERM, &previousTerm, nullptr);
}

int InterruptGuard::signal() {
  return requested.load();
}

}  // namespace ptbench
