// Ctrl-C and SIGTERM during a sweep: the first signal asks the runner to stop after the
// current frame, so that the report keeps every finished run; a second ends the process at once,
// and so does the first during a long step (core/progress.h: loading a scene, building its
// acceleration structures, creating pipelines), which would not reach the next frame for minutes.
#pragma once

namespace ptbench {

class InterruptGuard {
 public:
  // Installs the handlers for SIGINT and SIGTERM; the destructor restores the previous ones.
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal that asked to stop (SIGINT or SIGTERM), or 0.
  static int signal();
};

}  // namespace ptbench
