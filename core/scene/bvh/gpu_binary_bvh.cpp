#include "core/scene/bvh/gpu_binary_bvh.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/elapsed.h"
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
static_assert(offsetof(gpu::TreeletPush, count) == 88 && sizeof(gpu::TreeletPush) <= 128);

using Clock = std::chrono::steady_clock;

constexpr VkBufferUsageFlags scratchUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr uint32_t keyBits = 32;
constexpr uint32_t sortPasses = keyBits / gpu::RADIX_SORT_BITS;

// Each kernel's writes visible to the next kernel's reads (and writes: the sort's ping-pong).
void computeToCompute(VkCommandBuffer commands) {
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

// A copy's or fill's writes visible to the next kernels.
void transferToCompute(VkCommandBuffer commands) {
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

template <typename Push>
void dispatch(VkCommandBuffer commands, const vk::ComputePipeline& kernel, const Push& push, uint32_t workgroups) {
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline.get());
  vkCmdPushConstants(commands, kernel.layout.get(), VK_SHADER_STAGE_ALL, 0, sizeof(push), &push);
  vkCmdDispatch(commands, workgroups, 1, 1);
}

static_assert(GpuBvhBuilder::defaultMaxWorkgroups == gpu::BVH_BUILD_MAX_WORKGROUPS);

// The values one workgroup scans at a time (shaders/bvh/scan.glsl).
constexpr uint32_t scanBlock = gpu::RADIX_SORT_WORKGROUP_SIZE * gpu::RADIX_SCAN_ITEMS;

uint64_t scanBlocks(uint64_t count) {
  return (count + scanBlock - 1) / scanBlock;
}

uint32_t sortBlocks(uint32_t count) {
  return (count + gpu::RADIX_SORT_BLOCK - 1) / gpu::RADIX_SORT_BLOCK;
}

void copyBuffer(VkCommandBuffer commands, const vk::Buffer& from, const vk::Buffer& to, VkDeviceSize bytes,
                VkDeviceSize fromOffset = 0, VkDeviceSize toOffset = 0) {
  const VkBufferCopy region{.srcOffset = fromOffset, .dstOffset = toOffset, .size = bytes};
  vkCmdCopyBuffer(commands, from.get(), to.get(), 1, &region);
}

}  // namespace

// Buffers kept for reuse across levels and batches: the driver's allocations (device memory
// cleared, host memory pinned and mapped for the GPU) cost more than a level's copies and
// kernels, and a scene's meshes ask for much the same sizes again and again.
class GpuBufferPool {
 public:
  explicit GpuBufferPool(const vk::Context& context) : context_(context) {}

  // A buffer of `bytes` at least: the smallest free one of `use` that holds them, or a new one
  // of up to a quarter more, so that a later, slightly larger request finds it too. When no free
  // device array fits, the free ones (all smaller) are freed first: device memory is the
  // scarcer, and the larger arrays serve the smaller requests. Where the device has no room for
  // the rounded size, the exact one, so that a level gpuBvhBuildMemoryError lets through fits.
  vk::Buffer take(VkDeviceSize bytes, vk::MemoryUse use) {
    bytes = std::max<VkDeviceSize>(bytes, 4);
    {
      const std::lock_guard lock(mutex_);
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->first == use && it->second.bytes() >= bytes &&
            (best == free_.end() || it->second.bytes() < best->second.bytes()))
          best = it;
      if (best != free_.end()) {
        vk::Buffer buffer = std::move(best->second);
        free_.erase(best);
        return buffer;
      }
      if (use == vk::MemoryUse::DeviceOnly) release(use);
    }
    try {
      return vk::Buffer(context_, pooledBytes(bytes), scratchUsage, use);
    } catch (const vk::VulkanError& error) {
      if (!error.outOfMemory()) throw;
      return vk::Buffer(context_, bytes, scratchUsage, use);
    }
  }
  void giveBack(vk::Buffer buffer, vk::MemoryUse use) {
    const std::lock_guard lock(mutex_);
    free_.emplace_back(use, std::move(buffer));
  }

 private:
  void release(vk::MemoryUse use) {
    std::erase_if(free_, [&](const auto& entry) { return entry.first == use; });
  }
  // Rounded up to a quarter of the power of two below: at most a quarter more.
  static VkDeviceSize pooledBytes(VkDeviceSize bytes) {
    const VkDeviceSize step = std::max<VkDeviceSize>((VkDeviceSize{1} << (std::bit_width(bytes) - 1)) / 4, 4096);
    return vk::alignUp(bytes, step);
  }
  const vk::Context& context_;
  std::mutex mutex_;
  std::vector<std::pair<vk::MemoryUse, vk::Buffer>> free_;
};

// A buffer from the pool for as long as it lives, then back to the pool; `bytes` is what was
// asked for (the buffer may be larger).
class PooledBuffer {
 public:
  PooledBuffer(GpuBufferPool& pool, VkDeviceSize bytes, vk::MemoryUse use)
      : pool_(&pool), use_(use), bytes_(bytes), buffer_(pool.take(bytes, use)) {}
  PooledBuffer(PooledBuffer&& other) noexcept = default;
  PooledBuffer& operator=(PooledBuffer&&) = delete;
  ~PooledBuffer() {
    if (buffer_.get() != VK_NULL_HANDLE) pool_->giveBack(std::move(buffer_), use_);
  }
  const vk::Buffer& buffer() const { return buffer_; }
  VkDeviceSize bytes() const { return bytes_; }
  void* mapped() const { return buffer_.mapped(); }

 private:
  GpuBufferPool* pool_;
  vk::MemoryUse use_;
  VkDeviceSize bytes_;
  vk::Buffer buffer_;
};

namespace {

// One device array for a batch of levels, a region each, aligned for the kernels' buffer
// references: a batch allocates as many arrays as one level does, however many levels it holds.
class BatchArray {
 public:
  BatchArray(GpuBufferPool& pool, std::span<const uint64_t> counts, uint64_t elementBytes)
      : offsets_(regionOffsets(counts, elementBytes)), buffer_(pool, offsets_.back(), vk::MemoryUse::DeviceOnly) {}
  VkDeviceAddress address(size_t level) const { return buffer_.buffer().address() + offsets_[level]; }
  VkDeviceSize offset(size_t level) const { return offsets_[level]; }
  VkDeviceSize bytes() const { return offsets_.back(); }  // every region's; the buffer may be larger
  const vk::Buffer& buffer() const { return buffer_.buffer(); }

 private:
  // Each level's region's start, then the array's size; an empty region still gets one element,
  // as a level's own array would.
  static std::vector<VkDeviceSize> regionOffsets(std::span<const uint64_t> counts, uint64_t elementBytes) {
    std::vector<VkDeviceSize> offsets{0};
    for (const uint64_t count : counts)
      offsets.push_back(offsets.back() + vk::alignUp(std::max<uint64_t>(count, 1) * elementBytes, 256));
    return offsets;
  }
  std::vector<VkDeviceSize> offsets_;
  PooledBuffer buffer_;
};

// What the host reads back of each level besides its trees.
struct LevelSummary {
  gpu::BuildBounds root;
  gpu::Bvh2CollapseSummary bvh2;
  gpu::CwbvhCollapseSummary cwbvh;
};

}  // namespace

