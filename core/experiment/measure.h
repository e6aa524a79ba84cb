// How a run is measured: warm-up frames by count and by time, then timed frames back to back
// until the repetition policy (a count, or a noise target within a timeout) is met, then one
// untimed frame read back for the image and the work counts. A run along a camera path instead
// renders the path twice, in order: once timed, frame after frame, and once more after the same
// warm-up, every frame read back (docs/config.md).
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <span>

#include "core/experiment/record.h"
#include "core/integrators/integrator.h"

namespace ptbench {

// A run along a camera path: each frame's camera, and what becomes of each frame once rendered
// (its image and error kept), so that no more than one frame's image is held at a time.
struct PathFrames {
  std::span<const Camera> cameras;  // empty: the camera is fixed
  std::function<void(uint32_t frame, const FrameResult&)> frameDone;
};

// Fills `record`'s frames, stages, kernels and work; returns the read-back frame (a path's
// last), or nothing when `stop` asked to stop first. With a camera path, warm-up frames render
// its first frame, each with its own seed past the path frames', and are dropped; then frame k renders with the camera at path time k and the
// seed plus k, its previous frame's camera beside it, each frame timed once whatever the
// repetition policy says; the second pass hands each frame, read back, to `frameDone`.
std::optional<FrameResult> measure(RunRecord& record, Integrator& integrator, const RenderSettings& settings,
                                   const ExperimentConfig& config, const GpuMonitor& monitor,
                                   const std::function<bool()>& stop, const PathFrames& path = {});

// The stopping criterion: a fixed count of frames, or at least min_samples with a coefficient
// of variation within max_noise, or the timeout since `elapsedMs` began.
bool enoughFrames(const Repetition& repetition, const std::vector<double>& frames, double elapsedMs);

}  // namespace ptbench
