// What a logical device is created with: its extensions and the feature structures that switch
// their features on. The context fills in what every run needs; each trace backend's descriptor
// (core/trace/) adds its own.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/vk/vulkan.h"

namespace ptbench::vk {

// Feature structures for everything ptbench may enable, chained for vkGetPhysicalDeviceFeatures2
// and, with the wanted members switched on, for vkCreateDevice.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 core{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features vulkan12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features vulkan13{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceAccelerationStructureFeaturesKHR accelerationStructure{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
  VkPhysicalDeviceRayQueryFeaturesKHR rayQuery{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
  VkPhysicalDeviceRayTracingPipelineFeaturesKHR rayTracingPipeline{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
  VkPhysicalDeviceRayTracingInvocationReorderFeaturesNV invocationReorder{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_FEATURES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pipelineExecutable{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceShaderClockFeaturesKHR shaderClock{.sType =
                                                         VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};

  // Links only the structures the device knows (its API version and extensions), so that
  // the validation layer sees no structure from an extension that is not there.
  void link(bool withVulkan13, bool withAccelerationStructure, bool withRayQuery, bool withPipeline,
            bool withInvocationReorder, bool withPipelineExecutable, bool withShaderClock) {
    void** next = &core.pNext;
    auto append = [&next](auto& feature) {
      *next = &feature;
      next = &feature.pNext;
    };
    if (withVulkan13) {
      append(vulkan12);
      append(vulkan13);
    }
    if (withAccelerationStructure) append(accelerationStructure);
    if (withRayQuery) append(rayQuery);
    if (withPipeline) append(rayTracingPipeline);
    if (withInvocationReorder) append(invocationReorder);
    if (withPipelineExecutable) append(pipelineExecutable);
    if (withShaderClock) append(shaderClock);
    *next = nullptr;
  }
};

struct DeviceSetup {
  std::vector<const char*> extensions;  // in the order first asked for, each once
  FeatureChain features;

  void enableExtension(const char* name) {
    if (!extensionEnabled(name)) extensions.push_back(name);
  }
  bool extensionEnabled(const char* name) const {
    return std::any_of(extensions.begin(), extensions.end(), [&](const char* e) { return std::strcmp(e, name) == 0; });
  }
};

}  // namespace ptbench::vk
