#include "core/integrators/wavefront.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "core/integrators/frame.h"
#include "core/integrators/options.h"
#include "core/integrators/wavefront_state.h"
#include "core/trace/registry.h"
#include "core/vk/barrier.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::WavefrontCounters) == 80);
static_assert(sizeof(gpu::StepCounters) == 24);
static_assert(sizeof(gpu::HitRecord) == 24);
// The path arrays' addresses (as many as PTBENCH_PATH_FIELDS lists), then the rest, unpadded.
static_assert(sizeof(gpu::WavefrontParams) == 2 * sizeof(gpu::PathArrays) + 120);
static_assert(sizeof(gpu::WavefrontPush) == 32);

// Where the control buffer keeps what it holds, one after another at multiples of 256 bytes, so
// that a field added to the path state moves what follows the parameters.
constexpr VkDeviceSize after(VkDeviceSize offset, VkDeviceSize bytes) {
  return (offset + bytes + 255) / 256 * 256;
}
constexpr VkDeviceSize paramsOffset = 0;
constexpr VkDeviceSize countersOffset = after(paramsOffset, sizeof(gpu::WavefrontParams));
constexpr VkDeviceSize launchesOffset = after(countersOffset, sizeof(gpu::WavefrontCounters));
constexpr VkDeviceSize stepsOffset = after(launchesOffset, gpu::LAUNCH_COUNT * sizeof(gpu::LaunchRecord));
// And the readback buffer: the counters, then the step counters.
constexpr VkDeviceSize readbackStepsOffset = after(0, sizeof(gpu::WavefrontCounters));

// The kernels counters change: the shading point, where counters: simt counts, is in the shade
// kernels only; counters: clocks times the phases of extend, shade and shadow.
std::string countedKernel(const std::string& shader, const RenderSettings& settings) {
  const bool counted =
      settings.counters == Counters::Clocks || (settings.counters == Counters::Simt && shader == "wavefront_shade");
  return counted ? shader + "_" + std::string(countersName(settings.counters)) : shader;
}

KernelDesc stageKernel(const std::string& shader, bool traces, const RenderSettings& settings, const GpuScene& scene,
                       uint32_t materialClass = gpu::MATERIAL_CLASS_ALL) {
  const WavefrontOptions& options = settings.wavefront;
  std::vector<uint32_t> specialization(gpu::SPEC_COUNT);
  specialization[gpu::SPEC_COMPACTION] = options.compaction;
  specialization[gpu::SPEC_MATERIAL_QUEUES] = options.materialQueues;
  specialization[gpu::SPEC_MATERIAL_CLASS] = materialClass;
  return {.shader = shader,
          .traces = traces,
          .pushBytes = sizeof(gpu::WavefrontPush),
          .specialization = std::move(specialization),
          .shadedClassLimit = scene.highestMaterialClass(),
          .msCompensation = settings.msCompensation && scene.hasMultipleScatteringLobes(),
          .restir = restirSpecialization(settings.restir)};
}

// What the wavefront needs of the device beyond the backend, checked before any of its
// pipelines exists, so the message is the user's rather than a Vulkan error's.
const WavefrontOptions& checkDevice(const vk::Context& context, Backend backend, const WavefrontOptions& options) {
  const auto& caps = context.capabilities();
  if (!caps.subgroupBallotInCompute)
    throw UserError("the wavefront needs subgroup ballot in compute shaders for its queue pushes, which " + caps.name +
                    " lacks; use a megakernel");
  if (trace::descriptor(backend).rayGeneration && options.compaction && !caps.rayTracingIndirect)
    throw UserError(caps.name +
                    " has ray-tracing pipelines but not rayTracingPipelineTraceRaysIndirect, which the "
                    "wavefront's compacted launches need; use options.wavefront.compaction = false or another backend");
  return options;
}

}  // namespace

uint64_t WavefrontIntegrator::stateBytes(uint32_t poolSize, const WavefrontOptions& options) {
  return wavefrontStateLayout(1, options).arena.bytesPerElement() * poolSize;
}

