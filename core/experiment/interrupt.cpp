#include "core/experiment/interrupt.h"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <ctime>

namespace ptbench {
namespace {

std::atomic<int> requested{0};
std::atomic<int64_t> firstAtNs{0};

int64_t nowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

extern "C" void onInterrupt(int number) {
  if (requested.load() == 0) {
    firstAtNs = nowNs();
    requested = number;
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
