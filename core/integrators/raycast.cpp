#include "core/integrators/raycast.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "core/errors.h"
#include "core/integrators/frame.h"
#include "core/trace/registry.h"
#include "core/vk/barrier.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::RaySet) == 32);
static_assert(sizeof(gpu::RaycastCounters) == 24 && offsetof(gpu::RaycastCounters, tracedRays) == 8);
static_assert(sizeof(gpu::RaycastParams) == 2 * 32 + 5 * 8);
static_assert(sizeof(gpu::RaycastPush) == 32);

// Where the control buffer keeps what it holds.
constexpr VkDeviceSize paramsOffset = 0;
constexpr VkDeviceSize countersOffset = 256;
constexpr VkDeviceSize launchesOffset = 512;
constexpr VkDeviceSize controlBytes = launchesOffset + gpu::RAY_SET_COUNT * sizeof(gpu::LaunchRecord);

constexpr VkDeviceSize vec3Bytes = 3 * sizeof(float);
constexpr VkDeviceSize wordBytes = sizeof(uint32_t);
constexpr VkDeviceSize rayBytes = 2 * vec3Bytes + 2 * wordBytes;  // origin, direction, tMax, pixel

uint32_t raysConstant(RaycastRays rays) {
  switch (rays) {
    case RaycastRays::Primary:
      return gpu::RAYS_PRIMARY;
    case RaycastRays::Diffuse:
      return gpu::RAYS_DIFFUSE;
    case RaycastRays::Shadow:
      return gpu::RAYS_SHADOW;
  }
  return gpu::RAYS_PRIMARY;
}

KernelDesc raycastKernel(const char* shader, bool traces = false, std::vector<uint32_t> specialization = {}) {
  return {.shader = shader,
          .traces = traces,
          .pushBytes = sizeof(gpu::RaycastPush),
          .specialization = std::move(specialization)};
}

// What the raycast needs of the device beyond the backend, checked before any of its
// pipelines exists, so the message is the user's rather than a Vulkan error's.
TraceTarget checkDevice(const vk::Context& context, TraceTarget target) {
  const auto& caps = context.capabilities();
  if (!caps.subgroupBallotInCompute)
    throw UserError("the raycast needs subgroup ballot in compute shaders to append the rays it spawns, which " +
                    caps.name + " lacks");
  if (trace::descriptor(target.backend).rayGeneration && !caps.rayTracingIndirect)
    throw UserError(caps.name +
                    " has ray-tracing pipelines but not rayTracingPipelineTraceRaysIndirect, which the raycast's "
                    "trace launches need; use another backend");
  return target;
}

}  // namespace

uint64_t RaycastIntegrator::stateBytes(uint64_t rays) {
  const uint64_t perRay = gpu::RAY_SET_COUNT * rayBytes + sizeof(gpu::HitRecord) + 2 * wordBytes;
  return perRay * rays;
}

uint32_t RaycastIntegrator::batchSamples(const RenderSettings& settings) {
  const uint32_t pixels = settings.width * settings.height;
  return std::clamp<uint32_t>(gpu::RAYCAST_MAX_BATCH_RAYS / std::max<uint32_t>(pixels, 1), 1, settings.samplesPerPixel);
}

RaycastIntegrator::RaycastIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target)
    : context_(context),
      scene_(scene),
      target_(target),
      generate_(context, raycastKernel("raycast_generate"), checkDevice(context, target), scene.descriptorSetLayout()),
      prepare_(context, singleInvocation(raycastKernel("raycast_prepare")), target, scene.descriptorSetLayout()),
      spawn_(context, raycastKernel("raycast_spawn"), target, scene.descriptorSetLayout()),
      resolve_(context, raycastKernel("raycast_resolve"), target, scene.descriptorSetLayout()),
      traceClosest_(context, raycastKernel("raycast_trace", true, {0}), target, scene.descriptorSetLayout()),
      traceAny_(context, raycastKernel("raycast_trace", true, {1}), target, scene.descriptorSetLayout()),
      frameParams_(context, sizeof(gpu::FrameParams),
                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::DeviceOnly),
      control_(context, controlBytes,
               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
               vk::MemoryUse::DeviceOnly),
      readback_(context, sizeof(gpu::RaycastCounters), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback) {
  shaderStages_ = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | traceClosest_.pipelineStage();
}

// The closest-hit trace also runs as the camera rays' `extend` before diffuse and shadow rays;
// it is listed once, under the measured stage.
std::vector<KernelStatistics> RaycastIntegrator::kernels() const {
  return {generate_.statistics(Stage::Generate),  prepare_.statistics(Stage::Prepare),
          traceClosest_.statistics(Stage::Trace), spawn_.statistics(Stage::Spawn),
          traceAny_.statistics(Stage::Trace),     resolve_.statistics(Stage::Accumulate)};
}

void RaycastIntegrator::allocate(uint32_t slots) {
  if (slots_ == slots) return;
  const uint64_t bytes = stateBytes(slots);
  requireDeviceMemory(context_, bytes, "the raycast's state for " + std::to_string(slots) + " samples",
                      "lower the resolution");
  slots_ = 0;
  rays_ = {};
  VkDeviceSize offset = 0;
  auto array = [&](VkDeviceSize elementBytes) {
    const VkDeviceSize at = offset;
    offset = vk::alignUp(offset + elementBytes * slots, 16);
    return at;
  };
  gpu::RaycastParams params{};
  for (gpu::RaySet& set : params.rays) {
    set.origin = array(vec3Bytes);
    set.direction = array(vec3Bytes);
    set.tMax = array(wordBytes);
    set.slot = array(wordBytes);
  }
  params.hits = array(sizeof(gpu::HitRecord));
  params.occluded = array(wordBytes);
  params.rayOfSlot = array(wordBytes);
  rays_ = vk::Buffer(context_, offset, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, vk::MemoryUse::DeviceOnly);
  const VkDeviceAddress base = rays_.address();
  for (gpu::RaySet& set : params.rays)
    for (uint64_t* address : {&set.origin, &set.direction, &set.tMax, &set.slot}) *address += base;
  for (uint64_t* address : {&params.hits, &params.occluded, &params.rayOfSlot}) *address += base;
  params.counters = control_.address() + countersOffset;
  params.launches = control_.address() + launchesOffset;
  params_ = params;
  slots_ = slots;
}

