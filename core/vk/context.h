// Vulkan instance, physical-device choice and feature probing, and the logical device.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/vk/capabilities.h"
#include "core/vk/vulkan.h"

namespace ptbench::vk {

struct DeviceSetup;

// What a trace backend needs of the device beyond the baseline, as the context checks and
// enables it: core/trace/ describes each backend (trace::deviceNeeds), and the context, a floor
// below, knows none of them by name.
struct BackendNeeds {
  Backend backend;
  bool (*supportedBy)(const DeviceCapabilities& device) = nullptr;
  void (*enable)(DeviceSetup& setup, const DeviceCapabilities& device) = nullptr;
  bool accelerationStructures = false;  // the scene is traced through the driver's structures
  // What a UserError says where the device lacks it.
  std::string (*unsupported)(const DeviceCapabilities& device, Backend backend) = nullptr;
};

struct ContextOptions {
  bool validation = false;
  // Index or case-insensitive name substring; empty picks discrete, then integrated, then CPU.
  std::string deviceSelector;
  // The backends the run will use (trace::deviceNeeds): the device must support each, and gets
  // the features they need.
  std::vector<BackendNeeds> backends;
  // The longest one submission may run before the GPU is given up as hung (0: no limit).
  double submitTimeoutSeconds = 0;
};

// Pipelines made on this device, kept for their later users: a sweep's runs share most of their
// kernels, and compiling each again cost lavapipe 0.3-1 s a kernel, most of a short run.
// Whoever makes a pipeline files it under a key naming everything its creation read (shader,
// specialisation, push-constant size, the definition of each descriptor-set layout: pipelines
// of identically defined layouts are compatible).
class ReusablePipelines {
 public:
  std::shared_ptr<const void> find(const std::string& key) const {
    const std::lock_guard lock(mutex_);
    const auto found = pipelines_.find(key);
    return found == pipelines_.end() ? nullptr : found->second;
  }
  void keep(const std::string& key, std::shared_ptr<const void> pipeline) {
    const std::lock_guard lock(mutex_);
    pipelines_.emplace(key, std::move(pipeline));
  }
  size_t size() const {
    const std::lock_guard lock(mutex_);
    return pipelines_.size();
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    pipelines_.clear();
  }
  // For a device left to the process's end (lost, or still running a submission): its
  // pipelines are never destroyed.
  void abandon() {
    const std::lock_guard lock(mutex_);
    new std::map<std::string, std::shared_ptr<const void>>(std::move(pipelines_));
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const void>> pipelines_;
};

// Instance, debug messenger, chosen device and its queue. Not movable: everything created
// from it keeps its handles.
class Context {
 public:
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkDevice device() const { return device_; }
  // Pipelines made so far, for reuse; they are destroyed with the device.
  ReusablePipelines& reusablePipelines() const { return reusablePipelines_; }
  const DeviceCapabilities& capabilities() const { return capabilities_; }
  // Whether the device was created with acceleration structures (a hardware backend asked).
  bool accelerationStructuresEnabled() const { return accelerationStructures_; }
  bool backendEnabled(Backend backend) const;
  // Whether command buffers can carry debug labels (VK_EXT_debug_utils), for capture tools.
  bool debugLabels() const { return debugLabels_; }
  // Whether pipelines may be created capturing their statistics (the device has them).
  bool pipelineStatisticsEnabled() const { return pipelineStatistics_; }
  bool validationEnabled() const { return messenger_ != VK_NULL_HANDLE; }
  // Validation warnings and errors seen so far; tests fail on any.
  uint32_t validationMessageCount() const { return validationMessages_; }
  // After a lost device (VK_ERROR_DEVICE_LOST), nothing more can run.
  bool lost() const { return lost_; }

  // Records commands into a fresh command buffer, submits it and waits for its fence.
  void submitAndWait(const std::function<void(VkCommandBuffer)>& record) const;

  uint32_t findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags properties) const;

 private:
  void release();
  static VkBool32 VKAPI_PTR onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                           VkDebugUtilsMessageTypeFlagsEXT types,
                                           const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice_ = VK_NULL_HANDLE;
  DeviceCapabilities capabilities_;
  VkPhysicalDeviceMemoryProperties memoryProperties_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  mutable ReusablePipelines reusablePipelines_;
  uint32_t validationMessages_ = 0;
  bool debugLabels_ = false;
  bool pipelineStatistics_ = false;
  mutable bool lost_ = false;
  double submitTimeoutSeconds_ = 0;
  bool accelerationStructures_ = false;
  std::vector<Backend> backends_;
};

// Every physical device with its capabilities, without creating a logical device.
std::vector<DeviceCapabilities> listDevices();

// The device a Context with this selector would choose, without creating it.
DeviceCapabilities selectDevice(const std::string& selector);

}  // namespace ptbench::vk