uint64_t gpuBvhBuildDeviceBytes(uint64_t primitives) {
  // Per primitive: keys and values twice (16 bytes), its box (24), its share of the blocks'
  // histograms, and per node (2 per primitive) a parent, a BVH2 cost, a depth-first place and a
  // BVH2 node index (4 each), a box (24), the emitted node (36) and a CWBVH cost table (32); per
  // inner node its Karras node (16), arrival count (4) and at most one Bvh2Node (64); per possible
  // wide node its binary root, eight slots, two counts (44) and a CwbvhNode (80); CWBVH's leaf
  // order (4). The boxes' staging and the readback buffers are host memory.
  const uint64_t blocks = (primitives + gpu::RADIX_SORT_BLOCK - 1) / gpu::RADIX_SORT_BLOCK;
  const uint64_t perNode = 4 * 4 + sizeof(gpu::BuildBounds) + sizeof(gpu::BuildNode) + sizeof(gpu::CwbvhChoice);
  const uint64_t perInnerNode = sizeof(gpu::KarrasNode) + 4 + sizeof(gpu::Bvh2Node);
  const uint64_t perWideNode = 4 * (1 + gpu::CWBVH_WIDTH + 2) + sizeof(gpu::CwbvhNode);
  return primitives * (16 + 24 + 2 * perNode + perInnerNode + perWideNode + 4) + blocks * gpu::RADIX_SORT_DIGITS * 4 +
         scanBlocks(2 * primitives) * 4;
}

std::string gpuBvhBuildMemoryError(uint64_t primitives, uint64_t deviceLocalBytes, const std::string& device) {
  const uint64_t bytes = gpuBvhBuildDeviceBytes(primitives);
  if (bytes <= deviceLocalBytes) return "";
  const auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
  return "the GPU builder needs " + mib(bytes) + " for a level of " + std::to_string(primitives) + " primitives, but " +
         device + " has " + mib(deviceLocalBytes) + " of device memory; use software_builder: cpu";
}

// One sort: keys and values, each twice (every pass sorts from one copy into the other), and
// the blocks' histograms.
struct GpuBvhBuilder::SortTarget {
  VkDeviceAddress keys[2], values[2], blockHistograms;
  uint32_t count;
};

// One scan: `blockSums` holds `blockSumCapacity` uints, one per 4096 values (used when the scan
// spreads over workgroups).
struct GpuBvhBuilder::ScanTarget {
  VkDeviceAddress values;
  uint32_t count;
  VkDeviceAddress blockSums;
  uint64_t blockSumCapacity;
};

// A level on its way through a batch: what the host prepares, and what the batch gives back for
// the host to convert.
struct GpuBvhBuilder::LevelJob {
  uint32_t count = 0;
  bool wantsBvh2 = false, wantsCwbvh = false, withBinary = false;
  Bounds centroids;
  std::optional<PooledBuffer> staging;  // the primitives' boxes
  // The sorted order is the binary tree's and BVH2's leaf order; CWBVH's has its own.
  std::optional<PooledBuffer> orderBack, cwbvhOrderBack, nodesBack;
  double prepareMs = 0;
  Clock::time_point prepared;
  double batchWaitMs = 0;   // from prepared to its batch's start
  double batchShareMs = 0;  // its share, by primitives, of its batch's wall clock
  // Filled by the batch.
  LevelSummary summary{};
  uint32_t wideNodeCount = 0;
  std::optional<PooledBuffer> bvh2Back, cwbvhBack;  // the collapsed trees' nodes
};

struct GpuBvhBuilder::BatchTimes {
  double gpuMs = 0, allocateMs = 0, copyMs = 0;
  std::map<Stage, double> stageGpuMs;
};

GpuBvhBuilder::GpuBvhBuilder(const vk::Context& context, const SahCosts& costs, uint64_t batchPrimitives,
                             uint32_t treeletRounds, uint32_t maxWorkgroups)
    : context_(context),
      costs_(costs),
      batchPrimitives_(batchPrimitives),
      treeletRounds_(treeletRounds),
      maxWorkgroups_(std::clamp<uint32_t>(maxWorkgroups, 1, gpu::BVH_BUILD_MAX_WORKGROUPS)),
      pool_(std::make_unique<GpuBufferPool>(context)),
      histogram_(vk::createComputePipeline(context, "bvh_radix_histogram", sizeof(gpu::RadixSortPush))),
      scan_(vk::createComputePipeline(context, "bvh_radix_scan", sizeof(gpu::RadixScanPush))),
      scanBlockSums_(vk::createComputePipeline(context, "bvh_scan_block_sums", sizeof(gpu::BlockScanPush))),
      scanBlocks_(vk::createComputePipeline(context, "bvh_scan_blocks", sizeof(gpu::BlockScanPush))),
      scatter_(vk::createComputePipeline(context, "bvh_radix_scatter", sizeof(gpu::RadixSortPush))),
      morton_(vk::createComputePipeline(context, "bvh_lbvh_morton", sizeof(gpu::LbvhPush))),
      hierarchy_(vk::createComputePipeline(context, "bvh_lbvh_hierarchy", sizeof(gpu::LbvhPush))),
      treeletStarts_(vk::createComputePipeline(context, "bvh_lbvh_treelet_starts", sizeof(gpu::TreeletPush))),
      treelets_(vk::createComputePipeline(context, "bvh_lbvh_treelets", sizeof(gpu::TreeletPush))),
      leafOrder_(vk::createComputePipeline(context, "bvh_lbvh_leaf_order", sizeof(gpu::TreeletPush))),
      renumber_(vk::createComputePipeline(context, "bvh_lbvh_renumber", sizeof(gpu::TreeletPush))),
      fit_(vk::createComputePipeline(context, "bvh_lbvh_fit", sizeof(gpu::LbvhPush))),
      emit_(vk::createComputePipeline(context, "bvh_lbvh_emit", sizeof(gpu::LbvhPush))),
      bvh2Flag_(vk::createComputePipeline(context, "bvh_bvh2_flag", sizeof(gpu::Bvh2CollapsePush))),
      bvh2Emit_(vk::createComputePipeline(context, "bvh_bvh2_emit", sizeof(gpu::Bvh2CollapsePush))),
      cwbvhChildren_(vk::createComputePipeline(context, "bvh_cwbvh_children", sizeof(gpu::CwbvhCollapsePush))),
      cwbvhExpand_(vk::createComputePipeline(context, "bvh_cwbvh_expand", sizeof(gpu::CwbvhCollapsePush))),
      cwbvhEmit_(vk::createComputePipeline(context, "bvh_cwbvh_emit", sizeof(gpu::CwbvhCollapsePush))) {}

GpuBvhBuilder::~GpuBvhBuilder() = default;

// One workgroup scans up to this many values round by round; longer scans (a level's 2n - 1
// BVH2 flags, for 50M triangles 100M) are spread over workgroups: block sums, their scan in one
// workgroup, then every block from its prefix.
constexpr uint32_t singleWorkgroupScanLimit = 16 * scanBlock;

void GpuBvhBuilder::recordScans(VkCommandBuffer commands, std::span<const ScanTarget> targets) const {
  const auto spread = [](const ScanTarget& target) { return target.count > singleWorkgroupScanLimit; };
  const auto push = [](const ScanTarget& target) {
    return gpu::BlockScanPush{.values = target.values, .blockSums = target.blockSums, .count = target.count};
  };
  const auto workgroups = [&](const ScanTarget& target) {
    return static_cast<uint32_t>(std::min<uint64_t>(scanBlocks(target.count), maxWorkgroups_));
  };
  bool anySpread = false;
  for (const ScanTarget& target : targets) {
    if (!spread(target)) continue;
    if (target.blockSumCapacity < scanBlocks(target.count))
      throw std::logic_error("a scan of " + std::to_string(target.count) + " values given room for " +
                             std::to_string(target.blockSumCapacity) + " block sums");
    dispatch(commands, scanBlockSums_, push(target), workgroups(target));
    anySpread = true;
  }
  if (anySpread) computeToCompute(commands);
  for (const ScanTarget& target : targets) {
    if (target.count == 0) continue;
    const gpu::RadixScanPush single =
        spread(target) ? gpu::RadixScanPush{.values = target.blockSums, .count = uint32_t(scanBlocks(target.count))}
                       : gpu::RadixScanPush{.values = target.values, .count = target.count};
    dispatch(commands, scan_, single, 1);
  }
  if (!anySpread) return;
  computeToCompute(commands);
  for (const ScanTarget& target : targets)
    if (spread(target)) dispatch(commands, scanBlocks_, push(target), workgroups(target));
}

