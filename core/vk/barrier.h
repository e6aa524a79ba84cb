// A global memory barrier (synchronization2): the one helper every recording uses.
#pragma once
#include "core/vk/vulkan.h"

namespace ptbench::vk {

inline void memoryBarrier(VkCommandBuffer commands, VkPipelineStageFlags2 sourceStage, VkAccessFlags2 sourceAccess,
                          VkPipelineStageFlags2 destinationStage, VkAccessFlags2 destinationAccess) {
  const VkMemoryBarrier2 barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                                 .srcStageMask = sourceStage,
                                 .srcAccessMask = sourceAccess,
                                 .dstStageMask = destinationStage,
                                 .dstAccessMask = destinationAccess};
  const VkDependencyInfo dependency{
      .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &barrier};
  vkCmdPipelineBarrier2(commands, &dependency);
}

}  // namespace ptbench::vk
