// The software backend's GPU builder (option software_builder: gpu): a linear BVH after Karras
// 2012 built by compute shaders (shaders/bvh/) and collapsed there into both software layouts,
// as the CPU collapses its binary tree (bvh2.h, cwbvh.h); only the collapsed trees come back
// (DESIGN.md: the GPU builder).
#pragma once
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/scene/bvh/binary_bvh.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"

namespace ptbench {

// Summed over every tree the builder has built (levels build on several threads at once, so
// the sums may exceed the wall clock).
struct GpuBvhBuildTimes {
  double gpuMs = 0;       // the kernels, from the build's first timestamp to its last
  double transferMs = 0;  // wall clock: the primitives' boxes up, the tree read back and converted
  uint32_t trees = 0;
  // transferMs's parts: the centroids' box and the boxes staged, the host buffers allocated;
  // the device arrays allocated; the copies on the queue (the submission's wall clock
  // beyond the kernels'); the tree copied into BinaryBvh. And apart from it, the time levels
  // waited for another level's turn on the queue.
  double prepareMs = 0;
  double allocateMs = 0;
  double copyMs = 0;
  double convertMs = 0;
  double lockWaitMs = 0;
};

// Why a build over `primitives` cannot run on a device with `deviceLocalBytes` of device-local
// memory (its arrays alone would not fit), or empty. Checked before any allocation, so that a
// level too large fails with this sentence rather than the driver's out-of-memory error.
std::string gpuBvhBuildMemoryError(uint64_t primitives, uint64_t deviceLocalBytes, const std::string& device);

class GpuBvhBuilder {
 public:
  explicit GpuBvhBuilder(const vk::Context& context, const SahCosts& costs = {});

  // A level for buildSoftwareBvh (BvhBuildOptions::levelBuilder): the layouts asked for,
  // collapsed on the GPU as collapseToBvh2 and collapseToCwbvh collapse the binary tree, which
  // comes back only `withBinary` (the tests compare the collapses with the CPU's). The same
  // trees for the same boxes on every run. Safe to call from several threads: the host's work
  // overlaps, the device's takes turns on the queue.
  PrebuiltLevel buildLevel(std::span<const Bounds> primitives, std::span<const BvhLayout> layouts,
                           bool withBinary = false);
  // The binary tree alone: one primitive per leaf, as buildBinaryBvh.
  BinaryBvh build(std::span<const Bounds> primitives);
  // The builder's radix sort alone, stable: keys ascending, each value moved with its key.
  void sort(std::vector<uint32_t>& keys, std::vector<uint32_t>& values);
  // The collapses' exclusive prefix sum alone, in place.
  void scan(std::vector<uint32_t>& values);

  GpuBvhBuildTimes times() const;

 private:
  struct SortBuffers;
  void recordSort(VkCommandBuffer commands, const SortBuffers& buffers, uint32_t count) const;
  // An exclusive prefix sum of `count` uints in place, without atomics; `blockSums` holds one
  // uint per 4096 values (used when the scan spreads over workgroups).
  void recordScan(VkCommandBuffer commands, VkDeviceAddress values, uint32_t count, const vk::Buffer& blockSums) const;

  const vk::Context& context_;
  SahCosts costs_;
  vk::ComputePipeline histogram_, scan_, scanBlockSums_, scanBlocks_, scatter_, morton_, hierarchy_, fit_, emit_,
      bvh2Flag_, bvh2Emit_, cwbvhChildren_, cwbvhExpand_, cwbvhEmit_;
  mutable std::mutex mutex_;
  GpuBvhBuildTimes times_;
};

}  // namespace ptbench
