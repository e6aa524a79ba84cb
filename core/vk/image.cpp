#include "core/vk/image.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "core/vk/buffer.h"
#include "core/vk/check.h"

namespace ptbench::vk {
namespace {

void transition(VkCommandBuffer commands, VkImage image, uint32_t baseMip, uint32_t mipCount, VkImageLayout from,
                VkImageLayout to, VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
  const VkImageMemoryBarrier2 barrier{.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                                      .srcStageMask = srcStage,
                                      .srcAccessMask = srcAccess,
                                      .dstStageMask = dstStage,
                                      .dstAccessMask = dstAccess,
                                      .oldLayout = from,
                                      .newLayout = to,
                                      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .image = image,
                                      .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, baseMip, mipCount, 0, 1}};
  const VkDependencyInfo dependency{
      .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &barrier};
  vkCmdPipelineBarrier2(commands, &dependency);
}

}  // namespace

Image::Image(const Context& context, uint32_t width, uint32_t height, VkFormat format, std::span<const uint8_t> rgba8)
    : device_(context.device()) {
  mipLevels_ = std::bit_width(std::max(width, height));
  const VkImageCreateInfo info{
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = {width, height, 1},
      .mipLevels = mipLevels_,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  VK_CHECK(vkCreateImage(device_, &info, nullptr, &image_));
  try {
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(device_, image_, &requirements);
    const VkMemoryAllocateInfo allocate{
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = requirements.size,
        .memoryTypeIndex = context.findMemoryType(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
    VK_CHECK(vkAllocateMemory(device_, &allocate, nullptr, &memory_));
    VK_CHECK(vkBindImageMemory(device_, image_, memory_, 0));
    bytes_ = requirements.size;

    Buffer staging(context, rgba8.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
    std::memcpy(staging.mapped(), rgba8.data(), rgba8.size());
    context.submitAndWait([&](VkCommandBuffer commands) {
      transition(commands, image_, 0, mipLevels_, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT);
      const VkBufferImageCopy region{.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                     .imageExtent = {width, height, 1}};
      vkCmdCopyBufferToImage(commands, staging.get(), image_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
      // Each level is blitted from the one above once that one is complete and readable.
      int32_t w = int32_t(width), h = int32_t(height);
      for (uint32_t level = 1; level < mipLevels_; ++level) {
        transition(commands, image_, level - 1, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                   VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        const int32_t nw = std::max(w / 2, 1), nh = std::max(h / 2, 1);
        const VkImageBlit blit{.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, 1},
                               .srcOffsets = {{0, 0, 0}, {w, h, 1}},
                               .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1},
                               .dstOffsets = {{0, 0, 0}, {nw, nh, 1}}};
        vkCmdBlitImage(commands, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image_,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
        w = nw;
        h = nh;
      }
      if (mipLevels_ > 1)
        transition(commands, image_, 0, mipLevels_ - 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                   VK_ACCESS_2_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT);
      transition(commands, image_, mipLevels_ - 1, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT);
    });

    const VkImageViewCreateInfo viewInfo{.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                         .image = image_,
                                         .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                         .format = format,
                                         .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, mipLevels_, 0, 1}};
    VK_CHECK(vkCreateImageView(device_, &viewInfo, nullptr, &view_));
  } catch (...) {
    release();
    throw;
  }
}

Image::Image(Image&& other) noexcept {
  *this = std::move(other);
}

Image& Image::operator=(Image&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    image_ = std::exchange(other.image_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    view_ = std::exchange(other.view_, VK_NULL_HANDLE);
    mipLevels_ = other.mipLevels_;
    bytes_ = other.bytes_;
  }
  return *this;
}

Image::~Image() {
  release();
}

void Image::release() {
  if (!deviceAbandoned()) {
    if (view_) vkDestroyImageView(device_, view_, nullptr);
    if (image_) vkDestroyImage(device_, image_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
  }
  view_ = VK_NULL_HANDLE;
  image_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
}

}  // namespace ptbench::vk
