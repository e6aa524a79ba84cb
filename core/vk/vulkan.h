// The one place that includes Vulkan. Prototypes are off: every entry point is a function
// pointer loaded at run time (loader.cpp), so a machine without the Vulkan loader gets a
// clear message instead of a dynamic-linker failure.
#pragma once
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

// Every entry point ptbench calls. Global: needs no instance. Instance: everything else,
// resolved through vkGetInstanceProcAddr, whose device-level results dispatch on the device
// handle they are given (the loader's trampolines), so one table serves every device.
#define PTBENCH_VK_GLOBAL_FUNCTIONS(X)  \
  X(vkCreateInstance)                   \
  X(vkEnumerateInstanceVersion)         \
  X(vkEnumerateInstanceLayerProperties) \
  X(vkEnumerateInstanceExtensionProperties)

#define PTBENCH_VK_INSTANCE_FUNCTIONS(X)           \
  X(vkDestroyInstance)                             \
  X(vkEnumeratePhysicalDevices)                    \
  X(vkGetPhysicalDeviceProperties)                 \
  X(vkGetPhysicalDeviceProperties2)                \
  X(vkGetPhysicalDeviceFeatures2)                  \
  X(vkGetPhysicalDeviceMemoryProperties)           \
  X(vkGetPhysicalDeviceQueueFamilyProperties)      \
  X(vkGetPhysicalDeviceFormatProperties)           \
  X(vkEnumerateDeviceExtensionProperties)          \
  X(vkCreateDebugUtilsMessengerEXT)                \
  X(vkDestroyDebugUtilsMessengerEXT)               \
  X(vkCreateDevice)                                \
  X(vkDestroyDevice)                               \
  X(vkGetDeviceQueue)                              \
  X(vkDeviceWaitIdle)                              \
  X(vkQueueSubmit2)                                \
  X(vkQueueWaitIdle)                               \
  X(vkCreateBuffer)                                \
  X(vkDestroyBuffer)                               \
  X(vkGetBufferMemoryRequirements)                 \
  X(vkGetBufferDeviceAddress)                      \
  X(vkAllocateMemory)                              \
  X(vkFreeMemory)                                  \
  X(vkBindBufferMemory)                            \
  X(vkBindImageMemory)                             \
  X(vkMapMemory)                                   \
  X(vkUnmapMemory)                                 \
  X(vkCreateImage)                                 \
  X(vkDestroyImage)                                \
  X(vkGetImageMemoryRequirements)                  \
  X(vkCreateImageView)                             \
  X(vkDestroyImageView)                            \
  X(vkCreateSampler)                               \
  X(vkDestroySampler)                              \
  X(vkCreateCommandPool)                           \
  X(vkDestroyCommandPool)                          \
  X(vkAllocateCommandBuffers)                      \
  X(vkFreeCommandBuffers)                          \
  X(vkBeginCommandBuffer)                          \
  X(vkEndCommandBuffer)                            \
  X(vkCreateFence)                                 \
  X(vkDestroyFence)                                \
  X(vkWaitForFences)                               \
  X(vkCreateQueryPool)                             \
  X(vkDestroyQueryPool)                            \
  X(vkGetQueryPoolResults)                         \
  X(vkCmdResetQueryPool)                           \
  X(vkCmdWriteTimestamp2)                          \
  X(vkCmdPipelineBarrier2)                         \
  X(vkCmdCopyBuffer)                               \
  X(vkCmdCopyBufferToImage)                        \
  X(vkCmdBlitImage)                                \
  X(vkCmdFillBuffer)                               \
  X(vkCmdUpdateBuffer)                             \
  X(vkCmdBindPipeline)                             \
  X(vkCmdBindDescriptorSets)                       \
  X(vkCmdPushConstants)                            \
  X(vkCmdDispatch)                                 \
  X(vkCmdDispatchIndirect)                         \
  X(vkCmdBeginDebugUtilsLabelEXT)                  \
  X(vkCmdEndDebugUtilsLabelEXT)                    \
  X(vkCreateShaderModule)                          \
  X(vkDestroyShaderModule)                         \
  X(vkCreatePipelineLayout)                        \
  X(vkDestroyPipelineLayout)                       \
  X(vkCreateComputePipelines)                      \
  X(vkDestroyPipeline)                             \
  X(vkCreateDescriptorSetLayout)                   \
  X(vkDestroyDescriptorSetLayout)                  \
  X(vkCreateDescriptorPool)                        \
  X(vkDestroyDescriptorPool)                       \
  X(vkAllocateDescriptorSets)                      \
  X(vkUpdateDescriptorSets)                        \
  X(vkCreateAccelerationStructureKHR)              \
  X(vkDestroyAccelerationStructureKHR)             \
  X(vkGetAccelerationStructureBuildSizesKHR)       \
  X(vkGetAccelerationStructureDeviceAddressKHR)    \
  X(vkCmdBuildAccelerationStructuresKHR)           \
  X(vkCmdCopyAccelerationStructureKHR)             \
  X(vkCmdWriteAccelerationStructuresPropertiesKHR) \
  X(vkCreateRayTracingPipelinesKHR)                \
  X(vkGetRayTracingShaderGroupHandlesKHR)          \
  X(vkCmdTraceRaysKHR)                             \
  X(vkCmdTraceRaysIndirectKHR)                     \
  X(vkGetPipelineExecutablePropertiesKHR)          \
  X(vkGetPipelineExecutableStatisticsKHR)

#define PTBENCH_VK_DECLARE(name) extern PFN_##name name;
PTBENCH_VK_GLOBAL_FUNCTIONS(PTBENCH_VK_DECLARE)
PTBENCH_VK_INSTANCE_FUNCTIONS(PTBENCH_VK_DECLARE)
#undef PTBENCH_VK_DECLARE

namespace ptbench::vk {
// Opens the Vulkan loader (libvulkan.so.1) and loads the global entry points. Throws a
// UserError naming the package to install when there is no loader.
void loadGlobalFunctions();
// Loads every other entry point through the instance. Extension functions the device lacks
// stay null; callers check the feature, not the pointer.
void loadInstanceFunctions(VkInstance instance);
}  // namespace ptbench::vk
