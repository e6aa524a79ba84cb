#include "core/integrators/kernel.h"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/errors.h"
#include "shared/raytracing.h"
#include "shared/render.h"

namespace ptbench {
namespace {

VkDeviceSize alignUp(VkDeviceSize value, VkDeviceSize alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

Kernel::Kernel(const vk::Context& context, std::string_view name, Backend backend, VkDescriptorSetLayout sceneLayout,
               uint32_t pushBytes)
    : name_(name), backend_(backend), pushBytes_(pushBytes) {
  const auto start = std::chrono::steady_clock::now();
  if (!context.backendEnabled(backend))
    throw std::logic_error("kernel " + name_ + " for backend " + std::string(backendName(backend)) +
                           " on a context created without it");
  const std::string shader = name_ + "_" + std::string(backendName(backend));
  switch (backend) {
    case Backend::RayQuery: {
      auto pipeline = vk::createComputePipeline(context, shader, pushBytes, std::span(&sceneLayout, 1));
      layout_ = std::move(pipeline.layout);
      pipeline_ = std::move(pipeline.pipeline);
      break;
    }
    case Backend::Pipeline:
      layout_ = vk::createPipelineLayout(context, pushBytes, std::span(&sceneLayout, 1));
      createRayTracingPipeline(context, shader);
      break;
    case Backend::Software:
      throw UserError("the software backend is not implemented yet; use rayquery or pipeline");
  }
  createMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void Kernel::createRayTracingPipeline(const vk::Context& context, const std::string& raygen) {
  const VkDevice device = context.device();
  const vk::ShaderModule raygenModule = vk::createShaderModule(context, raygen);
  const vk::ShaderModule missModule = vk::createShaderModule(context, "rt_miss");
  const vk::ShaderModule shadowMissModule = vk::createShaderModule(context, "rt_shadow_miss");
  const vk::ShaderModule closestHitModule = vk::createShaderModule(context, "rt_closest_hit");
  const vk::ShaderModule anyHitModule = vk::createShaderModule(context, "rt_any_hit");
  auto stage = [](VkShaderStageFlagBits flags, VkShaderModule module) {
    return VkPipelineShaderStageCreateInfo{.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                           .stage = flags,
                                           .module = module,
                                           .pName = "main"};
  };
  const std::vector<VkPipelineShaderStageCreateInfo> stages = {
      stage(VK_SHADER_STAGE_RAYGEN_BIT_KHR, raygenModule.get()),
      stage(VK_SHADER_STAGE_MISS_BIT_KHR, missModule.get()),
      stage(VK_SHADER_STAGE_MISS_BIT_KHR, shadowMissModule.get()),
      stage(VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR, closestHitModule.get()),
      stage(VK_SHADER_STAGE_ANY_HIT_BIT_KHR, anyHitModule.get()),
  };
  auto general = [](uint32_t shader) {
    return VkRayTracingShaderGroupCreateInfoKHR{.sType = VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR,
                                                .type = VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR,
                                                .generalShader = shader,
                                                .closestHitShader = VK_SHADER_UNUSED_KHR,
                                                .anyHitShader = VK_SHADER_UNUSED_KHR,
                                                .intersectionShader = VK_SHADER_UNUSED_KHR};
  };
  // Groups in SBT order: raygen, miss (closest), miss (shadow), the one triangle hit group.
  const std::vector<VkRayTracingShaderGroupCreateInfoKHR> groups = {
      general(0),
      general(1 + gpu::MISS_CLOSEST),
      general(1 + gpu::MISS_SHADOW),
      {.sType = VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR,
       .type = VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR,
       .generalShader = VK_SHADER_UNUSED_KHR,
       .closestHitShader = 3,
       .anyHitShader = 4,
       .intersectionShader = VK_SHADER_UNUSED_KHR},
  };
  const VkRayTracingPipelineCreateInfoKHR info{.sType = VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR,
                                               .stageCount = uint32_t(stages.size()),
                                               .pStages = stages.data(),
                                               .groupCount = uint32_t(groups.size()),
                                               .pGroups = groups.data(),
                                               // Only the ray-generation shader traces rays.
                                               .maxPipelineRayRecursionDepth = 1,
                                               .layout = layout_.get()};
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRayTracingPipelinesKHR(device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  pipeline_ = {device, pipeline};

  // The shader binding table: each region starts at the base alignment; records are handles
  // padded to the handle alignment (no shader records of our own).
  const auto& properties = context.capabilities().rayTracingProperties;
  const uint32_t handleSize = properties.shaderGroupHandleSize;
  const VkDeviceSize recordStride = alignUp(handleSize, properties.shaderGroupHandleAlignment);
  const VkDeviceSize base = properties.shaderGroupBaseAlignment;
  const VkDeviceSize raygenOffset = 0;
  const VkDeviceSize missOffset = alignUp(raygenOffset + recordStride, base);
  const VkDeviceSize hitOffset = alignUp(missOffset + 2 * recordStride, base);
  const VkDeviceSize tableBytes = hitOffset + recordStride;

  std::vector<uint8_t> handles(groups.size() * handleSize);
  VK_CHECK(vkGetRayTracingShaderGroupHandlesKHR(device, pipeline, 0, uint32_t(groups.size()), handles.size(),
                                                handles.data()));
  std::vector<uint8_t> table(tableBytes, 0);
  std::memcpy(&table[raygenOffset], &handles[0 * handleSize], handleSize);
  std::memcpy(&table[missOffset], &handles[1 * handleSize], handleSize);
  std::memcpy(&table[missOffset + recordStride], &handles[2 * handleSize], handleSize);
  std::memcpy(&table[hitOffset], &handles[3 * handleSize], handleSize);
  // The base alignment applies to device addresses, so the buffer gets slack to align within.
  shaderBindingTable_ =
      vk::Buffer(context, tableBytes + base, VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR, vk::MemoryUse::Upload);
  const VkDeviceAddress tableAddress = alignUp(shaderBindingTable_.address(), base);
  std::memcpy(static_cast<uint8_t*>(shaderBindingTable_.mapped()) + (tableAddress - shaderBindingTable_.address()),
              table.data(), table.size());
  raygenRegion_ = {tableAddress + raygenOffset, recordStride, recordStride};
  missRegion_ = {tableAddress + missOffset, recordStride, 2 * recordStride};
  hitRegion_ = {tableAddress + hitOffset, recordStride, recordStride};
}

void Kernel::launch(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, uint32_t width,
                    uint32_t height) const {
  const VkPipelineBindPoint bindPoint =
      backend_ == Backend::Pipeline ? VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR : VK_PIPELINE_BIND_POINT_COMPUTE;
  vkCmdBindPipeline(commands, bindPoint, pipeline_.get());
  vkCmdBindDescriptorSets(commands, bindPoint, layout_.get(), gpu::SCENE_SET, 1, &sceneSet, 0, nullptr);
  vkCmdPushConstants(commands, layout_.get(), VK_SHADER_STAGE_ALL, 0, pushBytes_, push);
  if (backend_ == Backend::Pipeline) {
    vkCmdTraceRaysKHR(commands, &raygenRegion_, &missRegion_, &hitRegion_, &callableRegion_, width, height, 1);
  } else {
    vkCmdDispatch(commands, (width + gpu::MEGAKERNEL_TILE - 1) / gpu::MEGAKERNEL_TILE,
                  (height + gpu::MEGAKERNEL_TILE - 1) / gpu::MEGAKERNEL_TILE, 1);
  }
}

VkPipelineStageFlags2 Kernel::pipelineStage() const {
  return backend_ == Backend::Pipeline ? VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR
                                       : VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
}

}  // namespace ptbench
