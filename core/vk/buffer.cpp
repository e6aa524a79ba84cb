#include "core/vk/buffer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/vk/check.h"

namespace ptbench::vk {

Buffer::Buffer(const Context& context, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUse memoryUse)
    : device_(context.device()), bytes_(bytes) {
  // Every buffer is addressable: shaders reach scene data through device addresses.
  usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  const VkBufferCreateInfo info{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                .size = std::max<VkDeviceSize>(bytes, 4),
                                .usage = usage,
                                .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VK_CHECK(vkCreateBuffer(device_, &info, nullptr, &buffer_));
  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(device_, buffer_, &requirements);
    VkMemoryPropertyFlags properties = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (memoryUse == MemoryUse::Upload)
      properties = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (memoryUse == MemoryUse::Readback)
      properties = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                   VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    uint32_t memoryType = 0;
    try {
      memoryType = context.findMemoryType(requirements.memoryTypeBits, properties);
    } catch (const std::runtime_error&) {
      // Cached host memory is a speed-up for readback, not a need.
      memoryType =
          context.findMemoryType(requirements.memoryTypeBits, properties & ~VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    }
    const VkMemoryAllocateFlagsInfo flags{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                          .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    const VkMemoryAllocateInfo allocate{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                        .pNext = &flags,
                                        .allocationSize = requirements.size,
                                        .memoryTypeIndex = memoryType};
    VK_CHECK(vkAllocateMemory(device_, &allocate, nullptr, &memory_));
    VK_CHECK(vkBindBufferMemory(device_, buffer_, memory_, 0));
    if (memoryUse != MemoryUse::DeviceOnly) VK_CHECK(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
    const VkBufferDeviceAddressInfo addressInfo{.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                                .buffer = buffer_};
    address_ = vkGetBufferDeviceAddress(device_, &addressInfo);
  } catch (...) {
    release();
    throw;
  }
}

Buffer::Buffer(Buffer&& other) noexcept {
  *this = std::move(other);
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    bytes_ = std::exchange(other.bytes_, 0);
    address_ = std::exchange(other.address_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

Buffer::~Buffer() {
  release();
}

void Buffer::release() {
  if (!deviceAbandoned()) {
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly
  }
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

Buffer uploadBuffer(const Context& context, std::span<const std::byte> data, VkBufferUsageFlags usage) {
  Buffer buffer(context, data.size(), usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::DeviceOnly);
  if (data.empty()) return buffer;
  // Through one staging buffer of at most uploadChunkBytes, chunk after chunk: the driver pins
  // and later unpins host memory for the GPU at a few GB/s, so staging a 2.8 GB software BVH
  // whole cost more than copying it.
  const VkDeviceSize chunkBytes = std::min<VkDeviceSize>(data.size(), uploadChunkBytes);
  Buffer staging(context, chunkBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
  for (VkDeviceSize offset = 0; offset < data.size(); offset += chunkBytes) {
    const VkDeviceSize bytes = std::min<VkDeviceSize>(chunkBytes, data.size() - offset);
    std::memcpy(staging.mapped(), data.data() + offset, bytes);
    context.submitAndWait([&](VkCommandBuffer commands) {
      const VkBufferCopy region{.dstOffset = offset, .size = bytes};
      vkCmdCopyBuffer(commands, staging.get(), buffer.get(), 1, &region);
    });
  }
  return buffer;
}

}  // namespace ptbench::vk
