// The software backend's GPU builder (option software_builder: gpu): a linear BVH after Karras
// 2012 built by compute shaders (shaders/bvh/), read back as the binary tree the CPU build makes
// (binary_bvh.h), which the CPU then collapses into both software layouts (DESIGN.md: the GPU
// builder).
#pragma once
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/scene/bvh/binary_bvh.h"
#include "core/vk/pipeline.h"

namespace ptbench {

// Summed over every tree the builder has built.
struct GpuBvhBuildTimes {
  double gpuMs = 0;       // the kernels, from the build's first timestamp to its last
  double transferMs = 0;  // wall clock: the primitives' boxes up, the tree read back and converted
  uint32_t trees = 0;
};

// Why a build over `primitives` cannot run on a device with `deviceLocalBytes` of device-local
// memory (its arrays alone would not fit), or empty. Checked before any allocation, so that a
// level too large fails with this sentence rather than the driver's out-of-memory error.
std::string gpuBvhBuildMemoryError(uint64_t primitives, uint64_t deviceLocalBytes, const std::string& device);

class GpuBvhBuilder {
 public:
  explicit GpuBvhBuilder(const vk::Context& context);

  // One primitive per leaf, as buildBinaryBvh; the same tree for the same boxes on every run.
  // Safe to call from several threads: the builds take turns on the queue.
  BinaryBvh build(std::span<const Bounds> primitives);
  // The builder's radix sort alone, stable: keys ascending, each value moved with its key.
  void sort(std::vector<uint32_t>& keys, std::vector<uint32_t>& values);

  GpuBvhBuildTimes times() const;

 private:
  struct SortBuffers;
  void recordSort(VkCommandBuffer commands, const SortBuffers& buffers, uint32_t count) const;

  const vk::Context& context_;
  vk::ComputePipeline histogram_, scan_, scatter_, morton_, hierarchy_, fit_, emit_;
  mutable std::mutex mutex_;
  GpuBvhBuildTimes times_;
};

}  // namespace ptbench
