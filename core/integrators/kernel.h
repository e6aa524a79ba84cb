// A kernel stage compiled for one trace backend: a compute pipeline (rayquery) or a
// ray-tracing pipeline whose ray-generation shader is the kernel (pipeline). Both are launched
// over a width x height grid with the same push constants, so integrators never see the
// difference.
#pragma once
#include <string>
#include <string_view>

#include "core/backend.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"

namespace ptbench {

class Kernel {
 public:
  // Creates "<name>_rayquery" or "<name>_pipeline" from the embedded shaders.
  Kernel(const vk::Context& context, std::string_view name, Backend backend, VkDescriptorSetLayout sceneLayout,
         uint32_t pushBytes);

  void launch(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, uint32_t width,
              uint32_t height) const;

  // The pipeline stage a barrier names for this kernel's memory accesses.
  VkPipelineStageFlags2 pipelineStage() const;
  double createMs() const { return createMs_; }

 private:
  void createRayTracingPipeline(const vk::Context& context, const std::string& raygen);

  std::string name_;
  Backend backend_;
  uint32_t pushBytes_;
  vk::PipelineLayout layout_;
  vk::PipelineHandle pipeline_;
  vk::Buffer shaderBindingTable_;
  VkStridedDeviceAddressRegionKHR raygenRegion_{}, missRegion_{}, hitRegion_{}, callableRegion_{};
  double createMs_ = 0;
};

}  // namespace ptbench
