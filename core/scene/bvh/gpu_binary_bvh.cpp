#include "core/scene/bvh/gpu_binary_bvh.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/vk/barrier.h"
#include "core/vk/buffer.h"
#include "core/vk/timestamps.h"
#include "shared/bvh_build.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::BuildBounds) == sizeof(Bounds));
static_assert(sizeof(gpu::BuildNode) == sizeof(BinaryBvhNode));
static_assert(offsetof(gpu::BuildNode, firstPrimitive) == offsetof(BinaryBvhNode, firstPrimitive));
static_assert(offsetof(gpu::BuildNode, primitiveCount) == offsetof(BinaryBvhNode, primitiveCount));
static_assert(offsetof(gpu::BuildNode, rightChild) == offsetof(BinaryBvhNode, rightChild));
static_assert(sizeof(gpu::RadixSortPush) == 48 && sizeof(gpu::RadixScanPush) == 16);
static_assert(offsetof(gpu::LbvhPush, centroidMin) == 64 && offsetof(gpu::LbvhPush, centroidScale) == 80);

using Clock = std::chrono::steady_clock;

constexpr VkBufferUsageFlags scratchUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr uint32_t keyBits = 32;
constexpr uint32_t sortPasses = keyBits / gpu::RADIX_SORT_BITS;

vk::Buffer deviceArray(const vk::Context& context, uint64_t count, uint64_t elementBytes) {
  // A zero-sized buffer is invalid; an empty array still gets one element's room.
  return vk::Buffer(context, std::max<uint64_t>(count, 1) * elementBytes, scratchUsage, vk::MemoryUse::DeviceOnly);
}

// Each kernel's writes visible to the next kernel's reads (and writes: the sort's ping-pong).
void computeToCompute(VkCommandBuffer commands) {
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

template <typename Push>
void dispatch(VkCommandBuffer commands, const vk::ComputePipeline& kernel, const Push& push, uint32_t workgroups) {
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline.get());
  vkCmdPushConstants(commands, kernel.layout.get(), VK_SHADER_STAGE_ALL, 0, sizeof(push), &push);
  vkCmdDispatch(commands, workgroups, 1, 1);
}

// The workgroups of a per-element kernel (FOR_EACH_ELEMENT loops over the rest).
uint32_t elementWorkgroups(uint64_t count) {
  return static_cast<uint32_t>(std::clamp<uint64_t>((count + gpu::WORKGROUP_SIZE_1D - 1) / gpu::WORKGROUP_SIZE_1D, 1,
                                                    gpu::BVH_BUILD_MAX_WORKGROUPS));
}

uint32_t sortBlocks(uint32_t count) {
  return (count + gpu::RADIX_SORT_BLOCK - 1) / gpu::RADIX_SORT_BLOCK;
}

void copyBuffer(VkCommandBuffer commands, const vk::Buffer& from, const vk::Buffer& to, VkDeviceSize bytes) {
  const VkBufferCopy region{.size = bytes};
  vkCmdCopyBuffer(commands, from.get(), to.get(), 1, &region);
}

}  // namespace

std::string gpuBvhBuildMemoryError(uint64_t primitives, uint64_t deviceLocalBytes, const std::string& device) {
  // Device-local arrays, per primitive: keys and values twice (16 bytes), its box (24), its share
  // of the blocks' histograms, and per node (2 per primitive) a parent (4), a box (24) and the
  // emitted node (36); per inner node its Karras node (16) and arrival count (4). The boxes'
  // staging and the readback buffers are host memory.
  const uint64_t blocks = (primitives + gpu::RADIX_SORT_BLOCK - 1) / gpu::RADIX_SORT_BLOCK;
  const uint64_t bytes = primitives * (16 + 24 + 2 * (4 + sizeof(gpu::BuildBounds) + sizeof(gpu::BuildNode)) +
                                       sizeof(gpu::KarrasNode) + 4) +
                         blocks * gpu::RADIX_SORT_DIGITS * 4;
  if (bytes <= deviceLocalBytes) return "";
  const auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
  return "the GPU builder needs " + mib(bytes) + " for a level of " + std::to_string(primitives) + " primitives, but " +
         device + " has " + mib(deviceLocalBytes) + " of device memory; use software_builder: cpu";
}

