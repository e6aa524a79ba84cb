// Sampled 2D images with their own memory and a view over every mip level.
#pragma once
#include <cstdint>
#include <span>

#include "core/vk/context.h"

namespace ptbench::vk {

class Image {
 public:
  Image() = default;
  // Uploads RGBA8 texels to mip 0 and fills the other levels by blitting, ending in
  // SHADER_READ_ONLY_OPTIMAL.
  Image(const Context& context, uint32_t width, uint32_t height, VkFormat format, std::span<const uint8_t> rgba8);
  Image(Image&& other) noexcept;
  Image& operator=(Image&& other) noexcept;
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  ~Image();

  VkImageView view() const { return view_; }
  uint32_t mipLevels() const { return mipLevels_; }
  VkDeviceSize bytes() const { return bytes_; }

 private:
  void release();

  VkDevice device_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  uint32_t mipLevels_ = 1;
  VkDeviceSize bytes_ = 0;
};

}  // namespace ptbench::vk
