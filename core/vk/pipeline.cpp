#include "core/vk/pipeline.h"

#include <stdexcept>
#include <string>

#include "core/vk/pipeline_statistics.h"

namespace ptbench::vk {

ShaderModule createShaderModule(const Context& context, std::string_view shaderName) {
  const auto& shaders = embeddedShaders();
  const auto found = shaders.find(shaderName);
  if (found == shaders.end())
    throw std::logic_error("no embedded shader named " + std::string(shaderName) + " (see shaders/CMakeLists.txt)");
  const VkShaderModuleCreateInfo info{.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                      .codeSize = found->second.size_bytes(),
                                      .pCode = found->second.data()};
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(context.device(), &info, nullptr, &module));
  return {context.device(), module};
}

PipelineLayout createPipelineLayout(const Context& context, uint32_t pushConstantBytes,
                                    std::span<const VkDescriptorSetLayout> setLayouts) {
  const VkPushConstantRange pushRange{.stageFlags = VK_SHADER_STAGE_ALL, .offset = 0, .size = pushConstantBytes};
  const VkPipelineLayoutCreateInfo info{.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                        .setLayoutCount = static_cast<uint32_t>(setLayouts.size()),
                                        .pSetLayouts = setLayouts.data(),
                                        .pushConstantRangeCount = pushConstantBytes > 0 ? 1u : 0u,
                                        .pPushConstantRanges = &pushRange};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(context.device(), &info, nullptr, &layout));
  return {context.device(), layout};
}

ComputePipeline createComputePipeline(const Context& context, std::string_view shaderName, uint32_t pushConstantBytes,
                                      std::span<const VkDescriptorSetLayout> setLayouts,
                                      const VkSpecializationInfo* specialization) {
  ComputePipeline result{.layout = createPipelineLayout(context, pushConstantBytes, setLayouts)};
  const ShaderModule module = createShaderModule(context, shaderName);
  const VkComputePipelineCreateInfo info{.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                         .flags = pipelineStatisticsFlags(context),
                                         .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                   .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                                   .module = module.get(),
                                                   .pName = "main",
                                                   .pSpecializationInfo = specialization},
                                         .layout = result.layout.get()};
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(context.device(), VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  result.pipeline = {context.device(), pipeline};
  return result;
}

}  // namespace ptbench::vk
