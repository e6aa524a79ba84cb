// What every integrator's frame shares: the parameters all its kernels read, and its times.
#pragma once
#include <chrono>

#include "core/integrators/film.h"
#include "core/integrators/integrator.h"
#include "core/scene/gpu_scene.h"
#include "core/vk/timestamps.h"
#include "shared/render.h"

namespace ptbench {

// The camera as the kernels read it (shaders/common/camera.glsl turns it into rays).
gpu::CameraParams cameraParams(const RenderSettings& settings);

// Fills the frame parameters every kernel reads; the scene's addresses are those `target` traces.
void fillFrameParams(gpu::FrameParams& params, const vk::Context& context, const GpuScene& scene, TraceTarget target,
                     const Film& film, const RenderSettings& settings);

// A frame's result as far as its timing goes, once its last submission's fence has signalled:
// the GPU time from the timer's first to last timestamp, its stages and launches, and the host's
// time since `submitted`.
FrameResult frameTimes(const vk::StageTimer& timer, std::chrono::steady_clock::time_point submitted);

}  // namespace ptbench
