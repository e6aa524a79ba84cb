// What every integrator's frame shares: the parameters all its kernels read, and its times.
#pragma once
#include <chrono>
#include <functional>
#include <string>

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

// A timed stage whose successor reads what it wrote, its launch size included: `body` between
// the timer's timestamps, then a barrier from `shaderStages`' writes to their reads and to the
// indirect launches. The barrier sits outside the timed scope: its cost is the frame's
// overhead, not a stage's.
void timedStage(vk::StageTimer& timer, VkCommandBuffer commands, VkPipelineStageFlags2 shaderStages, Stage stage,
                const std::function<void()>& body, uint32_t step = 0, uint32_t launches = 1);

// Refuses, before any GPU work, state that would take more than 3/4 of the device's memory
// (some drivers, lavapipe, take the host down rather than fail): a UserError naming `what`
// ("the wavefront's state for a pool of N paths") and the `remedy`.
void requireDeviceMemory(const vk::Context& context, uint64_t bytes, const std::string& what,
                         const std::string& remedy);

// A frame's result as far as its timing goes, once its last submission's fence has signalled:
// the GPU time from the timer's first to last timestamp, its stages and launches, and the host's
// time since `submitted`.
FrameResult frameTimes(const vk::StageTimer& timer, std::chrono::steady_clock::time_point submitted);

}  // namespace ptbench
