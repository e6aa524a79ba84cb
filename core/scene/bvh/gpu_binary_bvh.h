// The software backend's GPU builder (option software_builder: gpu): a linear BVH after Karras
// 2012 built by compute shaders (shaders/bvh/) and collapsed there into both software layouts,
// as the CPU collapses its binary tree (bvh2.h, cwbvh.h); only the collapsed trees come back
// (docs/bvh.md, "The GPU builder").
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/scene/bvh/binary_bvh.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"

namespace ptbench {

// The device-local bytes a batch of levels needs for a level of `primitives`: its arrays.
uint64_t gpuBvhBuildDeviceBytes(uint64_t primitives);

// Why a build over `primitives` cannot run on a device with `deviceLocalBytes` of device-local
// memory (its arrays alone would not fit), or empty. Checked before any allocation, so that a
// level too large fails with this sentence rather than the driver's out-of-memory error.
std::string gpuBvhBuildMemoryError(uint64_t primitives, uint64_t deviceLocalBytes, const std::string& device);

class GpuBufferPool;

// One level for GpuBvhBuilder::buildLevels: its primitives' boxes, the layouts to collapse it
// into, and whether its binary tree comes back too (the tests compare the collapses with the
// CPU's).
struct GpuLevelRequest {
  std::span<const Bounds> primitives;
  std::span<const BvhLayout> layouts;
  bool withBinary = false;
};

class GpuBvhBuilder {
 public:
  // A batch holds levels up to this many primitives in all (a larger level is a batch alone).
  // Measured on an H100 (results/published/2026-11-27-gpu-pipeline/), the 50M-triangle scene's
  // CWBVH: 2^22 built in 0.83-0.89 s, 2^23 in 0.95 s, 2^24 in 1.25-1.33 s. Larger batches hold
  // more memory at once, and the driver's allocations cost by the byte: the pinned host buffers of
  // the levels in flight (about three batches') and the device arrays (468 bytes a primitive).
  static constexpr uint64_t defaultBatchPrimitives = uint64_t{1} << 22;
  // Rounds of treelet restructuring after the linear build (0: the linear tree as it is).
  static constexpr uint32_t defaultTreeletRounds = 3;
  // The most workgroups a per-element kernel launches (every device's maxComputeWorkGroupCount
  // allows 65,535); each loops over the elements beyond them. The tests launch fewer, so that
  // those loops run on trees small enough to build on lavapipe.
  static constexpr uint32_t defaultMaxWorkgroups = 65535;

  explicit GpuBvhBuilder(const vk::Context& context, const SahCosts& costs = {},
                         uint64_t batchPrimitives = defaultBatchPrimitives,
                         uint32_t treeletRounds = defaultTreeletRounds, uint32_t maxWorkgroups = defaultMaxWorkgroups);
  ~GpuBvhBuilder();

  // A level: the layouts asked for, collapsed on the GPU as collapseToBvh2 and collapseToCwbvh
  // collapse the binary tree, which comes back only `withBinary` (the tests compare the
  // collapses with the CPU's). The same trees for the same boxes on every run.
  PrebuiltLevel buildLevel(std::span<const Bounds> primitives, std::span<const BvhLayout> layouts,
                           bool withBinary = false);
  // Several levels at once, in as few batches as batchPrimitives and the device's memory allow
  // (each kernel launched for all of a batch's levels between the same barriers), each the trees
  // buildLevel gives it. While a batch runs on the GPU, the host prepares the next batch's levels
  // and converts the last one's, on the threads `budget` spares; `built(level, trees)` is called
  // for each level (an empty one too) as soon as it is converted, from any of those threads.
  // Calls from several threads run one after another; `built` must not call this builder.
  void buildLevels(std::span<const GpuLevelRequest> requests, ThreadBudget& budget,
                   const std::function<void(size_t, PrebuiltLevel)>& built);
  std::vector<PrebuiltLevel> buildLevels(std::span<const GpuLevelRequest> requests);
  // buildSoftwareBvh's builder of levels (BvhBuildOptions::levelsBuilder): buildLevels.
  LevelsBuilder levelsBuilder();
  // The binary tree alone: one primitive per leaf, as buildBinaryBvh.
  BinaryBvh build(std::span<const Bounds> primitives);
  // The builder's radix sort alone, stable: keys ascending, each value moved with its key.
  void sort(std::vector<uint32_t>& keys, std::vector<uint32_t>& values);
  // The collapses' exclusive prefix sum alone, in place.
  void scan(std::vector<uint32_t>& values);

  GpuBvhBuildTimes times() const;

 private:
  struct SortTarget;
  struct ScanTarget;
  struct LevelJob;
  struct BatchTimes;
  class Batch;
  // Every target's sort, pass by pass: a pass's kernels for all of them between two barriers.
  void recordSorts(VkCommandBuffer commands, std::span<const SortTarget> targets) const;
  // Exclusive prefix sums in place, without atomics, side by side likewise.
  void recordScans(VkCommandBuffer commands, std::span<const ScanTarget> targets) const;
  // The host's part of a level before its batch (its boxes staged), and after (its trees copied
  // out of the readback).
  void prepare(const GpuLevelRequest& request, LevelJob& job) const;
  PrebuiltLevel convert(LevelJob& job);
  // The levels in order, as many to a batch as batchPrimitives_ and a quarter of the device's
  // memory allow, and one at least.
  std::vector<std::vector<LevelJob*>> batchesOf(std::span<LevelJob> jobs) const;
  // A batch on the device; its times added to times_.
  void runBatch(std::span<LevelJob* const> jobs);

  const vk::Context& context_;
  SahCosts costs_;
  uint64_t batchPrimitives_;
  uint32_t treeletRounds_;
  uint32_t maxWorkgroups_;
  // Device arrays and host buffers reused across levels and batches, freed with the builder.
  std::unique_ptr<GpuBufferPool> pool_;
  std::mutex buildMutex_;  // one buildLevels at a time
  vk::ComputePipeline histogram_, scan_, scanBlockSums_, scanBlocks_, scatter_, morton_, hierarchy_, treeletStarts_,
      treelets_, leafOrder_, renumber_, fit_, emit_, bvh2Flag_, bvh2Emit_, cwbvhChildren_, cwbvhExpand_, cwbvhEmit_;
  mutable std::mutex mutex_;  // the times
  std::mutex deviceMutex_;    // one batch, sort or scan on the device at a time
  GpuBvhBuildTimes times_;
};

}  // namespace ptbench
