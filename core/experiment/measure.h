// How a run is measured: warm-up frames by count and by time, then timed frames back to back
// until the repetition policy (a count, or a noise target within a timeout) is met, then one
// untimed frame read back for the image and the work counts.
#pragma once
#include <chrono>
#include <functional>
#include <optional>

#include "core/experiment/record.h"
#include "core/integrators/integrator.h"

namespace ptbench {

// Fills `record`'s frames, stages, kernels and work; returns the read-back frame, or nothing
// when `stop` asked to stop first.
std::optional<FrameResult> measure(RunRecord& record, Integrator& integrator, const RenderSettings& settings,
                                   const ExperimentConfig& config, const GpuMonitor& monitor,
                                   const std::function<bool()>& stop);

// Host milliseconds since `start`, on the steady clock the runner and measurement share.
double millisecondsSince(std::chrono::steady_clock::time_point start);

// The stopping criterion: a fixed count of frames, or at least min_samples with a coefficient
// of variation within max_noise, or the timeout since `elapsedMs` began.
bool enoughFrames(const Repetition& repetition, const std::vector<double>& frames, double elapsedMs);

}  // namespace ptbench
