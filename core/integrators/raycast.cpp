#include "core/integrators/raycast.h"

#include <algorithm>
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

// The rays' arrays in an arena of `slots` elements each, at the buffer address `base` (0: offsets).
struct RaycastLayout {
  gpu::RaycastParams params{};
  DeviceArena arena;
};
RaycastLayout raycastLayout(uint64_t slots, uint64_t base = 0) {
  RaycastLayout layout{.arena = DeviceArena(slots)};
  auto place = [&](uint64_t& address, uint64_t elementBytes) { address = base + layout.arena.place(elementBytes); };
  for (gpu::RaySet& set : layout.params.rays) {
    place(set.origin, vec3Bytes);
    place(set.direction, vec3Bytes);
    place(set.tMax, wordBytes);
    place(set.slot, wordBytes);
  }
  place(layout.params.hits, sizeof(gpu::HitRecord));
  place(layout.params.occluded, wordBytes);
  place(layout.params.rayOfSlot, wordBytes);
  return layout;
}

}  // namespace

uint64_t RaycastIntegrator::stateBytes(uint64_t rays) {
  return raycastLayout(1).arena.bytesPerElement() * rays;
}

uint32_t RaycastIntegrator::batchSamples(const RenderSettings& settings) {
  const uint32_t pixels = settings.width * settings.height;
  return std::clamp<uint32_t>(gpu::RAYCAST_MAX_BATCH_RAYS / std::max<uint32_t>(pixels, 1), 1, settings.samplesPerPixel);
}

RaycastIntegrator::RaycastIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target)
    : context_(context),
      scene_(scene),
      generate_(context, raycastKernel("raycast_generate"), checkDevice(context, target), scene),
      prepare_(context, singleInvocation(raycastKernel("raycast_prepare")), target, scene),
      spawn_(context, raycastKernel("raycast_spawn"), target, scene),
      resolve_(context, raycastKernel("raycast_resolve"), target, scene),
      traceClosest_(context, raycastKernel("raycast_trace", true, {0}), target, scene),
      traceAny_(context, raycastKernel("raycast_trace", true, {1}), target, scene),
      frame_(context, scene, target, Counters::Off),
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
  slots_ = 0;
  rays_ = raycastLayout(slots).arena.allocate(context_, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                              "the raycast's state for " + std::to_string(slots) + " samples",
                                              "lower the resolution");
  gpu::RaycastParams params = raycastLayout(slots, rays_.address()).params;
  params.counters = control_.address() + countersOffset;
  params.launches = control_.address() + launchesOffset;
  params_ = params;
  slots_ = slots;
}

gpu::RaycastPush RaycastIntegrator::pushConstants(const RenderSettings& settings, uint32_t firstSample,
                                                  uint32_t samples, uint32_t set) const {
  return {.params = frame_.paramsAddress(),
          .raycast = control_.address() + paramsOffset,
          .sampleIndex = firstSample,
          .rays = raysConstant(settings.raycast.rays),
          .set = set,
          .samples = samples};
}

void RaycastIntegrator::timed(VkCommandBuffer commands, Stage stage, const std::function<void()>& body) {
  frame_.stage(commands, shaderStages_, stage, body);
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
  frame_.prepare(settings);
  const bool primary = settings.raycast.rays == RaycastRays::Primary;
  const bool shadow = settings.raycast.rays == RaycastRays::Shadow;
  const VkDescriptorSet sceneSet = scene_.descriptorSet();

  context_.submitAndWait([&](VkCommandBuffer commands) {
    // The raycast times its stages whatever the settings say: they are what it measures. Its
    // parameters and counters in device-local memory, written inside the frame.
    frame_.begin(commands, shaderStages_, true, [&] {
      vkCmdUpdateBuffer(commands, control_.get(), paramsOffset, sizeof params_, &params_);
      vkCmdFillBuffer(commands, control_.get(), countersOffset, sizeof(gpu::RaycastCounters), 0);
    });
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
    frame_.end(commands);
    if (!frame_.recordOutput(commands, shaderStages_))
      vk::memoryBarrier(commands, shaderStages_, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT);
    const VkBufferCopy counters{.srcOffset = countersOffset, .size = sizeof(gpu::RaycastCounters)};
    vkCmdCopyBuffer(commands, control_.get(), readback_.get(), 1, &counters);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  FrameResult result = frame_.times();
  frame_.readOutput(result, Stage::Trace);
  const auto& counters = *static_cast<const gpu::RaycastCounters*>(readback_.mapped());
  result.work = {};
  (shadow ? result.work.shadowRays : result.work.extensionRays) = counters.tracedRays;
  result.work.pathSegments = counters.tracedRays;
  result.work.paths = uint64_t{pixels} * settings.samplesPerPixel;
  return result;
}

}  // namespace ptbench
