// What every integrator's frame shares: its recording around the stages, the parameters all its
// kernels read, its times, and the arena its state lives in.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "core/integrators/film.h"
#include "core/integrators/integrator.h"
#include "core/scene/gpu_scene.h"
#include "core/vk/buffer.h"
#include "core/vk/timestamps.h"
#include "shared/render.h"

namespace ptbench {

// The camera as the kernels read it (shaders/common/camera.glsl turns it into rays).
gpu::CameraParams cameraParams(const RenderSettings& settings);

// Refuses, before any GPU work, state that would take more than 3/4 of the device's memory
// (some drivers, lavapipe, take the host down rather than fail): a UserError naming `what`
// ("the wavefront's state for a pool of N paths") and the `remedy`.
void requireDeviceMemory(const vk::Context& context, uint64_t bytes, const std::string& what,
                         const std::string& remedy);

// Arrays of `count` elements each, one after another in one device buffer at 16-byte alignment
// (structure of arrays: the wavefront's path state, the raycast's rays). Offsets are relative to
// the buffer, so that a layout can be computed, and its bytes counted, without a device.
class DeviceArena {
 public:
  explicit DeviceArena(uint64_t count) : count_(count) {}
  // Places an array of `elementBytes` per element; returns its offset in the buffer.
  uint64_t place(uint64_t elementBytes);
  uint64_t bytesPerElement() const { return bytesPerElement_; }  // summed over the arrays
  uint64_t bytes() const { return bytes_; }                      // the buffer's, alignment included
  // The buffer, once requireDeviceMemory has let it (`what` and `remedy` as there).
  vk::Buffer allocate(const vk::Context& context, VkBufferUsageFlags usage, const std::string& what,
                      const std::string& remedy) const;

 private:
  uint64_t count_;
  uint64_t bytesPerElement_ = 0;
  uint64_t bytes_ = 0;
};

// The frame around a driver's stages, the same for every integrator: the film, the frame
// parameters every kernel reads (in device-local memory, so that no kernel reads them over the
// bus) and the stage timer; the frame's first and last timestamps, with the film cleared and the
// parameters written inside it; the film's readback as output, outside the frame's time.
class FrameRecorder {
 public:
  // `counters`: the counters the film carries (the kernels were built with them).
  FrameRecorder(const vk::Context& context, const GpuScene& scene, TraceTarget target, Counters counters);

  // Before recording a frame of `settings`: its film and parameters; the host's time starts here.
  void prepare(const RenderSettings& settings);
  // The frame's first commands: the first timestamp (and per-stage ones unless
  // `stageTimestamps` is off), the film cleared, the parameters written, whatever `uploads`
  // records (the driver's own parameters and counters), then one barrier from those transfers
  // to the kernels' `readers`.
  void begin(VkCommandBuffer commands, VkPipelineStageFlags2 readers, bool stageTimestamps,
             const std::function<void()>& uploads = {});
  // A timed stage whose successor reads what it wrote, its launch size included: `body` between
  // the timer's timestamps, then a barrier from `shaderStages`' writes to their reads and to the
  // indirect launches. The barrier sits outside the timed scope: its cost is the frame's
  // overhead, not a stage's.
  void stage(VkCommandBuffer commands, VkPipelineStageFlags2 shaderStages, Stage stage,
             const std::function<void()>& body, uint32_t step = 0, uint32_t launches = 1);
  // Times what `body` records as `stage` with no barrier after it: launches that the caller
  // orders itself, or a stage whose successor neither reads what it writes nor writes what it
  // reads, so that the two may run side by side.
  void time(VkCommandBuffer commands, Stage stage, const std::function<void()>& body, uint32_t step = 0,
            uint32_t launches = 1);
  // The frame's last timestamp, after its last stage.
  void end(VkCommandBuffer commands);
  // The film's copy to the host, where the frame's settings read the image: after the frame's
  // end, from the kernels' `writers`.
  // Returns whether it recorded the copy, whose barrier from `writers` then covers any other
  // copy of the kernels' writes the driver records after it.
  bool recordOutput(VkCommandBuffer commands, VkPipelineStageFlags2 writers) const;
  // Once the frame's last fence has signalled: the GPU time from the first to the last
  // timestamp, its stages and launches, and the host's time since prepare.
  FrameResult times() const;
  // Once the output's fence has signalled: the image, its variance and counters into `result`
  // (`simtStage`: the stage the divergence counters are reported for; `clockStages`: the stage of
  // each clock bin, where the clocks are per stage rather than per bounce).
  void readOutput(FrameResult& result, Stage simtStage, std::span<const Stage> clockStages = {}) const;

  // After prepare: the RestirFrame the frame's kernels read (FrameParams::restir).
  void setRestirFrame(VkDeviceAddress address) { frameParams_.restir = address; }

  const Film& film() const { return *film_; }
  VkDeviceAddress paramsAddress() const { return params_.address(); }

 private:
  const vk::Context& context_;
  const GpuScene& scene_;
  TraceTarget target_;
  Counters counters_;
  vk::Buffer params_;
  gpu::FrameParams frameParams_{};
  std::optional<Film> film_;
  bool readImage_ = true;
  vk::StageTimer timer_;
  std::chrono::steady_clock::time_point prepared_;
};

}  // namespace ptbench