gpu::RaycastPush RaycastIntegrator::pushConstants(const RenderSettings& settings, uint32_t firstSample,
                                                  uint32_t samples, uint32_t set) const {
  return {.params = frameParams_.address(),
          .raycast = control_.address() + paramsOffset,
          .sampleIndex = firstSample,
          .rays = raysConstant(settings.raycast.rays),
          .set = set,
          .samples = samples};
}

void RaycastIntegrator::timed(VkCommandBuffer commands, Stage stage, const std::function<void()>& body) {
  timedStage(timer_, commands, shaderStages_, stage, body);
}

void RaycastIntegrator::launchOverSet(VkCommandBuffer commands, const Kernel& kernel, const gpu::RaycastPush& push,
                                      uint32_t set) const {
  const VkDeviceSize record = launchesOffset + VkDeviceSize{set} * sizeof(gpu::LaunchRecord);
  kernel.launchIndirect(commands, scene_.descriptorSet(), &push, control_, record);
}

FrameResult RaycastIntegrator::render(const RenderSettings& settings) {
  const uint32_t pixels = settings.width * settings.height;
  const uint32_t batch = batchSamples(settings);
  allocate(pixels * batch);
  const Film& film = filmFor(film_, context_, settings, false);
  gpu::FrameParams frameParams;
  fillFrameParams(frameParams, context_, scene_, target_, film, settings);
  const bool primary = settings.raycast.rays == RaycastRays::Primary;
  const bool shadow = settings.raycast.rays == RaycastRays::Shadow;
  const VkDescriptorSet sceneSet = scene_.descriptorSet();

  const auto start = std::chrono::steady_clock::now();
  context_.submitAndWait([&](VkCommandBuffer commands) {
    timer_.begin(commands);
    film.recordClear(commands);
    // Parameters and counters in device-local memory, written inside the frame.
    vkCmdUpdateBuffer(commands, frameParams_.get(), 0, sizeof frameParams, &frameParams);
    vkCmdUpdateBuffer(commands, control_.get(), paramsOffset, sizeof params_, &params_);
    vkCmdFillBuffer(commands, control_.get(), countersOffset, sizeof(gpu::RaycastCounters), 0);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, shaderStages_,
                      VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    for (uint32_t first = 0; first < settings.samplesPerPixel; first += batch) {
      const uint32_t samples = std::min(batch, settings.samplesPerPixel - first);
      const gpu::RaycastPush camera = pushConstants(settings, first, samples, gpu::RAY_SET_CAMERA);
      timed(commands, Stage::Prepare, [&] { prepare_.launch(commands, sceneSet, &camera, 1); });
      timed(commands, Stage::Generate, [&] { generate_.launch(commands, sceneSet, &camera, pixels * samples); });
      if (primary) {
        timed(commands, Stage::Trace, [&] { launchOverSet(commands, traceClosest_, camera, gpu::RAY_SET_CAMERA); });
      } else {
        // The camera rays' hits, where diffuse and shadow rays start: traced, but not measured.
        timed(commands, Stage::Extend, [&] { launchOverSet(commands, traceClosest_, camera, gpu::RAY_SET_CAMERA); });
        timed(commands, Stage::Spawn, [&] { launchOverSet(commands, spawn_, camera, gpu::RAY_SET_CAMERA); });
        const gpu::RaycastPush spawned = pushConstants(settings, first, samples, gpu::RAY_SET_SPAWNED);
        timed(commands, Stage::Prepare, [&] { prepare_.launch(commands, sceneSet, &spawned, 1); });
        timed(commands, Stage::Trace,
              [&] { launchOverSet(commands, shadow ? traceAny_ : traceClosest_, spawned, gpu::RAY_SET_SPAWNED); });
      }
      timed(commands, Stage::Accumulate, [&] { resolve_.launch(commands, sceneSet, &camera, pixels); });
    }
    // The frame ends with its last kernel: reading back is output, outside the frame's time.
    timer_.end(commands);
    if (settings.readImage)
      film.recordReadback(commands, shaderStages_);  // its barrier covers the counters' copy too
    else
      vk::memoryBarrier(commands, shaderStages_, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT);
    const VkBufferCopy counters{.srcOffset = countersOffset, .size = sizeof(gpu::RaycastCounters)};
    vkCmdCopyBuffer(commands, control_.get(), readback_.get(), 1, &counters);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  FrameResult result = frameTimes(timer_, start);
  if (settings.readImage) film.read(result, Stage::Trace);
  const auto& counters = *static_cast<const gpu::RaycastCounters*>(readback_.mapped());
  result.work = {};
  (shadow ? result.work.shadowRays : result.work.extensionRays) = counters.tracedRays;
  result.work.pathSegments = counters.tracedRays;
  result.work.paths = uint64_t{pixels} * settings.samplesPerPixel;
  return result;
}

}  // namespace ptbench
