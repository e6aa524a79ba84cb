// Vulkan errors as exceptions that carry the call, the VkResult's name, the file and line.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

#include "core/vk/vulkan.h"

namespace ptbench::vk {

const char* resultName(VkResult result);

// After a submission that did not finish in time, the GPU may still be reading and writing any
// memory of the device, so nothing created on it may be freed or destroyed: destructors ask
// deviceAbandoned() and leave their handles to the process's end.
bool deviceAbandoned();
void abandonDevice();

class VulkanError : public std::runtime_error {
 public:
  VulkanError(VkResult result, const std::string& call, const char* file, int line)
      : std::runtime_error(call + " failed with " + resultName(result) + " at " + file + ":" + std::to_string(line) +
                           hint(result)),
        result_(result) {}
  VkResult result() const { return result_; }
  // Device or host memory ran out: a caller that can free memory, or ask for less, may try again.
  bool outOfMemory() const { return outOfMemory(result_); }

 private:
  static bool outOfMemory(VkResult result) {
    return result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  // What a user can do about the failures that depend on the input rather than on ptbench.
  static std::string hint(VkResult result) {
    if (outOfMemory(result)) return " (out of memory: use a smaller resolution or scene, or a device with more memory)";
    if (result == VK_ERROR_DEVICE_LOST) return " (the device was lost: a driver reset or a kernel that ran too long)";
    if (result == VK_TIMEOUT)
      return " (the GPU did not finish a submission within --gpu-timeout: hung, or a frame too large for the "
             "limit; raise it with --gpu-timeout SECONDS)";
    return "";
  }

  VkResult result_;
};

#define VK_CHECK(call)                                                                                             \
  do {                                                                                                             \
    VkResult vkCheckResult_ = (call);                                                                              \
    if (vkCheckResult_ != VK_SUCCESS) throw ::ptbench::vk::VulkanError(vkCheckResult_, #call, __FILE__, __LINE__); \
  } while (0)

// Move-only owner of a handle created from a VkDevice; destroyFn is the matching vkDestroy*.
template <typename Handle, auto& destroyFn>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(VkDevice device, Handle handle) : device_(device), handle_(handle) {}
  DeviceHandle(DeviceHandle&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  ~DeviceHandle() { reset(); }

  void reset() {
    if (handle_ != VK_NULL_HANDLE && !deviceAbandoned()) destroyFn(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
};

}  // namespace ptbench::vk
