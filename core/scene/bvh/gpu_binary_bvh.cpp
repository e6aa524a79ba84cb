#include "core/scene/bvh/gpu_binary_bvh.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/scene/bvh/bvh2.h"
#include "core/scene/bvh/cwbvh.h"
#include "core/scene/huge_pages.h"
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
static_assert(offsetof(gpu::LbvhPush, costs) == 104 && sizeof(gpu::LbvhPush) == 128);  // the guaranteed limit
static_assert(sizeof(gpu::CwbvhChoice) == 32 && sizeof(gpu::CwbvhCollapsePush) == 104);
static_assert(sizeof(gpu::CwbvhCollapseSummary) == 12 && sizeof(gpu::BlockScanPush) == 24);
static_assert(offsetof(gpu::Bvh2CollapsePush, count) == 64 && sizeof(gpu::Bvh2CollapsePush) == 80);
static_assert(sizeof(gpu::Bvh2CollapseSummary) == 12);

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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

// The values one workgroup scans at a time (shaders/bvh/scan.glsl).
constexpr uint32_t scanBlock = gpu::RADIX_SORT_WORKGROUP_SIZE * gpu::RADIX_SCAN_ITEMS;

uint64_t scanBlocks(uint64_t count) {
  return (count + scanBlock - 1) / scanBlock;
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
  // of the blocks' histograms, and per node (2 per primitive) a parent, a BVH2 cost, a
  // depth-first place and a BVH2 node index (4 each), a box (24), the emitted node (36) and a
  // CWBVH cost table (32); per inner node its Karras node (16), arrival count (4) and at most one
  // Bvh2Node (64); per possible wide node its binary root, eight slots, two counts (44) and a
  // CwbvhNode (80); CWBVH's leaf order (4). The boxes' staging and the readback buffers are host
  // memory.
  const uint64_t blocks = (primitives + gpu::RADIX_SORT_BLOCK - 1) / gpu::RADIX_SORT_BLOCK;
  const uint64_t perNode = 4 * 4 + sizeof(gpu::BuildBounds) + sizeof(gpu::BuildNode) + sizeof(gpu::CwbvhChoice);
  const uint64_t perInnerNode = sizeof(gpu::KarrasNode) + 4 + sizeof(gpu::Bvh2Node);
  const uint64_t perWideNode = 4 * (1 + gpu::CWBVH_WIDTH + 2) + sizeof(gpu::CwbvhNode);
  const uint64_t bytes = primitives * (16 + 24 + 2 * perNode + perInnerNode + perWideNode + 4) +
                         blocks * gpu::RADIX_SORT_DIGITS * 4 + scanBlocks(2 * primitives) * 4;
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

GpuBvhBuilder::GpuBvhBuilder(const vk::Context& context, const SahCosts& costs)
    : context_(context),
      costs_(costs),
      histogram_(vk::createComputePipeline(context, "bvh_radix_histogram", sizeof(gpu::RadixSortPush))),
      scan_(vk::createComputePipeline(context, "bvh_radix_scan", sizeof(gpu::RadixScanPush))),
      scanBlockSums_(vk::createComputePipeline(context, "bvh_scan_block_sums", sizeof(gpu::BlockScanPush))),
      scanBlocks_(vk::createComputePipeline(context, "bvh_scan_blocks", sizeof(gpu::BlockScanPush))),
      scatter_(vk::createComputePipeline(context, "bvh_radix_scatter", sizeof(gpu::RadixSortPush))),
      morton_(vk::createComputePipeline(context, "bvh_lbvh_morton", sizeof(gpu::LbvhPush))),
      hierarchy_(vk::createComputePipeline(context, "bvh_lbvh_hierarchy", sizeof(gpu::LbvhPush))),
      fit_(vk::createComputePipeline(context, "bvh_lbvh_fit", sizeof(gpu::LbvhPush))),
      emit_(vk::createComputePipeline(context, "bvh_lbvh_emit", sizeof(gpu::LbvhPush))),
      bvh2Flag_(vk::createComputePipeline(context, "bvh_bvh2_flag", sizeof(gpu::Bvh2CollapsePush))),
      bvh2Emit_(vk::createComputePipeline(context, "bvh_bvh2_emit", sizeof(gpu::Bvh2CollapsePush))),
      cwbvhChildren_(vk::createComputePipeline(context, "bvh_cwbvh_children", sizeof(gpu::CwbvhCollapsePush))),
      cwbvhExpand_(vk::createComputePipeline(context, "bvh_cwbvh_expand", sizeof(gpu::CwbvhCollapsePush))),
      cwbvhEmit_(vk::createComputePipeline(context, "bvh_cwbvh_emit", sizeof(gpu::CwbvhCollapsePush))) {}

// One workgroup scans up to this many values round by round; longer scans (a level's 2n - 1
// BVH2 flags, for 50M triangles 100M) are spread over workgroups: block sums, their scan in one
// workgroup, then every block from its prefix.
constexpr uint32_t singleWorkgroupScanLimit = 16 * scanBlock;

void GpuBvhBuilder::recordScan(VkCommandBuffer commands, VkDeviceAddress values, uint32_t count,
                               const vk::Buffer& blockSums) const {
  if (count <= singleWorkgroupScanLimit) {
    dispatch(commands, scan_, gpu::RadixScanPush{.values = values, .count = count}, 1);
    return;
  }
  const uint32_t blocks = static_cast<uint32_t>(scanBlocks(count));
  if (blockSums.bytes() < uint64_t{blocks} * 4)
    throw std::logic_error("a scan of " + std::to_string(count) + " values given " + std::to_string(blockSums.bytes()) +
                           " bytes of block sums");
  const gpu::BlockScanPush push{.values = values, .blockSums = blockSums.address(), .count = count};
  const uint32_t workgroups = std::min(blocks, gpu::BVH_BUILD_MAX_WORKGROUPS);
  dispatch(commands, scanBlockSums_, push, workgroups);
  computeToCompute(commands);
  dispatch(commands, scan_, gpu::RadixScanPush{.values = blockSums.address(), .count = blocks}, 1);
  computeToCompute(commands);
  dispatch(commands, scanBlocks_, push, workgroups);
}

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

void GpuBvhBuilder::scan(std::vector<uint32_t>& values) {
  const auto count = static_cast<uint32_t>(values.size());
  if (count == 0) return;
  const std::lock_guard lock(mutex_);
  const vk::Buffer device = vk::uploadBuffer(context_, std::span<const uint32_t>(values), scratchUsage);
  const vk::Buffer blockSums = deviceArray(context_, scanBlocks(count), 4);
  vk::Buffer back(context_, device.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  context_.submitAndWait([&](VkCommandBuffer commands) {
    recordScan(commands, device.address(), count, blockSums);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    copyBuffer(commands, device, back, device.bytes());
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  std::memcpy(values.data(), back.mapped(), device.bytes());
}

BinaryBvh GpuBvhBuilder::build(std::span<const Bounds> primitives) {
  return buildLevel(primitives, {}, true).binary;
}

PrebuiltLevel GpuBvhBuilder::buildLevel(std::span<const Bounds> primitives, std::span<const BvhLayout> layouts,
                                        bool withBinary) {
  const bool wantsBvh2 = std::find(layouts.begin(), layouts.end(), BvhLayout::Bvh2) != layouts.end();
  const bool wantsCwbvh = std::find(layouts.begin(), layouts.end(), BvhLayout::Cwbvh) != layouts.end();
  PrebuiltLevel level;
  const auto count = static_cast<uint32_t>(primitives.size());
  if (count == 0) return level;
  if (count == 1) {
    // One leaf: the CPU's collapses have nothing to gain from the GPU.
    level.binary.nodes.push_back({.bounds = primitives[0], .firstPrimitive = 0, .primitiveCount = 1});
    level.binary.primitiveOrder = {0};
    level.bounds = primitives[0];
    ThreadBudget oneThread(1);
    if (wantsBvh2) level.bvh2 = collapseToBvh2(level.binary, costs_, oneThread);
    if (wantsCwbvh) level.cwbvh = collapseToCwbvh(level.binary, costs_, oneThread);
    return level;
  }
  const auto& device = context_.capabilities();
  if (const std::string error = gpuBvhBuildMemoryError(count, device.deviceLocalBytes, device.name); !error.empty())
    throw std::runtime_error(error);
  // The host's part before and after the submissions runs outside the lock, so that while one
  // level's kernels run on the queue the next level's boxes are staged and the previous level's
  // trees converted (meshes build on several threads); only the device arrays and the
  // submissions take turns.
  const auto prepareStart = Clock::now();
  // The Morton grid spans the centroids' box; a flat axis gets no bits of it.
  Bounds centroids;
  for (const Bounds& box : primitives) centroids.extend(box.center());
  const auto scale = [](float lo, float hi) { return hi > lo ? 1024.0f / (hi - lo) : 0.0f; };
  const uint64_t nodeCount = 2 * uint64_t{count} - 1;
  const VkDeviceSize boxBytes = primitives.size_bytes();
  vk::Buffer staging(context_, boxBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload);
  std::memcpy(staging.mapped(), primitives.data(), boxBytes);
  const auto readback = [&](VkDeviceSize bytes) {
    return vk::Buffer(context_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  };
  std::optional<vk::Buffer> nodesBack, bvh2Back, cwbvhBack;
  if (withBinary) nodesBack.emplace(readback(nodeCount * sizeof(gpu::BuildNode)));
  // The sorted order is the binary tree's and BVH2's leaf order; CWBVH's has its own.
  vk::Buffer orderBack = readback(uint64_t{count} * 4);
  std::optional<vk::Buffer> cwbvhOrderBack;
  if (wantsCwbvh) cwbvhOrderBack.emplace(readback(uint64_t{count} * 4));
  vk::Buffer rootBack = readback(sizeof(gpu::BuildBounds));
  vk::Buffer bvh2SummaryBack = readback(sizeof(gpu::Bvh2CollapseSummary));
  vk::Buffer cwbvhSummaryBack = readback(sizeof(gpu::CwbvhCollapseSummary));
  const double prepareMs = msSince(prepareStart);

  double lockWaitMs = 0, allocateMs = 0, copyMs = 0, gpuMs = 0;
  gpu::Bvh2CollapseSummary bvh2Summary{};
  gpu::CwbvhCollapseSummary cwbvhSummary{};
  uint32_t wideNodeCount = 0;
  const auto lockStart = Clock::now();
  {
    const std::lock_guard lock(mutex_);
    lockWaitMs = msSince(lockStart);
    const auto allocateStart = Clock::now();
    SortBuffers sorting(context_, count);
    const vk::Buffer boxes = deviceArray(context_, count, sizeof(gpu::BuildBounds));
    const vk::Buffer karrasNodes = deviceArray(context_, count - 1, sizeof(gpu::KarrasNode));
    const vk::Buffer parents = deviceArray(context_, nodeCount, 4);
    const vk::Buffer nodeBounds = deviceArray(context_, nodeCount, sizeof(gpu::BuildBounds));
    const vk::Buffer visits = deviceArray(context_, count - 1, 4);
    const vk::Buffer nodes = deviceArray(context_, nodeCount, sizeof(gpu::BuildNode));
    const vk::Buffer costs = deviceArray(context_, nodeCount, 4);
    const vk::Buffer places = deviceArray(context_, nodeCount, 4);
    const vk::Buffer scanBlockSums = deviceArray(context_, scanBlocks(nodeCount), 4);
    std::optional<vk::Buffer> nodeIndices, bvh2Nodes, bvh2SummaryBuffer;
    if (wantsBvh2) {
      nodeIndices.emplace(deviceArray(context_, nodeCount, 4));
      bvh2Nodes.emplace(deviceArray(context_, count - 1, sizeof(gpu::Bvh2Node)));
      bvh2SummaryBuffer.emplace(deviceArray(context_, 1, sizeof(gpu::Bvh2CollapseSummary)));
    }
    // A wide node has two children at least, so there are fewer than `count` of them.
    std::optional<vk::Buffer> choices, wideRoots, wideSlots, innerCounts, leafCounts, wideNodes, cwbvhOrder,
        cwbvhSummaryBuffer;
    if (wantsCwbvh) {
      choices.emplace(deviceArray(context_, nodeCount, sizeof(gpu::CwbvhChoice)));
      wideRoots.emplace(deviceArray(context_, count, 4));
      wideSlots.emplace(deviceArray(context_, uint64_t{count} * gpu::CWBVH_WIDTH, 4));
      innerCounts.emplace(deviceArray(context_, count, 4));
      leafCounts.emplace(deviceArray(context_, count, 4));
      wideNodes.emplace(deviceArray(context_, count, sizeof(gpu::CwbvhNode)));
      cwbvhOrder.emplace(deviceArray(context_, count, 4));
      cwbvhSummaryBuffer.emplace(deviceArray(context_, 1, sizeof(gpu::CwbvhCollapseSummary)));
    }
    allocateMs = msSince(allocateStart);

    // Each submission's kernels timed on their own, after what `untimed` records (the upload);
    // its wall clock beyond them is the copies' (and the queue's). A barrier first makes the
    // earlier submissions' writes visible to this one's kernels and copies.
    using Record = std::function<void(VkCommandBuffer, vk::StageTimer&)>;
    const auto submit = [&](const Record& record, const std::function<void(VkCommandBuffer)>& untimed = {}) {
      vk::StageTimer timer(context_);
      const auto submitStart = Clock::now();
      context_.submitAndWait([&](VkCommandBuffer commands) {
        vk::memoryBarrier(
            commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_TRANSFER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_READ_BIT);
        if (untimed) untimed(commands);
        timer.begin(commands);
        record(commands, timer);
        timer.end(commands);
        vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
      });
      const double kernelsMs = timer.read().frameNs * 1e-6;
      gpuMs += kernelsMs;
      copyMs += std::max(0.0, msSince(submitStart) - kernelsMs);
    };
    const auto computeToTransfer = [](VkCommandBuffer commands) {
      vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    };

    const gpu::LbvhPush push{
        .primitives = boxes.address(),
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
                          scale(centroids.min.z, centroids.max.z)},
        .nodeCost = costs_.node,
        .primitiveCost = costs_.primitive,
        .costs = costs.address(),
        .places = places.address(),
        .cwbvhChoices = choices ? choices->address() : 0};
    // The boxes up, the binary tree, the BVH2 collapse (its nodes come back once their number
    // is known), and the CWBVH collapse's first level: the root.
    const auto upload = [&](VkCommandBuffer commands) {
      copyBuffer(commands, staging, boxes, boxBytes);
      vkCmdFillBuffer(commands, visits.get(), 0, VK_WHOLE_SIZE, 0);
      if (wideRoots) vkCmdFillBuffer(commands, wideRoots->get(), 0, 4, 0);
      vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    };
    submit(
        [&](VkCommandBuffer commands, vk::StageTimer& timer) {
          timer.time(commands, Stage::BvhMortonCodes,
                     [&] { dispatch(commands, morton_, push, elementWorkgroups(count)); });
          computeToCompute(commands);
          timer.time(
              commands, Stage::BvhSort, [&] { recordSort(commands, sorting, count); }, 0, 3 * sortPasses);
          timer.time(commands, Stage::BvhHierarchy,
                     [&] { dispatch(commands, hierarchy_, push, elementWorkgroups(count - 1)); });
          computeToCompute(commands);
          timer.time(commands, Stage::BvhFit, [&] { dispatch(commands, fit_, push, elementWorkgroups(count)); });
          computeToCompute(commands);
          timer.time(commands, Stage::BvhEmit, [&] { dispatch(commands, emit_, push, elementWorkgroups(nodeCount)); });
          computeToCompute(commands);
          if (wantsBvh2) {
            const gpu::Bvh2CollapsePush collapse{.karrasNodes = karrasNodes.address(),
                                                 .parents = parents.address(),
                                                 .nodeBounds = nodeBounds.address(),
                                                 .costs = costs.address(),
                                                 .places = places.address(),
                                                 .nodeIndices = nodeIndices->address(),
                                                 .bvh2Nodes = bvh2Nodes->address(),
                                                 .summary = bvh2SummaryBuffer->address(),
                                                 .count = count,
                                                 .nodeCost = costs_.node,
                                                 .primitiveCost = costs_.primitive};
            timer.time(
                commands, Stage::BvhCollapse,
                [&] {
                  dispatch(commands, bvh2Flag_, collapse, elementWorkgroups(nodeCount));
                  computeToCompute(commands);
                  // Prefix sums, not atomics: the nodes' indices do not depend on the scheduling.
                  recordScan(commands, nodeIndices->address(), static_cast<uint32_t>(nodeCount), scanBlockSums);
                  computeToCompute(commands);
                  dispatch(commands, bvh2Emit_, collapse, elementWorkgroups(count - 1));
                },
                0, 3);
            computeToTransfer(commands);
            copyBuffer(commands, *bvh2SummaryBuffer, bvh2SummaryBack, sizeof(gpu::Bvh2CollapseSummary));
          }
          computeToTransfer(commands);
          if (nodesBack) copyBuffer(commands, nodes, *nodesBack, nodesBack->bytes());
          copyBuffer(commands, sorting.values[0], orderBack, orderBack.bytes());
          copyBuffer(commands, nodeBounds, rootBack, sizeof(gpu::BuildBounds));
        },
        upload);

    // The CWBVH collapse's arrays, for wide-node levels [begin, end).
    const auto cwbvhPush = [&](uint32_t begin, uint32_t end) {
      return gpu::CwbvhCollapsePush{.karrasNodes = karrasNodes.address(),
                                    .nodeBounds = nodeBounds.address(),
                                    .choices = choices->address(),
                                    .sortedOrder = sorting.values[0].address(),
                                    .wideRoots = wideRoots->address(),
                                    .wideSlots = wideSlots->address(),
                                    .innerCounts = innerCounts->address(),
                                    .leafCounts = leafCounts->address(),
                                    .wideNodes = wideNodes->address(),
                                    .primitiveOrder = cwbvhOrder->address(),
                                    .summary = cwbvhSummaryBuffer->address(),
                                    .count = count,
                                    .levelBegin = begin,
                                    .levelEnd = end,
                                    .nodeCost = costs_.node};
    };
    if (wantsCwbvh) {
      gpu::CwbvhCollapsePush collapse = cwbvhPush(0, 1);
      // Level by level, breadth first: a level's wide nodes choose their children, a scan
      // places each node's inner children in the next level, and the host learns where that
      // level ends (a submission per level; the tree is as deep as a few times log8 n).
      while (collapse.levelEnd > collapse.levelBegin) {
        const uint32_t levelSize = collapse.levelEnd - collapse.levelBegin;
        submit([&](VkCommandBuffer commands, vk::StageTimer& timer) {
          timer.time(
              commands, Stage::BvhCollapse,
              [&] {
                dispatch(commands, cwbvhChildren_, collapse, elementWorkgroups(levelSize));
                computeToCompute(commands);
                recordScan(commands, innerCounts->address() + 4 * uint64_t{collapse.levelBegin}, levelSize,
                           scanBlockSums);
                computeToCompute(commands);
                dispatch(commands, cwbvhExpand_, collapse, elementWorkgroups(levelSize));
              },
              0, 3);
          computeToTransfer(commands);
          copyBuffer(commands, *cwbvhSummaryBuffer, cwbvhSummaryBack, sizeof(gpu::CwbvhCollapseSummary));
        });
        std::memcpy(&cwbvhSummary, cwbvhSummaryBack.mapped(), sizeof(cwbvhSummary));
        if (cwbvhSummary.nextLevelEnd < collapse.levelEnd || cwbvhSummary.nextLevelEnd > count)
          throw std::logic_error("the GPU's CWBVH collapse of " + std::to_string(count) + " primitives placed " +
                                 std::to_string(cwbvhSummary.nextLevelEnd) + " wide nodes");
        collapse.levelBegin = collapse.levelEnd;
        collapse.levelEnd = cwbvhSummary.nextLevelEnd;
      }
      wideNodeCount = collapse.levelEnd;
    }

    // The collapsed trees back, now that their sizes are known: BVH2's nodes, and CWBVH's nodes
    // once its leaves' primitive counts are scanned into each node's first primitive.
    if (wantsBvh2) {
      std::memcpy(&bvh2Summary, bvh2SummaryBack.mapped(), sizeof(bvh2Summary));
      if (bvh2Summary.nodeCount == 0 || bvh2Summary.nodeCount >= count)
        throw std::logic_error("the GPU's BVH2 collapse of " + std::to_string(count) + " primitives gave " +
                               std::to_string(bvh2Summary.nodeCount) + " nodes");
    }
    const auto allocateBackStart = Clock::now();
    if (wantsBvh2) bvh2Back.emplace(readback(uint64_t{bvh2Summary.nodeCount} * sizeof(gpu::Bvh2Node)));
    if (wantsCwbvh) cwbvhBack.emplace(readback(uint64_t{wideNodeCount} * sizeof(gpu::CwbvhNode)));
    allocateMs += msSince(allocateBackStart);
    submit([&](VkCommandBuffer commands, vk::StageTimer& timer) {
      if (wantsCwbvh) {
        const gpu::CwbvhCollapsePush emit = cwbvhPush(0, wideNodeCount);
        timer.time(
            commands, Stage::BvhCollapse,
            [&] {
              recordScan(commands, leafCounts->address(), wideNodeCount, scanBlockSums);
              computeToCompute(commands);
              dispatch(commands, cwbvhEmit_, emit, elementWorkgroups(wideNodeCount));
            },
            0, 2);
        computeToTransfer(commands);
        copyBuffer(commands, *wideNodes, *cwbvhBack, cwbvhBack->bytes());
        copyBuffer(commands, *cwbvhOrder, *cwbvhOrderBack, cwbvhOrderBack->bytes());
      }
      if (bvh2Back) copyBuffer(commands, *bvh2Nodes, *bvh2Back, bvh2Back->bytes());
    });
    // The device arrays go at the end of this scope, before the lock does, so that levels never
    // hold two sets at once.
  }

  const auto convertStart = Clock::now();
  std::memcpy(&level.bounds, rootBack.mapped(), sizeof(Bounds));
  std::vector<uint32_t> order;
  resizeInHugePages(order, count);
  std::memcpy(order.data(), orderBack.mapped(), uint64_t{count} * 4);
  if (nodesBack) {
    resizeInHugePages(level.binary.nodes, nodeCount);
    std::memcpy(level.binary.nodes.data(), nodesBack->mapped(), nodeCount * sizeof(BinaryBvhNode));
  }
  if (bvh2Back) {
    BvhTree<gpu::Bvh2Node> bvh2;
    resizeInHugePages(bvh2.nodes, bvh2Summary.nodeCount);
    std::memcpy(bvh2.nodes.data(), bvh2Back->mapped(), bvh2Back->bytes());
    // Two children a node, one node fewer inner children than nodes.
    bvh2.leafCount = uint64_t{bvh2Summary.nodeCount} + 1;
    bvh2.sahCost = bvh2Summary.rootArea > 0 ? bvh2Summary.rootCost / bvh2Summary.rootArea : 0;
    // The leaves reference the primitives in the binary tree's leaf order, the sorted one.
    if (withBinary)
      bvh2.primitiveOrder = order;
    else
      bvh2.primitiveOrder = std::move(order);
    level.bvh2 = std::move(bvh2);
  }
  if (cwbvhBack) {
    BvhTree<gpu::CwbvhNode> cwbvh;
    resizeInHugePages(cwbvh.nodes, wideNodeCount);
    std::memcpy(cwbvh.nodes.data(), cwbvhBack->mapped(), cwbvhBack->bytes());
    resizeInHugePages(cwbvh.primitiveOrder, count);
    std::memcpy(cwbvh.primitiveOrder.data(), cwbvhOrderBack->mapped(), uint64_t{count} * 4);
    // Every slot that is neither empty (meta 0) nor inner (imask) is a leaf.
    for (const gpu::CwbvhNode& node : cwbvh.nodes) {
      const uint32_t imask = node.exponentsAndImask >> 24;
      for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot)
        cwbvh.leafCount += ((node.meta[slot / 4] >> (8 * (slot % 4))) & 0xffu) != 0 && !((imask >> slot) & 1);
    }
    cwbvh.sahCost = cwbvhSummary.rootArea > 0 ? cwbvhSummary.rootCost / cwbvhSummary.rootArea : 0;
    level.cwbvh = std::move(cwbvh);
  }
  if (withBinary) level.binary.primitiveOrder = std::move(order);
  const double convertMs = msSince(convertStart);

  const std::lock_guard lock(mutex_);
  times_.gpuMs += gpuMs;
  times_.prepareMs += prepareMs;
  times_.lockWaitMs += lockWaitMs;
  times_.allocateMs += allocateMs;
  times_.copyMs += copyMs;
  times_.convertMs += convertMs;
  times_.transferMs += prepareMs + allocateMs + copyMs + convertMs;
  ++times_.trees;
  return level;
}

GpuBvhBuildTimes GpuBvhBuilder::times() const {
  const std::lock_guard lock(mutex_);
  return times_;
}

}  // namespace ptbench