// Four passes of 8 bits, each a histogram per block, one scan over them all and a stable
// scatter; an even number of passes leaves the result where the input was (keys[0], values[0]).
void GpuBvhBuilder::recordSorts(VkCommandBuffer commands, std::span<const SortTarget> targets) const {
  static_assert(sortPasses % 2 == 0);
  for (uint32_t shift = 0; shift < keyBits; shift += gpu::RADIX_SORT_BITS) {
    const uint32_t from = (shift / gpu::RADIX_SORT_BITS) % 2, to = 1 - from;
    const auto push = [&](const SortTarget& target) {
      return gpu::RadixSortPush{.keysIn = target.keys[from],
                                .valuesIn = target.values[from],
                                .keysOut = target.keys[to],
                                .valuesOut = target.values[to],
                                .blockHistograms = target.blockHistograms,
                                .count = target.count,
                                .shift = shift};
    };
    for (const SortTarget& target : targets)
      if (target.count >= 2) dispatch(commands, histogram_, push(target), sortBlocks(target.count));
    computeToCompute(commands);
    for (const SortTarget& target : targets)
      if (target.count >= 2)
        dispatch(commands, scan_,
                 gpu::RadixScanPush{.values = target.blockHistograms,
                                    .count = sortBlocks(target.count) * gpu::RADIX_SORT_DIGITS},
                 1);
    computeToCompute(commands);
    for (const SortTarget& target : targets)
      if (target.count >= 2) dispatch(commands, scatter_, push(target), sortBlocks(target.count));
    computeToCompute(commands);
  }
}

