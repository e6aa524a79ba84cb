// Progress of a long step on stderr (spdlog's info level, which --quiet silences): nothing for a
// step that ends within a second; past that, a line when it has run a second, one every 10 s
// after, and one when it ends, each with the time so far. Loading and preparing a large scene
// (glTF parse, vertex processing, acceleration structures, the software BVH, pipelines) takes
// minutes on some machines, and silence then looks like a hang.
#pragma once
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

namespace ptbench {

class StepProgress {
 public:
  // `what`: the step, as a phrase ("building the software BVH of scene.glb").
  explicit StepProgress(std::string what);
  ~StepProgress();
  StepProgress(const StepProgress&) = delete;
  StepProgress& operator=(const StepProgress&) = delete;

  // The outermost step under way ("reading scene.glb"), or "" when none is: a long step checks no
  // stop flag, so a Ctrl-C during one stops the process at once (core/experiment/interrupt.h).
  // Safe to call from a signal handler.
  static const char* current();

 private:
  void watch();
  double elapsedSeconds() const;

  std::string what_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int uncaughtExceptions_;  // at construction: more at destruction means the step failed
  bool done_ = false;
  bool reported_ = false;
  std::thread watcher_;
};

}  // namespace ptbench
