#include "core/integrators/frame.h"

#include <cmath>
#include <cstddef>

#include "core/elapsed.h"
#include "core/errors.h"
#include "core/vk/barrier.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::SceneAddresses) == 160);
static_assert(sizeof(gpu::CameraParams) == 64);
static_assert(offsetof(gpu::FrameParams, film) == 224, "uint64 members must stay 8-byte aligned");
static_assert(sizeof(gpu::FrameParams) == 312 && offsetof(gpu::FrameParams, restir) == 304);
static_assert(sizeof(gpu::FramePush) == 16);

}  // namespace

gpu::CameraParams cameraParams(const RenderSettings& settings) {
  const Camera& camera = settings.camera;
  const Vec3 forward = normalize(camera.target - camera.position);
  Vec3 right = cross(forward, camera.up);
  if (length(right) < 1e-6f) right = cross(forward, std::fabs(forward.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0});
  right = normalize(right);
  const Vec3 up = cross(right, forward);
  return {.position = toGpu(camera.position),
          .tanHalfFovY = std::tan(0.5f * camera.yfovDegrees * 3.14159265f / 180.0f),
          .forward = toGpu(forward),
          .aspect = float(settings.width) / float(settings.height),
          .right = toGpu(right),
          .lensRadius = 0.5f * camera.aperture,
          .up = toGpu(up),
          // The target's distance along the view direction unless told otherwise.
          .focusDistance = camera.focusDistance > 0 ? camera.focusDistance
                                                    : std::max(dot(camera.target - camera.position, forward), 1e-6f)};
}

void requireDeviceMemory(const vk::Context& context, uint64_t bytes, const std::string& what,
                         const std::string& remedy) {
  const uint64_t deviceBytes = context.capabilities().deviceLocalBytes;
  if (deviceBytes > 0 && bytes > deviceBytes / 4 * 3)
    throw UserError(what + " needs " + std::to_string(bytes >> 20) + " MiB, more than 3/4 of the device's " +
                    std::to_string(deviceBytes >> 20) + " MiB; " + remedy);
}

uint64_t DeviceArena::place(uint64_t elementBytes) {
  const uint64_t offset = bytes_;
  bytes_ = vk::alignUp(bytes_ + elementBytes * count_, 16);
  bytesPerElement_ += elementBytes;
  return offset;
}

vk::Buffer DeviceArena::allocate(const vk::Context& context, VkBufferUsageFlags usage, const std::string& what,
                                 const std::string& remedy) const {
  requireDeviceMemory(context, bytes_, what, remedy);
  return vk::Buffer(context, bytes_, usage, vk::MemoryUse::DeviceOnly);
}

FrameRecorder::FrameRecorder(const vk::Context& context, const GpuScene& scene, TraceTarget target, Counters counters)
    : context_(context),
      scene_(scene),
      target_(target),
      counters_(counters),
      params_(context, sizeof(gpu::FrameParams), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
              vk::MemoryUse::DeviceOnly),
      timer_(context) {}

void FrameRecorder::prepare(const RenderSettings& settings) {
  const Film& film = filmFor(film_, context_, settings, counters_);
  gpu::FrameParams& params = frameParams_;
  params = {};
  params.scene = scene_.addresses(target_);
  params.camera = cameraParams(settings);
  params.film = film.pixels();
  params.counters = film.counters();
  params.simtCounters = film.simtCounters();
  params.clockCounters = film.clockCounters();
  params.environment = toGpu(settings.environment);
  params.width = settings.width;
  params.height = settings.height;
  params.samplesPerPixel = settings.samplesPerPixel;
  params.maxDepth = settings.maxDepth;
  params.rrDepth = settings.rrDepth;
  params.seed = settings.seed;
  params.samplerKind = settings.sampler == SamplerKind::Pcg ? gpu::SAMPLER_PCG : gpu::SAMPLER_HALTON;
  params.traceRowWidth = context_.capabilities().traceRowWidth;
  readImage_ = settings.readImage;
  prepared_ = std::chrono::steady_clock::now();
}

void FrameRecorder::begin(VkCommandBuffer commands, VkPipelineStageFlags2 readers, bool stageTimestamps,
                          const std::function<void()>& uploads) {
  timer_.begin(commands, stageTimestamps);
  film_->recordClear(commands);
  vkCmdUpdateBuffer(commands, params_.get(), 0, sizeof frameParams_, &frameParams_);
  if (uploads) uploads();
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, readers,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

void FrameRecorder::stage(VkCommandBuffer commands, VkPipelineStageFlags2 shaderStages, Stage stage,
                          const std::function<void()>& body, uint32_t step, uint32_t launches) {
  timer_.time(commands, stage, body, step, launches);
  vk::memoryBarrier(commands, shaderStages, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    shaderStages | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
}

void FrameRecorder::time(VkCommandBuffer commands, Stage stage, const std::function<void()>& body, uint32_t step,
                         uint32_t launches) {
  timer_.time(commands, stage, body, step, launches);
}

void FrameRecorder::end(VkCommandBuffer commands) {
  timer_.end(commands);
}

bool FrameRecorder::recordOutput(VkCommandBuffer commands, VkPipelineStageFlags2 writers) const {
  if (readImage_) film_->recordReadback(commands, writers);
  return readImage_;
}

FrameResult FrameRecorder::times() const {
  FrameResult result;
  result.hostMs = millisecondsSince(prepared_);
  const vk::FrameTiming timing = timer_.read();
  result.stages = timing.stages;
  result.gpuMs = timing.frameNs * 1e-6;
  result.launches = timing.launches;
  return result;
}

void FrameRecorder::readOutput(FrameResult& result, Stage simtStage, std::span<const Stage> clockStages) const {
  if (readImage_) film_->read(result, simtStage, clockStages);
}

}  // namespace ptbench