WavefrontIntegrator::WavefrontIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target,
                                         const RenderSettings& settings)
    : context_(context),
      scene_(scene),
      options_(checkDevice(context, target.backend, settings.wavefront)),
      generate_(context, stageKernel("wavefront_generate", false, settings, scene), target, scene),
      extend_(context, stageKernel(countedKernel("wavefront_extend", settings), true, settings, scene), target, scene),
      shadow_(context, stageKernel(countedKernel("wavefront_shadow", settings), true, settings, scene), target, scene),
      accumulate_(context, stageKernel("wavefront_accumulate", false, settings, scene), target, scene),
      prepare_(context, singleInvocation(stageKernel("wavefront_prepare", false, settings, scene)), target, scene),
      frame_(context, scene, target, settings.counters) {
  if (settings.restir != Restir::Off) restir_.emplace(context, scene, target, settings.restir, settings.msCompensation);
  const std::string shade = countedKernel("wavefront_shade", settings);
  if (options_.materialQueues) {
    classify_.emplace(context, stageKernel("wavefront_classify", false, settings, scene), target, scene);
    for (uint32_t materialClass = 0; materialClass < gpu::MATERIAL_CLASS_COUNT; ++materialClass)
      shade_.emplace_back(context, stageKernel(shade, false, settings, scene, materialClass), target, scene);
  } else {
    shade_.emplace_back(context, stageKernel(shade, false, settings, scene), target, scene);
  }
  shaderStages_ = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | extend_.pipelineStage();
}

std::vector<KernelStatistics> WavefrontIntegrator::kernels() const {
  std::vector<KernelStatistics> result = {generate_.statistics(Stage::Generate), extend_.statistics(Stage::Extend)};
  if (classify_) result.push_back(classify_->statistics(Stage::Classify));
  for (const Kernel& kernel : shade_) result.push_back(kernel.statistics(Stage::Shade));
  result.push_back(shadow_.statistics(Stage::Shadow));
  result.push_back(accumulate_.statistics(Stage::Accumulate));
  result.push_back(prepare_.statistics(Stage::Prepare));
  if (restir_)
    for (KernelStatistics& pass : restir_->kernels()) result.push_back(std::move(pass));
  return result;
}

