// A scene on the device: buffers, textures, and the acceleration structures the hardware
// backends trace (DESIGN.md: GpuScene). Built once per scene and shared by every run on it.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/scene/scene_data.h"
#include "core/vk/buffer.h"
#include "core/vk/check.h"
#include "core/vk/image.h"
#include "core/vk/pipeline.h"
#include "shared/bindings.h"

namespace ptbench {

// The software BVH's builder unless runs ask for another.
inline constexpr std::array<BvhBuilder, 1> cpuBvhBuilder = {BvhBuilder::Cpu};

struct AccelerationStructureStats {
  uint64_t blasBytes = 0;       // after compaction
  uint64_t blasBytesBuilt = 0;  // before compaction
  uint64_t tlasBytes = 0;
  double blasBuildGpuMs = 0;
  double tlasBuildGpuMs = 0;
  double compactionGpuMs = 0;
};

class AccelerationStructure {
 public:
  AccelerationStructure() = default;
  AccelerationStructure(const vk::Context& context, VkAccelerationStructureTypeKHR type, VkDeviceSize bytes);
  VkAccelerationStructureKHR get() const { return handle_.get(); }
  VkDeviceAddress address() const { return address_; }
  VkDeviceSize bytes() const { return buffer_.bytes(); }

 private:
  vk::Buffer buffer_;
  vk::DeviceHandle<VkAccelerationStructureKHR, vkDestroyAccelerationStructureKHR> handle_;
  VkDeviceAddress address_ = 0;
};

// The software backend's BVH on the device: one layout's three arrays.
struct SoftwareBvhBuffers {
  vk::Buffer nodes, triangles, instances;
};

class GpuScene {
 public:
  // Builds acceleration structures only when the context enabled them (a hardware backend),
  // and the software BVH, only the layouts asked for, by each builder asked for, and on
  // `bvhThreads` threads (0: every hardware thread), only when some are.
  GpuScene(const vk::Context& context, const SceneData& scene, std::span<const BvhLayout> softwareBvhLayouts = {},
           unsigned bvhThreads = 0, std::span<const BvhBuilder> softwareBuilders = cpuBvhBuilder);

  // The scene's arrays as the kernels of `target` read them (the software BVH of its layout and
  // builder).
  gpu::SceneAddresses addresses(TraceTarget target) const;
  // The software BVH's build figures, when that builder built it (its layouts' `built` say which).
  const std::optional<SoftwareBvhStats>& softwareBvhStats(BvhBuilder builder = BvhBuilder::Cpu) const {
    return softwareBvhStats_[size_t(builder)];
  }
  // Why a layout asked for could not be built or uploaded (a scene too deep, too large), or
  // empty: only that layout's runs fail, the scene's other runs go on.
  const std::string& softwareBvhError(BvhLayout layout, BvhBuilder builder = BvhBuilder::Cpu) const {
    return softwareBvhErrors_[size_t(builder)][size_t(layout)];
  }
  VkDescriptorSetLayout descriptorSetLayout() const { return setLayout_.get(); }
  // The definition of descriptorSetLayout(): kernels of scenes with the same one can share
  // pipelines (vk::ReusablePipelines).
  const std::string& descriptorSetLayoutKey() const { return setLayoutKey_; }
  VkDescriptorSet descriptorSet() const { return set_; }
  bool hasAccelerationStructures() const { return tlas_.get() != VK_NULL_HANDLE; }
  // The highest material class (gpu::MATERIAL_CLASS_*) a triangle of the scene has: what the
  // kernels are specialised for (gpu::SPEC_SHADED_CLASS_LIMIT).
  uint32_t highestMaterialClass() const { return highestMaterialClass_; }
  // Whether a material of the scene is a metal or glass, whose rough lobes ms_compensation
  // compensates: the kernels of a scene without one are specialised without the compensation
  // (SPEC_MS_COMPENSATION), which its materials never reach but which made the software
  // megakernel 6% slower on the Cornell boxes (H100, 2026-11-26: code the compiler keeps).
  bool hasMultipleScatteringLobes() const { return addresses_.multipleScattering != 0; }
  const AccelerationStructureStats& accelerationStats() const { return stats_; }
  uint64_t bufferBytes() const;
  // 0 when that layout was not uploaded
  uint64_t softwareBvhBytes(BvhLayout layout, BvhBuilder builder = BvhBuilder::Cpu) const;
  uint64_t textureBytes() const;

 private:
  void uploadTextures(const vk::Context& context, const SceneData& scene);
  void buildAccelerationStructures(const vk::Context& context, const SceneData& scene);
  void createDescriptors(const vk::Context& context);
  void uploadSoftwareBvh(const vk::Context& context, const SceneData& scene, std::span<const BvhLayout> layouts,
                         unsigned threads, BvhBuilder builder);

  uint32_t highestMaterialClass_ = gpu::MATERIAL_CLASS_COUNT;
  vk::Buffer vertices_, indices_, geometries_, instances_, materials_, emissiveTriangles_, aliasTable_, punctualLights_,
      emissiveBases_, environmentTexels_, environmentAliasTable_, sheenAlbedo_, multipleScattering_;
  std::vector<vk::Image> images_;
  std::vector<vk::DeviceHandle<VkSampler, vkDestroySampler>> samplers_;
  std::vector<uint32_t> imageSampler_;  // which sampler each image uses
  std::vector<AccelerationStructure> blases_;
  AccelerationStructure tlas_;
  vk::Buffer tlasInstances_;
  vk::DescriptorSetLayout setLayout_;
  std::string setLayoutKey_;
  vk::DeviceHandle<VkDescriptorPool, vkDestroyDescriptorPool> pool_;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  gpu::SceneAddresses addresses_{};
  AccelerationStructureStats stats_;
  // By BvhBuilder, then BvhLayout.
  std::optional<SoftwareBvhBuffers> softwareBvh_[2][2];
  std::string softwareBvhErrors_[2][2];
  std::optional<SoftwareBvhStats> softwareBvhStats_[2];  // by BvhBuilder
};

// Why a software BVH layout cannot be traversed on a device with `deviceLocalBytes` of
// device-local memory (deeper than the traversal stack, more nodes, triangles or instances than
// it indexes, larger than the memory), or empty when it may.
std::string softwareBvhLayoutError(const std::string& scene, BvhLayout layout, const BvhLayoutStats& stats,
                                   uint64_t deviceLocalBytes, const std::string& device);

}  // namespace ptbench