void GpuBvhBuilder::sort(std::vector<uint32_t>& keys, std::vector<uint32_t>& values) {
  if (keys.size() != values.size())
    throw std::logic_error("sorting " + std::to_string(keys.size()) + " keys with " + std::to_string(values.size()) +
                           " values");
  const auto count = static_cast<uint32_t>(keys.size());
  if (count == 0) return;
  const std::lock_guard lock(deviceMutex_);
  const uint64_t counts[] = {count}, histogramEntries[] = {uint64_t{sortBlocks(count)} * gpu::RADIX_SORT_DIGITS};
  const BatchArray sortedKeys[2] = {{*pool_, counts, 4}, {*pool_, counts, 4}},
                   sortedValues[2] = {{*pool_, counts, 4}, {*pool_, counts, 4}},
                   blockHistograms(*pool_, histogramEntries, 4);
  const SortTarget target{.keys = {sortedKeys[0].address(0), sortedKeys[1].address(0)},
                          .values = {sortedValues[0].address(0), sortedValues[1].address(0)},
                          .blockHistograms = blockHistograms.address(0),
                          .count = count};
  const vk::Buffer keysIn = vk::uploadBuffer(context_, std::span<const uint32_t>(keys), scratchUsage);
  const vk::Buffer valuesIn = vk::uploadBuffer(context_, std::span<const uint32_t>(values), scratchUsage);
  const VkDeviceSize bytes = uint64_t{count} * 4;
  vk::Buffer keysBack(context_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  vk::Buffer valuesBack(context_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  context_.submitAndWait([&](VkCommandBuffer commands) {
    copyBuffer(commands, keysIn, sortedKeys[0].buffer(), bytes);
    copyBuffer(commands, valuesIn, sortedValues[0].buffer(), bytes);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    recordSorts(commands, {&target, 1});
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    copyBuffer(commands, sortedKeys[0].buffer(), keysBack, bytes);
    copyBuffer(commands, sortedValues[0].buffer(), valuesBack, bytes);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  std::memcpy(keys.data(), keysBack.mapped(), bytes);
  std::memcpy(values.data(), valuesBack.mapped(), bytes);
}

void GpuBvhBuilder::scan(std::vector<uint32_t>& values) {
  const auto count = static_cast<uint32_t>(values.size());
  if (count == 0) return;
  const std::lock_guard lock(deviceMutex_);
  const vk::Buffer device = vk::uploadBuffer(context_, std::span<const uint32_t>(values), scratchUsage);
  const uint64_t blocks[] = {scanBlocks(count)};
  const BatchArray blockSums(*pool_, blocks, 4);
  const ScanTarget target{
      .values = device.address(), .count = count, .blockSums = blockSums.address(0), .blockSumCapacity = blocks[0]};
  vk::Buffer back(context_, device.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  context_.submitAndWait([&](VkCommandBuffer commands) {
    recordScans(commands, {&target, 1});
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
  const GpuLevelRequest request{.primitives = primitives, .layouts = layouts, .withBinary = withBinary};
  return std::move(buildLevels({&request, 1}).front());
}

std::vector<PrebuiltLevel> GpuBvhBuilder::buildLevels(std::span<const GpuLevelRequest> requests) {
  std::vector<PrebuiltLevel> built(requests.size());
  ThreadBudget oneThread(1);
  buildLevels(requests, oneThread, [&](size_t level, PrebuiltLevel trees) { built[level] = std::move(trees); });
  return built;
}

LevelsBuilder GpuBvhBuilder::levelsBuilder() {
  return [this](std::span<const std::span<const Bounds>> levels, std::span<const BvhLayout> layouts,
                ThreadBudget& budget, const std::function<void(size_t, PrebuiltLevel)>& built) {
    std::vector<GpuLevelRequest> requests;
    requests.reserve(levels.size());
    for (const std::span<const Bounds> level : levels) requests.push_back({.primitives = level, .layouts = layouts});
    buildLevels(requests, budget, built);
  };
}

void GpuBvhBuilder::buildLevels(std::span<const GpuLevelRequest> requests, ThreadBudget& budget,
                                const std::function<void(size_t, PrebuiltLevel)>& built) {
  const std::lock_guard oneAtATime(buildMutex_);
  const auto& device = context_.capabilities();
  std::vector<size_t> jobLevels;
  for (size_t l = 0; l < requests.size(); ++l) {
    const uint64_t primitives = requests[l].primitives.size();
    if (primitives < 2) continue;
    if (const std::string error = gpuBvhBuildMemoryError(primitives, device.deviceLocalBytes, device.name);
        !error.empty())
      throw std::runtime_error(error);
    jobLevels.push_back(l);
  }
  for (size_t l = 0; l < requests.size(); ++l) {
    const std::span<const Bounds> primitives = requests[l].primitives;
    if (primitives.size() > 1) continue;
    PrebuiltLevel level;
    if (primitives.size() == 1) {
      // One leaf: the CPU's collapses have nothing to gain from the GPU.
      level.binary.nodes.push_back({.bounds = primitives[0], .firstPrimitive = 0, .primitiveCount = 1});
      level.binary.primitiveOrder = {0};
      level.bounds = primitives[0];
      ThreadBudget oneThread(1);
      if (hasLayout(requests[l].layouts, BvhLayout::Bvh2)) level.bvh2 = collapseToBvh2(level.binary, costs_, oneThread);
      if (hasLayout(requests[l].layouts, BvhLayout::Cwbvh))
        level.cwbvh = collapseToCwbvh(level.binary, costs_, oneThread);
    }
    built(l, std::move(level));
  }
  std::vector<LevelJob> jobs(jobLevels.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const GpuLevelRequest& request = requests[jobLevels[j]];
    jobs[j].count = static_cast<uint32_t>(request.primitives.size());
    jobs[j].wantsBvh2 = hasLayout(request.layouts, BvhLayout::Bvh2);
    jobs[j].wantsCwbvh = hasLayout(request.layouts, BvhLayout::Cwbvh);
    jobs[j].withBinary = request.withBinary;
  }
  const std::vector<std::vector<LevelJob*>> batches = batchesOf(jobs);
  if (batches.empty()) return;
  std::vector<size_t> jobBatches(jobs.size());
  for (size_t b = 0; b < batches.size(); ++b)
    for (const LevelJob* job : batches[b]) jobBatches[static_cast<size_t>(job - jobs.data())] = b;

  // The host's work runs beside the batches on every thread the budget spares, as a stream rather
  // than in steps: a thread converts (and hands over) a level whose batch is done, or else
  // prepares the next level, of a batch at most one ahead of the one running, so that the host
  // buffers held stay near three batches' (the last one's until its levels are handed over). The
  // batches wait on the device on a thread of their own, outside the budget: it takes no CPU time
  // while the kernels run.
  std::mutex mutex;
  std::condition_variable changed;
  size_t nextToPrepare = 0, batchesDone = 0, converted = 0;
  std::vector<size_t> preparedInBatch(batches.size(), 0);
  std::deque<LevelJob*> toConvert;
  std::exception_ptr failure;
  const auto fail = [&](std::exception_ptr error) {
    const std::lock_guard lock(mutex);
    if (!failure) failure = std::move(error);
    changed.notify_all();
  };
  // Every way out of either side goes through fail(), so that the other side stops waiting.
  std::future<void> batchesRun = std::async(std::launch::async, [&] {
    size_t b = 0;
    try {
      for (; b < batches.size(); ++b) {
        {
          std::unique_lock lock(mutex);
          changed.wait(lock, [&] { return failure || preparedInBatch[b] == batches[b].size(); });
          if (failure) return;
        }
        runBatch(batches[b]);
        const std::lock_guard lock(mutex);
        toConvert.insert(toConvert.end(), batches[b].begin(), batches[b].end());
        ++batchesDone;
        changed.notify_all();
      }
    } catch (const std::exception& error) {
      // Every level of the batch fails; the message says the level may not be the one at fault.
      if (b == batches.size() || batches[b].size() == 1) return fail(std::current_exception());
      uint64_t primitives = 0;
      for (const LevelJob* job : batches[b]) primitives += job->count;
      fail(std::make_exception_ptr(std::runtime_error("a batch of " + std::to_string(batches[b].size()) + " levels (" +
                                                      std::to_string(primitives) +
                                                      " primitives) built together failed: " + error.what())));
    } catch (...) {
      fail(std::current_exception());
    }
  });
  // Under `mutex`: whether the next level may be prepared; whether a level waits for conversion
  // or preparation, or the work is over.
  const auto mayPrepare = [&] { return nextToPrepare < jobs.size() && jobBatches[nextToPrepare] <= batchesDone + 1; };
  const auto workOrEnd = [&] { return failure || converted == jobs.size() || !toConvert.empty() || mayPrepare(); };
  const auto hostWork = [&] {
    std::unique_lock lock(mutex);
    while (!failure && converted < jobs.size()) {
      if (!toConvert.empty()) {
        LevelJob& job = *toConvert.front();
        toConvert.pop_front();
        lock.unlock();
        try {
          built(jobLevels[static_cast<size_t>(&job - jobs.data())], convert(job));
        } catch (...) {
          fail(std::current_exception());
        }
        lock.lock();
        ++converted;
      } else if (mayPrepare()) {
        const size_t j = nextToPrepare++;
        lock.unlock();
        try {
          prepare(requests[jobLevels[j]], jobs[j]);
        } catch (...) {
          fail(std::current_exception());
        }
        lock.lock();
        ++preparedInBatch[jobBatches[j]];
        changed.notify_all();
      } else {
        // Nothing to do until a batch ends or a level is prepared: the place is lent meanwhile,
        // so that a level being handed over (its triangles placed) can spread over it.
        lock.unlock();
        budget.lendPlaceWhile([&] {
          std::unique_lock waiting(mutex);
          changed.wait(waiting, workOrEnd);
        });
        lock.lock();
      }
    }
    changed.notify_all();
  };
  try {
    parallelFor(budget, jobs.size(), [&](size_t) { hostWork(); });
  } catch (...) {
    fail(std::current_exception());
  }
  batchesRun.get();
  if (failure) std::rethrow_exception(failure);
}

// The host's part before the batch runs, so that while one batch's kernels run the next
// batch's boxes are staged and the previous batch's trees converted.
void GpuBvhBuilder::prepare(const GpuLevelRequest& request, LevelJob& job) const {
  const auto start = Clock::now();
  const std::span<const Bounds> primitives = request.primitives;
  // The Morton grid spans the centroids' box.
  for (const Bounds& box : primitives) job.centroids.extend(box.center());
  job.staging.emplace(*pool_, primitives.size_bytes(), vk::MemoryUse::Upload);
  std::memcpy(job.staging->mapped(), primitives.data(), primitives.size_bytes());
  job.orderBack.emplace(*pool_, uint64_t{job.count} * 4, vk::MemoryUse::Readback);
  if (job.wantsCwbvh) job.cwbvhOrderBack.emplace(*pool_, uint64_t{job.count} * 4, vk::MemoryUse::Readback);
  if (job.withBinary)
    job.nodesBack.emplace(*pool_, (2 * uint64_t{job.count} - 1) * sizeof(gpu::BuildNode), vk::MemoryUse::Readback);
  job.prepared = Clock::now();
  job.prepareMs = millisecondsSince(start);
}

std::vector<std::vector<GpuBvhBuilder::LevelJob*>> GpuBvhBuilder::batchesOf(std::span<LevelJob> jobs) const {
  const uint64_t byteBudget = context_.capabilities().deviceLocalBytes / 4;
  std::vector<std::vector<LevelJob*>> batches;
  uint64_t primitives = 0, bytes = 0;
  for (LevelJob& job : jobs) {
    const uint64_t jobBytes = gpuBvhBuildDeviceBytes(job.count);
    if (batches.empty() || primitives + job.count > batchPrimitives_ || bytes + jobBytes > byteBudget) {
      batches.emplace_back();
      primitives = bytes = 0;
    }
    batches.back().push_back(&job);
    primitives += job.count;
    bytes += jobBytes;
  }
  return batches;
}

// One batch's run: its arrays (a region per level in each), the kernels' pushes, and the three
// steps of runBatch, each its own submissions. "Level" is a level of the software BVH, one
// mesh's or the top one; a CWBVH tree's levels of wide nodes are "wide levels".
class GpuBvhBuilder::Batch {
 public:
  Batch(const GpuBvhBuilder& builder, std::span<LevelJob* const> jobs)
      : builder_(builder),
        pool_(*builder.pool_),
        jobs_(jobs),
        timer_(builder.context_),
        primitives_(perLevel([](const LevelJob& job) { return job.count; })),
        innerNodes_(perLevel([](const LevelJob& job) { return job.count - 1; })),
        nodes_(perLevel([](const LevelJob& job) { return 2 * uint64_t{job.count} - 1; })),
        blockSumCounts_(perLevel([](const LevelJob& job) { return scanBlocks(2 * uint64_t{job.count} - 1); })),
        keys_{{pool_, primitives_, 4}, {pool_, primitives_, 4}},
        values_{{pool_, primitives_, 4}, {pool_, primitives_, 4}},
        blockHistograms_(
            pool_,
            perLevel([](const LevelJob& job) { return uint64_t{sortBlocks(job.count)} * gpu::RADIX_SORT_DIGITS; }), 4),
        boxes_(pool_, primitives_, sizeof(gpu::BuildBounds)),
        karrasNodes_(pool_, innerNodes_, sizeof(gpu::KarrasNode)),
        parents_(pool_, nodes_, 4),
        nodeBounds_(pool_, nodes_, sizeof(gpu::BuildBounds)),
        visits_(pool_, innerNodes_, 4),
        builtNodes_(pool_, nodes_, sizeof(gpu::BuildNode)),
        subtreeCosts_(pool_, nodes_, 4),
        places_(pool_, nodes_, 4),
        scanBlockSums_(pool_, blockSumCounts_, 4),
        summariesBack_(pool_, jobs.size() * sizeof(LevelSummary), vk::MemoryUse::Readback) {
    // The arrays of a layout no level of the batch asks for are left out; a level that does not
    // ask for one gets an empty region. A wide node has two children at least, so there are
    // fewer than `count` of them.
    if (levelsThat(wantsBvh2) > 0) {
      nodeIndices_.emplace(pool_, regionsFor(wantsBvh2, nodes_), 4);
      bvh2Nodes_.emplace(pool_, regionsFor(wantsBvh2, innerNodes_), sizeof(gpu::Bvh2Node));
      bvh2Summaries_.emplace(pool_, regionsFor(wantsBvh2, ones()), sizeof(gpu::Bvh2CollapseSummary));
    }
    if (levelsThat(wantsCwbvh) > 0) {
      choices_.emplace(pool_, regionsFor(wantsCwbvh, nodes_), sizeof(gpu::CwbvhChoice));
      wideRoots_.emplace(pool_, regionsFor(wantsCwbvh, primitives_), 4);
      wideSlots_.emplace(pool_, regionsFor(wantsCwbvh, primitives_, gpu::CWBVH_WIDTH), 4);
      innerCounts_.emplace(pool_, regionsFor(wantsCwbvh, primitives_), 4);
      leafCounts_.emplace(pool_, regionsFor(wantsCwbvh, primitives_), 4);
      wideNodes_.emplace(pool_, regionsFor(wantsCwbvh, primitives_), sizeof(gpu::CwbvhNode));
      cwbvhOrders_.emplace(pool_, regionsFor(wantsCwbvh, primitives_), 4);
      cwbvhSummaries_.emplace(pool_, regionsFor(wantsCwbvh, ones()), sizeof(gpu::CwbvhCollapseSummary));
    }
    makePushes();
  }

  // The boxes up, the binary trees (restructured by treelets), the BVH2 collapses (their nodes
  // come back once their number is known), and the CWBVH collapses' first wide level: the root.
  void buildBinaryTrees() {
    const uint32_t rounds = builder_.treeletRounds_;
    const auto upload = [&](VkCommandBuffer commands) {
      forEachLevel([&](size_t j) {
        copyBuffer(commands, jobs_[j]->staging->buffer(), boxes_.buffer(), jobs_[j]->staging->bytes(), 0,
                   boxes_.offset(j));
      });
      vkCmdFillBuffer(commands, visits_.buffer().get(), 0, visits_.bytes(), 0);
      forEachLevel(
          [&](size_t j) { vkCmdFillBuffer(commands, wideRoots_->buffer().get(), wideRoots_->offset(j), 4, 0); },
          wantsCwbvh);
      transferToCompute(commands);
    };
    submit(
        [&](VkCommandBuffer commands, vk::StageTimer& timer) {
          lbvhKernel(commands, timer, Stage::BvhMortonCodes, builder_.morton_,
                     [](const LevelJob& job) { return job.count; });
          timer.time(
              commands, Stage::BvhSort, [&] { builder_.recordSorts(commands, sorts_); }, 0,
              3 * sortPasses * uint32_t(jobs_.size()));
          lbvhKernel(commands, timer, Stage::BvhHierarchy, builder_.hierarchy_,
                     [](const LevelJob& job) { return job.count - 1; });
          if (rounds > 0) {
            for (uint32_t round = 0; round < rounds; ++round) restructureTreelets(commands, timer, round);
            renumberLeaves(commands, timer);
          }
          fitAndCollapseBvh2(commands, timer);
        },
        upload);
  }

  // The boxes fitted, the nodes placed depth first, BVH2's collapses, and what the host reads of
  // them before the CWBVH collapses go on.
  void fitAndCollapseBvh2(VkCommandBuffer commands, vk::StageTimer& timer) {
    const uint32_t bvh2Levels = levelsThat(wantsBvh2);
    lbvhKernel(commands, timer, Stage::BvhFit, builder_.fit_, [](const LevelJob& job) { return job.count; });
    lbvhKernel(commands, timer, Stage::BvhEmit, builder_.emit_,
               [](const LevelJob& job) { return 2 * uint64_t{job.count} - 1; });
    if (bvh2Levels > 0) {
      std::vector<ScanTarget> scans;
      forEachLevel([&](size_t j) { scans.push_back(scanOf(j, nodeIndices_->address(j), 2 * jobs_[j]->count - 1)); },
                   wantsBvh2);
      timer.time(
          commands, Stage::BvhCollapse,
          [&] {
            forEachLevel(
                [&](size_t j) {
                  dispatch(commands, builder_.bvh2Flag_, bvh2Collapses_[j],
                           elementWorkgroups(2 * uint64_t{jobs_[j]->count} - 1));
                },
                wantsBvh2);
            computeToCompute(commands);
            // Prefix sums, not atomics: the nodes' indices do not depend on the scheduling.
            builder_.recordScans(commands, scans);
            computeToCompute(commands);
            forEachLevel(
                [&](size_t j) {
                  dispatch(commands, builder_.bvh2Emit_, bvh2Collapses_[j], elementWorkgroups(jobs_[j]->count - 1));
                },
                wantsBvh2);
          },
          0, 3 * bvh2Levels);
    }
    computeToTransfer(commands);
    forEachLevel(
        [&](size_t j) {
          copyBuffer(commands, bvh2Summaries_->buffer(), summariesBack_.buffer(), sizeof(gpu::Bvh2CollapseSummary),
                     bvh2Summaries_->offset(j), summaryOffset(j, offsetof(LevelSummary, bvh2)));
        },
        wantsBvh2);
    forEachLevel([&](size_t j) {
      const LevelJob& job = *jobs_[j];
      if (job.nodesBack)
        copyBuffer(commands, builtNodes_.buffer(), job.nodesBack->buffer(), job.nodesBack->bytes(),
                   builtNodes_.offset(j));
      copyBuffer(commands, values_[0].buffer(), job.orderBack->buffer(), job.orderBack->bytes(), values_[0].offset(j));
      copyBuffer(commands, nodeBounds_.buffer(), summariesBack_.buffer(), sizeof(gpu::BuildBounds),
                 nodeBounds_.offset(j), summaryOffset(j, offsetof(LevelSummary, root)));
    });
  }

  // One of the LBVH kernels over every level's `elements`.
  void lbvhKernel(VkCommandBuffer commands, vk::StageTimer& timer, Stage stage, const vk::ComputePipeline& kernel,
                  const std::function<uint64_t(const LevelJob&)>& elements) {
    timer.time(
        commands, stage,
        [&] {
          forEachLevel([&](size_t j) { dispatch(commands, kernel, lbvh_[j], elementWorkgroups(elements(*jobs_[j]))); });
        },
        0, uint32_t(jobs_.size()));
    computeToCompute(commands);
  }

  // A treelet round: one climb of each tree, restructuring as it goes (lbvh_treelets.comp). Round
  // r restructures the subtrees of at least 7 * 2^r primitives. The first climbs every tree from
  // every leaf (for the primitive counts the renumbering reads too); the later ones climb the trees
  // that large from the nodes below that size whose parent is not, one invocation per node, found
  // first (lbvh_treelet_starts.comp). Each kernel is launched for every level between the same
  // barriers.
  void restructureTreelets(VkCommandBuffer commands, vk::StageTimer& timer, uint32_t round) {
    const uint32_t minPrimitives = gpu::TREELET_LEAVES << round;
    const LevelFilter climbed = [&](size_t j) { return round == 0 || jobs_[j]->count >= minPrimitives; };
    const uint32_t levels = levelsThat(climbed);
    if (levels == 0) return;
    const auto push = [&](size_t j) {
      gpu::TreeletPush roundPush = treelets_[j];
      roundPush.minPrimitives = minPrimitives;
      roundPush.firstRound = round == 0;
      return roundPush;
    };
    const auto nodes = [&](size_t j) { return 2 * uint64_t{jobs_[j]->count} - 1; };
    timer.time(
        commands, Stage::BvhTreelets,
        [&] {
          if (round > 0) {
            forEachLevel(
                [&](size_t j) {
                  dispatch(commands, builder_.treeletStarts_, push(j), elementWorkgroups((nodes(j) + 31) / 32));
                },
                climbed);
            computeToCompute(commands);
          }
          forEachLevel(
              [&](size_t j) {
                dispatch(commands, builder_.treelets_, push(j),
                         elementWorkgroups(round == 0 ? jobs_[j]->count : nodes(j), gpu::TREELET_WORKGROUP_SIZE));
              },
              climbed);
        },
        0, round == 0 ? levels : 2 * levels);
    computeToCompute(commands);
  }

  // After the last round, the leaves renumbered in the new depth-first order and that order over
  // the sorted one, where the fit, the emit and the collapses read it.
  void renumberLeaves(VkCommandBuffer commands, vk::StageTimer& timer) {
    timer.time(
        commands, Stage::BvhRenumber,
        [&] {
          forEachLevel([&](size_t j) {
            dispatch(commands, builder_.leafOrder_, treelets_[j], elementWorkgroups(jobs_[j]->count - 1));
          });
          computeToCompute(commands);
          forEachLevel([&](size_t j) {
            dispatch(commands, builder_.renumber_, treelets_[j], elementWorkgroups(jobs_[j]->count - 1));
          });
          computeToTransfer(commands);
          forEachLevel([&](size_t j) {
            copyBuffer(commands, keys_[0].buffer(), values_[0].buffer(), uint64_t{jobs_[j]->count} * 4,
                       keys_[0].offset(j), values_[0].offset(j));
          });
          transferToCompute(commands);
        },
        0, 2 * uint32_t(jobs_.size()));
  }

  // Wide level by wide level, breadth first, every CWBVH tree of the batch at once: a wide
  // level's nodes choose their children, a scan places each node's inner children in the next
  // wide level, and the host learns where that one ends (a submission per wide level of the
  // deepest tree; a tree is as deep as a few times log8 n).
  void collapseCwbvhWideLevels() {
    const LevelFilter growing = [&](size_t j) {
      return jobs_[j]->wantsCwbvh && cwbvhCollapses_[j].levelEnd > cwbvhCollapses_[j].levelBegin;
    };
    const auto wideLevelSize = [&](size_t j) { return cwbvhCollapses_[j].levelEnd - cwbvhCollapses_[j].levelBegin; };
    for (uint32_t treesGrowing = levelsThat(growing); treesGrowing > 0; treesGrowing = levelsThat(growing)) {
      submit([&](VkCommandBuffer commands, vk::StageTimer& timer) {
        std::vector<ScanTarget> scans;
        forEachLevel(
            [&](size_t j) {
              scans.push_back(
                  scanOf(j, innerCounts_->address(j) + 4 * uint64_t{cwbvhCollapses_[j].levelBegin}, wideLevelSize(j)));
            },
            growing);
        timer.time(
            commands, Stage::BvhCollapse,
            [&] {
              forEachLevel(
                  [&](size_t j) {
                    dispatch(commands, builder_.cwbvhChildren_, cwbvhCollapses_[j],
                             elementWorkgroups(wideLevelSize(j)));
                  },
                  growing);
              computeToCompute(commands);
              builder_.recordScans(commands, scans);
              computeToCompute(commands);
              forEachLevel(
                  [&](size_t j) {
                    dispatch(commands, builder_.cwbvhExpand_, cwbvhCollapses_[j], elementWorkgroups(wideLevelSize(j)));
                  },
                  growing);
            },
            0, 3 * treesGrowing);
        computeToTransfer(commands);
        forEachLevel(
            [&](size_t j) {
              copyBuffer(commands, cwbvhSummaries_->buffer(), summariesBack_.buffer(),
                         sizeof(gpu::CwbvhCollapseSummary), cwbvhSummaries_->offset(j),
                         summaryOffset(j, offsetof(LevelSummary, cwbvh)));
            },
            growing);
      });
      for (size_t j = 0; j < jobs_.size(); ++j) {
        if (!growing(j)) continue;
        gpu::CwbvhCollapsePush& collapse = cwbvhCollapses_[j];
        gpu::CwbvhCollapseSummary summary;
        std::memcpy(
            &summary,
            static_cast<const std::byte*>(summariesBack_.mapped()) + summaryOffset(j, offsetof(LevelSummary, cwbvh)),
            sizeof(summary));
        if (summary.nextLevelEnd < collapse.levelEnd || summary.nextLevelEnd > jobs_[j]->count)
          throw std::logic_error("the GPU's CWBVH collapse of " + std::to_string(jobs_[j]->count) +
                                 " primitives placed " + std::to_string(summary.nextLevelEnd) + " wide nodes");
        collapse.levelBegin = collapse.levelEnd;
        collapse.levelEnd = summary.nextLevelEnd;
      }
    }
  }

  // The collapsed trees back into each level's host buffers, now that their sizes are known:
  // BVH2's nodes, and CWBVH's once its leaves' primitive counts are scanned into each node's
  // first primitive.
  void readBackTrees() {
    std::vector<LevelSummary> summaries(jobs_.size());
    std::memcpy(summaries.data(), summariesBack_.mapped(), jobs_.size() * sizeof(LevelSummary));
    const auto allocateStart = Clock::now();
    for (size_t j = 0; j < jobs_.size(); ++j) {
      LevelJob& job = *jobs_[j];
      job.summary = summaries[j];
      if (job.wantsBvh2) {
        if (job.summary.bvh2.nodeCount == 0 || job.summary.bvh2.nodeCount >= job.count)
          throw std::logic_error("the GPU's BVH2 collapse of " + std::to_string(job.count) + " primitives gave " +
                                 std::to_string(job.summary.bvh2.nodeCount) + " nodes");
        job.bvh2Back.emplace(pool_, uint64_t{job.summary.bvh2.nodeCount} * sizeof(gpu::Bvh2Node),
                             vk::MemoryUse::Readback);
      }
      if (job.wantsCwbvh) {
        job.wideNodeCount = cwbvhCollapses_[j].levelEnd;
        job.cwbvhBack.emplace(pool_, uint64_t{job.wideNodeCount} * sizeof(gpu::CwbvhNode), vk::MemoryUse::Readback);
      }
    }
    times.allocateMs += millisecondsSince(allocateStart);
    const uint32_t cwbvhLevels = levelsThat(wantsCwbvh);
    submit([&](VkCommandBuffer commands, vk::StageTimer& timer) {
      if (cwbvhLevels > 0) {
        std::vector<ScanTarget> scans;
        forEachLevel([&](size_t j) { scans.push_back(scanOf(j, leafCounts_->address(j), jobs_[j]->wideNodeCount)); },
                     wantsCwbvh);
        timer.time(
            commands, Stage::BvhCollapse,
            [&] {
              builder_.recordScans(commands, scans);
              computeToCompute(commands);
              forEachLevel(
                  [&](size_t j) {
                    gpu::CwbvhCollapsePush emit = cwbvhCollapses_[j];
                    emit.levelBegin = 0;
                    emit.levelEnd = jobs_[j]->wideNodeCount;
                    dispatch(commands, builder_.cwbvhEmit_, emit, elementWorkgroups(jobs_[j]->wideNodeCount));
                  },
                  wantsCwbvh);
            },
            0, 2 * cwbvhLevels);
      }
      computeToTransfer(commands);
      forEachLevel([&](size_t j) {
        const LevelJob& job = *jobs_[j];
        if (job.wantsCwbvh) {
          copyBuffer(commands, wideNodes_->buffer(), job.cwbvhBack->buffer(), job.cwbvhBack->bytes(),
                     wideNodes_->offset(j));
          copyBuffer(commands, cwbvhOrders_->buffer(), job.cwbvhOrderBack->buffer(), job.cwbvhOrderBack->bytes(),
                     cwbvhOrders_->offset(j));
        }
        if (job.wantsBvh2)
          copyBuffer(commands, bvh2Nodes_->buffer(), job.bvh2Back->buffer(), job.bvh2Back->bytes(),
                     bvh2Nodes_->offset(j));
      });
    });
  }

  BatchTimes times;

 private:
  using LevelFilter = std::function<bool(size_t)>;

  std::vector<uint64_t> perLevel(const std::function<uint64_t(const LevelJob&)>& count) const {
    std::vector<uint64_t> each(jobs_.size());
    for (size_t j = 0; j < jobs_.size(); ++j) each[j] = count(*jobs_[j]);
    return each;
  }
  std::vector<uint64_t> ones() const { return std::vector<uint64_t>(jobs_.size(), 1); }
  // `each` level's elements times `perElement` where `wants` takes the level, else none.
  std::vector<uint64_t> regionsFor(const LevelFilter& wants, const std::vector<uint64_t>& each,
                                   uint64_t perElement = 1) const {
    std::vector<uint64_t> some(jobs_.size());
    for (size_t j = 0; j < jobs_.size(); ++j) some[j] = wants(j) ? each[j] * perElement : 0;
    return some;
  }
  // Each kernel is launched for every level (that `takes` part) before the barrier after it.
  void forEachLevel(const std::function<void(size_t)>& record, const LevelFilter& takes = {}) const {
    for (size_t j = 0; j < jobs_.size(); ++j)
      if (!takes || takes(j)) record(j);
  }
  uint32_t levelsThat(const LevelFilter& takes) const {
    uint32_t taken = 0;
    forEachLevel([&](size_t) { ++taken; }, takes);
    return taken;
  }
  static size_t summaryOffset(size_t level, size_t member) { return level * sizeof(LevelSummary) + member; }
  // The workgroups of a per-element kernel, which loops over the rest (FOR_EACH_ELEMENT; the
  // treelet rounds by workgroup).
  uint32_t elementWorkgroups(uint64_t count, uint32_t workgroupSize = gpu::WORKGROUP_SIZE_1D) const {
    return static_cast<uint32_t>(
        std::clamp<uint64_t>((count + workgroupSize - 1) / workgroupSize, 1, builder_.maxWorkgroups_));
  }
  ScanTarget scanOf(size_t j, VkDeviceAddress scanned, uint32_t count) const {
    return ScanTarget{.values = scanned,
                      .count = count,
                      .blockSums = scanBlockSums_.address(j),
                      .blockSumCapacity = blockSumCounts_[j]};
  }

  void makePushes() {
    const auto scale = [](float lo, float hi) { return hi > lo ? 1024.0f / (hi - lo) : 0.0f; };
    const SahCosts& sah = builder_.costs_;
    lbvh_.resize(jobs_.size());
    treelets_.resize(jobs_.size());
    sorts_.resize(jobs_.size());
    bvh2Collapses_.resize(jobs_.size());
    cwbvhCollapses_.resize(jobs_.size());
    for (size_t j = 0; j < jobs_.size(); ++j) {
      const LevelJob& job = *jobs_[j];
      const Bounds& c = job.centroids;
      lbvh_[j] = {.primitives = boxes_.address(j),
                  .keys = keys_[0].address(j),
                  .order = values_[0].address(j),
                  .karrasNodes = karrasNodes_.address(j),
                  .parents = parents_.address(j),
                  .nodeBounds = nodeBounds_.address(j),
                  .visits = visits_.address(j),
                  .nodes = builtNodes_.address(j),
                  .centroidMin = toGpu(c.min),
                  .count = job.count,
                  .centroidScale = {scale(c.min.x, c.max.x), scale(c.min.y, c.max.y), scale(c.min.z, c.max.z)},
                  .nodeCost = sah.node,
                  .primitiveCost = sah.primitive,
                  .costs = subtreeCosts_.address(j),
                  .places = places_.address(j),
                  .cwbvhChoices = job.wantsCwbvh ? choices_->address(j) : 0};
      // The sort's second keys and values are free once it is done, its first keys once the
      // hierarchy is built.
      treelets_[j] = {.primitives = boxes_.address(j),
                      .order = values_[0].address(j),
                      .karrasNodes = karrasNodes_.address(j),
                      .parents = parents_.address(j),
                      .nodeBounds = nodeBounds_.address(j),
                      .visits = visits_.address(j),
                      .costs = subtreeCosts_.address(j),
                      .primitiveCounts = places_.address(j),
                      .firstLeaves = keys_[1].address(j),
                      .renumberedOrder = keys_[0].address(j),
                      .startFlags = keys_[1].address(j),
                      .count = job.count,
                      .nodeCost = sah.node,
                      .primitiveCost = sah.primitive,
                      .minPrimitives = gpu::TREELET_LEAVES};
      sorts_[j] = {.keys = {keys_[0].address(j), keys_[1].address(j)},
                   .values = {values_[0].address(j), values_[1].address(j)},
                   .blockHistograms = blockHistograms_.address(j),
                   .count = job.count};
      if (job.wantsBvh2)
        bvh2Collapses_[j] = {.karrasNodes = karrasNodes_.address(j),
                             .parents = parents_.address(j),
                             .nodeBounds = nodeBounds_.address(j),
                             .costs = subtreeCosts_.address(j),
                             .places = places_.address(j),
                             .nodeIndices = nodeIndices_->address(j),
                             .bvh2Nodes = bvh2Nodes_->address(j),
                             .summary = bvh2Summaries_->address(j),
                             .count = job.count,
                             .nodeCost = sah.node,
                             .primitiveCost = sah.primitive};
      // Its first wide level is the root.
      if (job.wantsCwbvh)
        cwbvhCollapses_[j] = {.karrasNodes = karrasNodes_.address(j),
                              .nodeBounds = nodeBounds_.address(j),
                              .choices = choices_->address(j),
                              .sortedOrder = values_[0].address(j),
                              .wideRoots = wideRoots_->address(j),
                              .wideSlots = wideSlots_->address(j),
                              .innerCounts = innerCounts_->address(j),
                              .leafCounts = leafCounts_->address(j),
                              .wideNodes = wideNodes_->address(j),
                              .primitiveOrder = cwbvhOrders_->address(j),
                              .summary = cwbvhSummaries_->address(j),
                              .count = job.count,
                              .levelBegin = 0,
                              .levelEnd = 1,
                              .nodeCost = sah.node};
    }
  }

  // Each submission's kernels timed on their own, after what `untimed` records (the upload);
  // its wall clock beyond them is the copies' (and the queue's).
  using Record = std::function<void(VkCommandBuffer, vk::StageTimer&)>;
  void submit(const Record& record, const std::function<void(VkCommandBuffer)>& untimed = {}) {
    vk::StageTimer& timer = timer_;
    const auto submitStart = Clock::now();
    builder_.context_.submitAndWait([&](VkCommandBuffer commands) {
      // The earlier submissions' writes visible to this one's kernels and copies; pooled arrays
      // an earlier batch's kernels or copies used may be this one's copies' and fills' targets.
      vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                            VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT);
      if (untimed) untimed(commands);
      timer.begin(commands);
      record(commands, timer);
      timer.end(commands);
      vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    });
    const vk::FrameTiming timing = timer.read();
    const double kernelsMs = timing.frameNs * 1e-6;
    times.gpuMs += kernelsMs;
    for (const vk::StageTiming& stage : timing.stages) times.stageGpuMs[stage.stage] += stage.gpuNs * 1e-6;
    times.copyMs += std::max(0.0, millisecondsSince(submitStart) - kernelsMs);
  }
  static void computeToTransfer(VkCommandBuffer commands) {
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
  }

  const GpuBvhBuilder& builder_;
  GpuBufferPool& pool_;
  std::span<LevelJob* const> jobs_;
  // One for all the batch's submissions: its query pools are made once (each submission resets
  // what it writes), not once a submission.
  vk::StageTimer timer_;
  const LevelFilter wantsBvh2 = [this](size_t j) { return jobs_[j]->wantsBvh2; };
  const LevelFilter wantsCwbvh = [this](size_t j) { return jobs_[j]->wantsCwbvh; };
  std::vector<uint64_t> primitives_, innerNodes_, nodes_, blockSumCounts_;
  BatchArray keys_[2], values_[2], blockHistograms_, boxes_, karrasNodes_, parents_, nodeBounds_, visits_, builtNodes_,
      subtreeCosts_, places_, scanBlockSums_;
  PooledBuffer summariesBack_;
  std::optional<BatchArray> nodeIndices_, bvh2Nodes_, bvh2Summaries_;
  std::optional<BatchArray> choices_, wideRoots_, wideSlots_, innerCounts_, leafCounts_, wideNodes_, cwbvhOrders_,
      cwbvhSummaries_;
  std::vector<gpu::LbvhPush> lbvh_;
  std::vector<gpu::TreeletPush> treelets_;
  std::vector<SortTarget> sorts_;
  std::vector<gpu::Bvh2CollapsePush> bvh2Collapses_;
  std::vector<gpu::CwbvhCollapsePush> cwbvhCollapses_;
};

void GpuBvhBuilder::runBatch(std::span<LevelJob* const> jobs) {
  const std::lock_guard device(deviceMutex_);
  for (LevelJob* job : jobs) job->batchWaitMs = millisecondsSince(job->prepared);
  const auto allocateStart = Clock::now();
  Batch batch(*this, jobs);
  batch.times.allocateMs = millisecondsSince(allocateStart);
  batch.buildBinaryTrees();
  batch.collapseCwbvhWideLevels();
  batch.readBackTrees();
  const double batchMs = millisecondsSince(allocateStart);
  uint64_t primitives = 0;
  for (const LevelJob* job : jobs) primitives += job->count;
  for (LevelJob* job : jobs) job->batchShareMs = batchMs * double(job->count) / double(primitives);
  const std::lock_guard lock(mutex_);
  times_.gpuMs += batch.times.gpuMs;
  for (const auto& [stage, ms] : batch.times.stageGpuMs) times_.stageGpuMs[stage] += ms;
  times_.allocateMs += batch.times.allocateMs;
  times_.copyMs += batch.times.copyMs;
  times_.transferMs += batch.times.allocateMs + batch.times.copyMs;
  ++times_.batches;
}

PrebuiltLevel GpuBvhBuilder::convert(LevelJob& job) {
  const auto start = Clock::now();
  PrebuiltLevel level;
  std::memcpy(static_cast<void*>(&level.bounds), &job.summary.root, sizeof(Bounds));
  std::vector<uint32_t> order;
  resizeInHugePages(order, job.count);
  std::memcpy(order.data(), job.orderBack->mapped(), uint64_t{job.count} * 4);
  if (job.nodesBack) {
    resizeInHugePages(level.binary.nodes, 2 * uint64_t{job.count} - 1);
    std::memcpy(level.binary.nodes.data(), job.nodesBack->mapped(), job.nodesBack->bytes());
  }
  if (job.wantsBvh2) {
    const gpu::Bvh2CollapseSummary& summary = job.summary.bvh2;
    BvhTree<gpu::Bvh2Node> bvh2;
    resizeInHugePages(bvh2.nodes, summary.nodeCount);
    std::memcpy(bvh2.nodes.data(), job.bvh2Back->mapped(), job.bvh2Back->bytes());
    // Two children a node, one node fewer inner children than nodes.
    bvh2.leafCount = uint64_t{summary.nodeCount} + 1;
    bvh2.sahCost = summary.rootArea > 0 ? summary.rootCost / summary.rootArea : 0;
    // The leaves reference the primitives in the binary tree's leaf order, the sorted one.
    if (job.withBinary)
      bvh2.primitiveOrder = order;
    else
      bvh2.primitiveOrder = std::move(order);
    level.bvh2 = std::move(bvh2);
  }
  if (job.wantsCwbvh) {
    BvhTree<gpu::CwbvhNode> cwbvh;
    resizeInHugePages(cwbvh.nodes, job.wideNodeCount);
    std::memcpy(cwbvh.nodes.data(), job.cwbvhBack->mapped(), job.cwbvhBack->bytes());
    resizeInHugePages(cwbvh.primitiveOrder, job.count);
    std::memcpy(cwbvh.primitiveOrder.data(), job.cwbvhOrderBack->mapped(), uint64_t{job.count} * 4);
    // Every slot that is neither empty (meta 0) nor inner (imask) is a leaf.
    for (const gpu::CwbvhNode& node : cwbvh.nodes) {
      const uint32_t imask = node.exponentsAndImask >> 24;
      for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot)
        cwbvh.leafCount += ((node.meta[slot / 4] >> (8 * (slot % 4))) & 0xffu) != 0 && !((imask >> slot) & 1);
    }
    const gpu::CwbvhCollapseSummary& summary = job.summary.cwbvh;
    cwbvh.sahCost = summary.rootArea > 0 ? summary.rootCost / summary.rootArea : 0;
    level.cwbvh = std::move(cwbvh);
  }
  if (job.withBinary) level.binary.primitiveOrder = std::move(order);
  // Its host buffers back to the pool, for the levels still to come.
  job.staging.reset();
  job.orderBack.reset();
  job.cwbvhOrderBack.reset();
  job.nodesBack.reset();
  job.bvh2Back.reset();
  job.cwbvhBack.reset();
  const double convertMs = millisecondsSince(start);
  level.buildMs = job.prepareMs + job.batchShareMs + convertMs;

  const std::lock_guard lock(mutex_);
  times_.prepareMs += job.prepareMs;
  times_.batchWaitMs += job.batchWaitMs;
  times_.convertMs += convertMs;
  times_.transferMs += job.prepareMs + convertMs;
  ++times_.trees;
  return level;
}

GpuBvhBuildTimes GpuBvhBuilder::times() const {
  const std::lock_guard lock(mutex_);
  return times_;
}

}  // namespace ptbench
