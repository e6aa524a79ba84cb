// Buffers with their own memory. ptbench allocates a few dozen per scene, far under any
// driver's allocation limit, so one allocation per buffer keeps ownership obvious.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>

#include "core/vk/context.h"

namespace ptbench::vk {

// `value` rounded up to a multiple of `alignment`: offsets of arrays in one buffer, shader
// binding table records, scratch addresses.
constexpr uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

enum class MemoryUse { DeviceOnly, Upload, Readback };

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Context& context, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUse memoryUse);
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  VkBuffer get() const { return buffer_; }
  VkDeviceSize bytes() const { return bytes_; }
  VkDeviceAddress address() const { return address_; }
  // Host pointer of Upload and Readback buffers (persistently mapped); null otherwise.
  void* mapped() const { return mapped_; }

  template <typename T>
  std::span<T> view() const {
    return {static_cast<T*>(mapped_), static_cast<size_t>(bytes_ / sizeof(T))};
  }

 private:
  void release();

  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize bytes_ = 0;
  VkDeviceAddress address_ = 0;
  void* mapped_ = nullptr;
};

// The most host memory uploadBuffer stages at once.
constexpr VkDeviceSize uploadChunkBytes = VkDeviceSize{64} << 20;

// A device-local buffer filled from host data through a staging buffer of at most
// uploadChunkBytes, one submission a chunk.
Buffer uploadBuffer(const Context& context, std::span<const std::byte> data, VkBufferUsageFlags usage);

template <typename T>
Buffer uploadBuffer(const Context& context, std::span<const T> data, VkBufferUsageFlags usage) {
  return uploadBuffer(context, std::as_bytes(data), usage);
}

}  // namespace ptbench::vk