void WavefrontIntegrator::allocate(uint32_t poolSize, uint32_t stepCapacity) {
  if (state_.poolSize == poolSize && state_.stepCapacity == stepCapacity) return;
  state_ = {};
  State state;
  state.poolSize = poolSize;
  state.stepCapacity = stepCapacity;
  state.paths = wavefrontStateLayout(poolSize, options_)
                    .arena.allocate(context_, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    "the wavefront's state for a pool of " + std::to_string(poolSize) + " paths",
                                    "lower options.wavefront.pool_size");
  // The same layout, at the buffer's address.
  state.params = wavefrontStateLayout(poolSize, options_, state.paths.address()).params;

  const VkDeviceSize stepBytes = VkDeviceSize{stepCapacity} * sizeof(gpu::StepCounters);
  state.control = vk::Buffer(context_, stepsOffset + stepBytes,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             vk::MemoryUse::DeviceOnly);
  state.readback =
      vk::Buffer(context_, readbackStepsOffset + stepBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  state.params.counters = state.control.address() + countersOffset;
  state.params.launches = state.control.address() + launchesOffset;
  state.params.steps = state.control.address() + stepsOffset;
  state.params.poolSize = poolSize;
  state.params.stepCapacity = stepCapacity;
  state_ = std::move(state);
}

void WavefrontIntegrator::timed(VkCommandBuffer commands, Stage stage, uint32_t step, uint32_t launches,
                                const std::function<void()>& body, NextStage next) {
  if (next == NextStage::Waits)
    frame_.stage(commands, shaderStages_, stage, body, step, launches);
  else
    frame_.time(commands, stage, body, step, launches);
}

void WavefrontIntegrator::launch(VkCommandBuffer commands, const Kernel& kernel, uint32_t launchRecord,
                                 uint32_t iteration, uint32_t step, uint32_t phase) {
  const gpu::WavefrontPush push = pushConstants(iteration, step, phase);
  if (!options_.compaction) {
    kernel.launch(commands, scene_.descriptorSet(), &push, state_.poolSize);
    return;
  }
  const VkDeviceSize record = launchesOffset + VkDeviceSize{launchRecord} * sizeof(gpu::LaunchRecord);
  kernel.launchIndirect(commands, scene_.descriptorSet(), &push, state_.control, record);
}

gpu::WavefrontPush WavefrontIntegrator::pushConstants(uint32_t iteration, uint32_t step, uint32_t phase) const {
  return {.params = frame_.paramsAddress(),
          .wavefront = state_.control.address() + paramsOffset,
          .iteration = iteration,
          .step = step,
          .phase = phase};
}

void WavefrontIntegrator::prepare(VkCommandBuffer commands, uint32_t iteration, uint32_t step, uint32_t phase) {
  const gpu::WavefrontPush push = pushConstants(iteration, step, phase);
  timed(commands, Stage::Prepare, step, 1, [&] { prepare_.launch(commands, scene_.descriptorSet(), &push, 1); });
}

void WavefrontIntegrator::generate(VkCommandBuffer commands, uint32_t iteration, uint32_t step, uint32_t phase) {
  // Sized by the prepare of `phase` just before, or by the last shade's PREPARE_SHADOW_AND_REFILL.
  if (phase != gpu::PREPARE_SHADOW_AND_REFILL) prepare(commands, iteration, step, phase);
  timed(commands, Stage::Generate, step, 1,
        [&] { launch(commands, generate_, gpu::LAUNCH_GENERATE, iteration, step, phase); });
}

void WavefrontIntegrator::extend(VkCommandBuffer commands, uint32_t iteration, uint32_t step) {
  // Sized by the prepare before generate, or by the one after the last shade.
  timed(commands, Stage::Extend, step, 1,
        [&] { launch(commands, extend_, gpu::LAUNCH_EXTEND_0 + (iteration & 1), iteration, step); });
}

void WavefrontIntegrator::shade(VkCommandBuffer commands, uint32_t iteration, uint32_t step, uint32_t sizingPhase) {
  const uint32_t extendLaunch = gpu::LAUNCH_EXTEND_0 + (iteration & 1);
  if (classify_) {
    timed(commands, Stage::Classify, step, 1, [&] { launch(commands, *classify_, extendLaunch, iteration, step); });
    prepare(commands, iteration, step, gpu::PREPARE_SHADE);
    // The class kernels are timed as one scope: timestamps between them would serialise them.
    timed(commands, Stage::Shade, step, uint32_t(shade_.size()), [&] {
      for (uint32_t materialClass = 0; materialClass < shade_.size(); ++materialClass)
        launch(commands, shade_[materialClass], gpu::LAUNCH_SHADE_FIRST + materialClass, iteration, step);
    });
  } else {
    timed(commands, Stage::Shade, step, 1, [&] { launch(commands, shade_.front(), extendLaunch, iteration, step); });
  }
  prepare(commands, iteration, step, sizingPhase);
}

void WavefrontIntegrator::shadow(VkCommandBuffer commands, uint32_t iteration, uint32_t step, NextStage next) {
  timed(
      commands, Stage::Shadow, step, 1, [&] { launch(commands, shadow_, gpu::LAUNCH_SHADOW, iteration, step); }, next);
}

void WavefrontIntegrator::accumulate(VkCommandBuffer commands, uint32_t iteration, uint32_t step, NextStage next) {
  // Where the pass owns its pixels, shade and shadow have put every ended path into the film.
  if (state_.params.pixelsOwned) return;
  timed(
      commands, Stage::Accumulate, step, 1,
      [&] { launch(commands, accumulate_, gpu::LAUNCH_ACCUMULATE, iteration, step); }, next);
}

bool WavefrontIntegrator::overlapsStages(const RenderSettings& settings) const {
  // Without compaction both sides of a pair test and set the slots' membership words. Under
  // stage timestamps each stage's time must be its own; a timestamp waits for earlier work, but
  // nothing in Vulkan makes later work wait for it.
  return settings.wavefront.shadowOverlap && options_.compaction && !settings.stageTimestamps;
}

void WavefrontIntegrator::recordPass(VkCommandBuffer commands, uint32_t firstIteration,
                                     const RenderSettings& settings) {
  // A bounce's shadow rays and the next bounce's extension rays read and write nothing of each
  // other's (shadow: the shadow queue, the paths' radiance, the film; extend: the paths' rays,
  // their hit records), so no barrier need part them.
  const bool overlap = overlapsStages(settings);
  const uint32_t maxDepth = settings.maxDepth;
  generate(commands, firstIteration, 0, gpu::PREPARE_GENERATE_FRESH);
  extend(commands, firstIteration, 0);
  for (uint32_t bounce = 0; bounce < maxDepth; ++bounce) {
    const uint32_t iteration = firstIteration + bounce;
    const bool last = bounce + 1 == maxDepth;
    shade(commands, iteration, bounce, gpu::PREPARE_SHADOW);
    if (overlap && !last) {
      shadow(commands, iteration, bounce, NextStage::RunsBeside);
      extend(commands, iteration + 1, bounce + 1);
      accumulate(commands, iteration, bounce, NextStage::Waits);
    } else {
      shadow(commands, iteration, bounce, NextStage::Waits);
      accumulate(commands, iteration, bounce, NextStage::Waits);
      if (!last) extend(commands, iteration + 1, bounce + 1);
    }
  }
}

void WavefrontIntegrator::recordPoolIterations(VkCommandBuffer commands, uint32_t firstIteration, uint32_t count,
                                               uint32_t stepCapacity, bool overlap) {
  // Every iteration past the pool's steps counts in its last.
  auto stepOf = [&](uint32_t iteration) { return std::min(iteration, stepCapacity - 1); };
  const uint32_t end = firstIteration + count;
  if (!overlap) {
    for (uint32_t iteration = firstIteration; iteration < end; ++iteration) {
      const uint32_t step = stepOf(iteration);
      generate(commands, iteration, step, iteration == 0 ? gpu::PREPARE_GENERATE_FRESH : gpu::PREPARE_GENERATE_REFILL);
      extend(commands, iteration, step);
      shade(commands, iteration, step, gpu::PREPARE_SHADOW);
      shadow(commands, iteration, step, NextStage::Waits);
      accumulate(commands, iteration, step, NextStage::Waits);
    }
    return;
  }
  // The prepare after an iteration's shade also starts the next one's paths, whose generate then
  // runs beside this one's shadow, and their extend beside this one's accumulate: neither pair
  // touches the other's data (new paths take positions after the continuing ones, whose radiance
  // shadow adds to; accumulate reads the ended paths' arrays and writes the film). An earlier
  // chunk's last iteration generated the first one's new paths.
  if (firstIteration == 0) generate(commands, 0, 0, gpu::PREPARE_GENERATE_FRESH);
  extend(commands, firstIteration, stepOf(firstIteration));
  for (uint32_t iteration = firstIteration; iteration < end; ++iteration) {
    const uint32_t step = stepOf(iteration);
    const bool last = iteration + 1 == end;
    shade(commands, iteration, step, gpu::PREPARE_SHADOW_AND_REFILL);
    shadow(commands, iteration, step, NextStage::RunsBeside);
    generate(commands, iteration + 1, stepOf(iteration + 1), gpu::PREPARE_SHADOW_AND_REFILL);
    accumulate(commands, iteration, step, last ? NextStage::Waits : NextStage::RunsBeside);
    if (!last) extend(commands, iteration + 1, stepOf(iteration + 1));
  }
}

void WavefrontIntegrator::recordCountersReadback(VkCommandBuffer commands, bool steps) {
  vk::memoryBarrier(commands, shaderStages_, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                    VK_ACCESS_2_TRANSFER_READ_BIT);
  const VkBufferCopy counters{.srcOffset = countersOffset, .dstOffset = 0, .size = sizeof(gpu::WavefrontCounters)};
  vkCmdCopyBuffer(commands, state_.control.get(), state_.readback.get(), 1, &counters);
  if (steps) {
    const VkBufferCopy stepCounters{.srcOffset = stepsOffset,
                                    .dstOffset = readbackStepsOffset,
                                    .size = VkDeviceSize{state_.stepCapacity} * sizeof(gpu::StepCounters)};
    vkCmdCopyBuffer(commands, state_.control.get(), state_.readback.get(), 1, &stepCounters);
  }
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

std::vector<gpu::LaunchRecord> WavefrontIntegrator::readLaunchRecords() const {
  const VkDeviceSize bytes = gpu::LAUNCH_COUNT * sizeof(gpu::LaunchRecord);
  vk::Buffer host(context_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  context_.submitAndWait([&](VkCommandBuffer commands) {
    const VkBufferCopy region{.srcOffset = launchesOffset, .size = bytes};
    vkCmdCopyBuffer(commands, state_.control.get(), host.get(), 1, &region);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  const auto records = host.view<const gpu::LaunchRecord>();
  return {records.begin(), records.end()};
}

FrameResult WavefrontIntegrator::render(const RenderSettings& settings) {
  const bool poolSchedule = settings.wavefront.schedule == WavefrontSchedule::Pool;
  const uint32_t poolSize = wavefrontPool(settings, context_.capabilities()).paths;
  const uint64_t jobs = framePaths(settings);
  const uint64_t passes = (jobs + poolSize - 1) / poolSize;
  // Over any max_depth consecutive iterations every path then in the pool ends, so the pool
  // starts at least poolSize new paths in that many: a bound that only a defect can exceed.
  const uint64_t maxIterations = (passes + 1) * settings.maxDepth + poolCheckInterval;
  const uint32_t stepCapacity = poolSchedule ? uint32_t(std::min<uint64_t>(maxIterations, 65536)) : settings.maxDepth;
  allocate(poolSize, stepCapacity);
  state_.params.pixelsOwned = !poolSchedule && poolSize <= uint64_t{settings.width} * settings.height;
  gpu::WavefrontCounters counters{};
  counters.jobsTotal = jobs;
  frame_.prepare(settings);
  if (restir_) {
    // unsupportedReason refused the combination for the integrator; a frame cannot bring it.
    if (poolSchedule) throw std::logic_error("the wavefront with restir was given a frame of the pool schedule");
    restir_->prepare(settings, frame_);
  }
  auto initialize = [&](VkCommandBuffer commands) {
    // The wavefront's parameters and counters in device-local memory, written inside the frame.
    frame_.begin(commands, shaderStages_, settings.stageTimestamps, [&] {
      vkCmdUpdateBuffer(commands, state_.control.get(), paramsOffset, sizeof state_.params, &state_.params);
      vkCmdUpdateBuffer(commands, state_.control.get(), countersOffset, sizeof counters, &counters);
      vkCmdFillBuffer(commands, state_.control.get(), stepsOffset,
                      VkDeviceSize{stepCapacity} * sizeof(gpu::StepCounters), 0);
      if (!options_.compaction)
        vkCmdFillBuffer(commands, state_.paths.get(), state_.params.membership - state_.paths.address(),
                        VkDeviceSize{poolSize} * sizeof(uint32_t), 0);
      if (restir_) restir_->upload(commands);
    });
  };
  // A later submission of the frame goes on from what the last one's kernels wrote, its queue
  // counts and launch records included: a fence wait on the host makes none of that visible to
  // the device's next commands.
  auto resume = [&](VkCommandBuffer commands) {
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                      VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      shaderStages_ | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                      VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                          VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
  };

  uint32_t iteration = 0;
  if (!poolSchedule) {
    // Depth-synchronous: a pass of poolSize paths starts together and runs max_depth bounces,
    // after which every one of its paths has ended. Passes go into command buffers of at most
    // maxIterationsPerSubmission iterations (one, at the sizes people run), so that a tiny pool
    // or a huge sample count never records millions of launches into one.
    uint64_t pass = 0;
    while (pass < passes) {
      context_.submitAndWait([&](VkCommandBuffer commands) {
        pass == 0 ? initialize(commands) : resume(commands);
        uint64_t recorded = 0;
        do {
          recordPass(commands, iteration, settings);
          iteration += settings.maxDepth;
          recorded += settings.maxDepth;
          // The pass was sample `pass` of every pixel (wavefrontPool).
          if (restir_) restir_->record(commands, frame_, shaderStages_, uint32_t(pass));
        } while (++pass < passes && recorded + settings.maxDepth <= maxIterationsPerSubmission);
        frame_.end(commands);  // the last submission's end is the frame's
      });
    }
  } else {
    // Persistent pool: every iteration fills the pool's room beside the paths that go on with
    // the frame's next samples. The host checks every poolCheckInterval iterations whether the
    // pool has drained; its waits lie between the frame's first and last timestamps, so they count.
    const auto* readCounters = static_cast<const gpu::WavefrontCounters*>(state_.readback.mapped());
    bool drained = false;
    // No check before the pool can have drained: every job must have started first (a pool's
    // worth an iteration at most), and a pool that takes the whole frame at once has drained
    // after max_depth iterations. (At most maxIterationsPerSubmission to a command buffer.)
    uint64_t chunk = std::min<uint64_t>(passes == 1 ? settings.maxDepth : std::max<uint64_t>(poolCheckInterval, passes),
                                        maxIterationsPerSubmission);
    while (!drained) {
      if (iteration >= maxIterations)
        throw std::logic_error("wavefront pool schedule did not drain within " + std::to_string(maxIterations) +
                               " iterations");
      context_.submitAndWait([&](VkCommandBuffer commands) {
        iteration == 0 ? initialize(commands) : resume(commands);
        const auto count = uint32_t(std::min<uint64_t>(chunk, maxIterations - iteration));
        recordPoolIterations(commands, iteration, count, stepCapacity, overlapsStages(settings));
        iteration += count;
        frame_.end(commands);  // the last chunk's end is the frame's
        recordCountersReadback(commands, false);
      });
      chunk = poolCheckInterval;
      const uint32_t continuing = readCounters->queueCount[gpu::QUEUE_EXTENSION_0 + (iteration & 1)];
      drained = readCounters->jobsStarted == readCounters->jobsTotal && continuing == 0;
    }
  }
  FrameResult result = frame_.times();
  // Output, outside the frame's timestamps.
  context_.submitAndWait([&](VkCommandBuffer commands) {
    frame_.recordOutput(commands, shaderStages_);
    recordCountersReadback(commands, true);
  });
  // The clock bins' stages, by CLOCK_BIN_*.
  static constexpr std::array<Stage, 3> clockStages{Stage::Extend, Stage::Shade, Stage::Shadow};
  static_assert(gpu::CLOCK_BIN_EXTEND == 0 && gpu::CLOCK_BIN_SHADE == 1 && gpu::CLOCK_BIN_SHADOW == 2);
  frame_.readOutput(result, Stage::Shade, clockStages);

  const auto* steps = reinterpret_cast<const gpu::StepCounters*>(static_cast<const uint8_t*>(state_.readback.mapped()) +
                                                                 readbackStepsOffset);
  const uint32_t usedSteps = poolSchedule ? std::min(iteration, stepCapacity) : settings.maxDepth;
  // The film's per-pixel counters, which the wavefront's own stages leave alone, hold ReSTIR's
  // shadow rays.
  const uint64_t restirShadowRays = restir_ ? result.work.shadowRays : 0;
  const std::array<uint64_t, 3> restirRays = result.work.restirRays;
  result.work = {.restirRays = restirRays};
  for (uint32_t step = 0; step < usedSteps; ++step) {
    result.steps.push_back({.extensionRays = steps[step].extensionRays,
                            .shadowRays = steps[step].shadowRays,
                            .pathsStarted = steps[step].pathsStarted});
    result.work.extensionRays += steps[step].extensionRays;
    result.work.shadowRays += steps[step].shadowRays;
    result.work.paths += steps[step].pathsStarted;
  }
  result.work.shadowRays += restirShadowRays;
  result.work.pathSegments = result.work.extensionRays;
  // A pool runs up to poolCheckInterval - 1 empty iterations past its end: not steps of the frame.
  while (poolSchedule && !result.steps.empty() && result.steps.back().extensionRays == 0 &&
         result.steps.back().pathsStarted == 0)
    result.steps.pop_back();
  result.stateBytes = stateBytes(poolSize, options_);
  return result;
}

}  // namespace ptbench