// Keys and values, each twice: every pass sorts from one copy into the other.
struct GpuBvhBuilder::SortBuffers {
  vk::Buffer keys[2], values[2], blockHistograms;
  SortBuffers(const vk::Context& context, uint32_t count)
      : keys{deviceArray(context, count, 4), deviceArray(context, count, 4)},
        values{deviceArray(context, count, 4), deviceArray(context, count, 4)},
        blockHistograms(deviceArray(context, uint64_t{sortBlocks(count)} * gpu::RADIX_SORT_DIGITS, 4)) {}
};

GpuBvhBuilder::GpuBvhBuilder(const vk::Context& context)
    : context_(context),
      histogram_(vk::createComputePipeline(context, "bvh_radix_histogram", sizeof(gpu::RadixSortPush))),
      scan_(vk::createComputePipeline(context, "bvh_radix_scan", sizeof(gpu::RadixScanPush))),
      scatter_(vk::createComputePipeline(context, "bvh_radix_scatter", sizeof(gpu::RadixSortPush))),
      morton_(vk::createComputePipeline(context, "bvh_lbvh_morton", sizeof(gpu::LbvhPush))),
      hierarchy_(vk::createComputePipeline(context, "bvh_lbvh_hierarchy", sizeof(gpu::LbvhPush))),
      fit_(vk::createComputePipeline(context, "bvh_lbvh_fit", sizeof(gpu::LbvhPush))),
      emit_(vk::createComputePipeline(context, "bvh_lbvh_emit", sizeof(gpu::LbvhPush))) {}

// Four passes of 8 bits, each a histogram per block, one scan over them all and a stable
// scatter; an even number of passes leaves the result where the input was (keys[0], values[0]).
void GpuBvhBuilder::recordSort(VkCommandBuffer commands, const SortBuffers& buffers, uint32_t count) const {
  static_assert(sortPasses % 2 == 0);
  if (count < 2) return;
  const uint32_t blocks = sortBlocks(count);
  for (uint32_t shift = 0; shift < keyBits; shift += gpu::RADIX_SORT_BITS) {
    const uint32_t from = (shift / gpu::RADIX_SORT_BITS) % 2, to = 1 - from;
    const gpu::RadixSortPush push{.keysIn = buffers.keys[from].address(),
                                  .valuesIn = buffers.values[from].address(),
                                  .keysOut = buffers.keys[to].address(),
                                  .valuesOut = buffers.values[to].address(),
                                  .blockHistograms = buffers.blockHistograms.address(),
                                  .count = count,
                                  .shift = shift};
    dispatch(commands, histogram_, push, blocks);
    computeToCompute(commands);
    dispatch(commands, scan_,
             gpu::RadixScanPush{.values = buffers.blockHistograms.address(), .count = blocks * gpu::RADIX_SORT_DIGITS},
             1);
    computeToCompute(commands);
    dispatch(commands, scatter_, push, blocks);
    computeToCompute(commands);
  }
}

void GpuBvhBuilder::sort(std::vector<uint32_t>& keys, std::vector<uint32_t>& values) {
  if (keys.size() != values.size())
    throw std::logic_error("sorting " + std::to_string(keys.size()) + " keys with " + std::to_string(values.size()) +
                           " values");
  const auto count = static_cast<uint32_t>(keys.size());
  if (count == 0) return;
  const std::lock_guard lock(mutex_);
  SortBuffers buffers(context_, count);
  const vk::Buffer keysIn = vk::uploadBuffer(context_, std::span<const uint32_t>(keys), scratchUsage);
  const vk::Buffer valuesIn = vk::uploadBuffer(context_, std::span<const uint32_t>(values), scratchUsage);
  vk::Buffer keysBack(context_, buffers.keys[0].bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  vk::Buffer valuesBack(context_, buffers.values[0].bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  const VkDeviceSize bytes = uint64_t{count} * 4;
  context_.submitAndWait([&](VkCommandBuffer commands) {
    copyBuffer(commands, keysIn, buffers.keys[0], bytes);
    copyBuffer(commands, valuesIn, buffers.values[0], bytes);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    recordSort(commands, buffers, count);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    copyBuffer(commands, buffers.keys[0], keysBack, bytes);
    copyBuffer(commands, buffers.values[0], valuesBack, bytes);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  std::memcpy(keys.data(), keysBack.mapped(), bytes);
  std::memcpy(values.data(), valuesBack.mapped(), bytes);
}

BinaryBvh GpuBvhBuilder::build(std::span<const Bounds> primitives) {
  BinaryBvh bvh;
  const auto count = static_cast<uint32_t>(primitives.size());
  if (count == 0) return bvh;
  if (count == 1) {
    bvh.nodes.push_back({.bounds = primitives[0], .firstPrimitive = 0, .primitiveCount = 1});
    bvh.primitiveOrder = {0};
    return bvh;
  }
  const auto& device = context_.capabilities();
  if (const std::string error = gpuBvhBuildMemoryError(count, device.deviceLocalBytes, device.name); !error.empty())
    throw std::runtime_error(error);
  const std::lock_guard lock(mutex_);
  const auto start = Clock::now();
  // The Morton grid spans the centroids' box; a flat axis gets no bits of it.
  Bounds centroids;
  for (const Bounds& box : primitives) centroids.extend(box.center());
  const auto scale = [](float lo, float hi) { return hi > lo ? 1024.0f / (hi - lo) : 0.0f; };

  const uint64_t nodeCount = 2 * uint64_t{count} - 1;
  SortBuffers sorting(context_, count);
  const vk::Buffer boxes = vk::uploadBuffer(context_, primitives, scratchUsage);
  const vk::Buffer karrasNodes = deviceArray(context_, count - 1, sizeof(gpu::KarrasNode));
  const vk::Buffer parents = deviceArray(context_, nodeCount, 4);
  const vk::Buffer nodeBounds = deviceArray(context_, nodeCount, sizeof(gpu::BuildBounds));
  const vk::Buffer visits = deviceArray(context_, count - 1, 4);
  const vk::Buffer nodes = deviceArray(context_, nodeCount, sizeof(gpu::BuildNode));
  vk::Buffer nodesBack(context_, nodes.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  vk::Buffer orderBack(context_, uint64_t{count} * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  const double uploadMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

  gpu::LbvhPush push{.primitives = boxes.address(),
                     .keys = sorting.keys[0].address(),
                     .order = sorting.values[0].address(),
                     .karrasNodes = karrasNodes.address(),
                     .parents = parents.address(),
                     .nodeBounds = nodeBounds.address(),
                     .visits = visits.address(),
                     .nodes = nodes.address(),
                     .centroidMin = toGpu(centroids.min),
                     .count = count,
                     .centroidScale = {scale(centroids.min.x, centroids.max.x), scale(centroids.min.y, centroids.max.y),
                                       scale(centroids.min.z, centroids.max.z)}};
  vk::StageTimer timer(context_);
  const auto gpuStart = Clock::now();
  context_.submitAndWait([&](VkCommandBuffer commands) {
    timer.begin(commands);
    vkCmdFillBuffer(commands, visits.get(), 0, VK_WHOLE_SIZE, 0);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    timer.time(commands, Stage::BvhMortonCodes, [&] { dispatch(commands, morton_, push, elementWorkgroups(count)); });
    computeToCompute(commands);
    timer.time(
        commands, Stage::BvhSort, [&] { recordSort(commands, sorting, count); }, 0, 3 * sortPasses);
    timer.time(commands, Stage::BvhHierarchy,
               [&] { dispatch(commands, hierarchy_, push, elementWorkgroups(count - 1)); });
    computeToCompute(commands);
    timer.time(commands, Stage::BvhFit, [&] { dispatch(commands, fit_, push, elementWorkgroups(count)); });
    computeToCompute(commands);
    timer.time(commands, Stage::BvhEmit, [&] { dispatch(commands, emit_, push, elementWorkgroups(nodeCount)); });
    timer.end(commands);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    copyBuffer(commands, nodes, nodesBack, nodes.bytes());
    copyBuffer(commands, sorting.values[0], orderBack, orderBack.bytes());
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  const double submitMs = std::chrono::duration<double, std::milli>(Clock::now() - gpuStart).count();
  const auto readStart = Clock::now();
  bvh.nodes.resize(nodeCount);
  std::memcpy(bvh.nodes.data(), nodesBack.mapped(), nodeCount * sizeof(BinaryBvhNode));
  bvh.primitiveOrder.resize(count);
  std::memcpy(bvh.primitiveOrder.data(), orderBack.mapped(), uint64_t{count} * 4);
  const double gpuMs = timer.read().frameNs * 1e-6;
  times_.gpuMs += gpuMs;
  // The submission's wall clock beyond the kernels' is the readback copy's (and the queue's).
  times_.transferMs += uploadMs + std::max(0.0, submitMs - gpuMs) +
                       std::chrono::duration<double, std::milli>(Clock::now() - readStart).count();
  ++times_.trees;
  return bvh;
}

GpuBvhBuildTimes GpuBvhBuilder::times() const {
  const std::lock_guard lock(mutex_);
  return times_;
}

}  // namespace ptbench
