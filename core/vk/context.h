// Vulkan instance, physical-device choice and feature probing, and the logical device.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/vk/vulkan.h"

namespace ptbench::vk {

// What one physical device offers, probed once. Everything `ptbench devices` prints.
struct DeviceCapabilities {
  uint32_t index = 0;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendorId = 0;
  uint32_t deviceId = 0;
  std::string driverName;
  std::string driverInfo;
  uint32_t apiVersion = 0;
  uint64_t deviceLocalBytes = 0;
  uint32_t subgroupSize = 0;
  std::array<uint8_t, 16> uuid{};  // deviceUUID: how NVML finds the same GPU
  uint32_t smCount = 0;            // VK_NV_shader_sm_builtins' shaderSMCount; 0 where unknown
  uint32_t warpsPerSm = 0;         // and its shaderWarpsPerSM
  float timestampPeriodNs = 0;
  uint32_t timestampValidBits = 0;  // of the compute queue family ptbench uses
  uint32_t computeQueueFamily = 0;
  // The widest 1-D ray-generation launch: maxComputeWorkGroupCount[0] x maxComputeWorkGroupSize[0]
  // (the bound of vkCmdTraceRays' width), within maxRayDispatchInvocationCount. Wider launches
  // fold into rows, whose 2-D shape some drivers tile warps over (a warp's rays rows apart).
  uint32_t traceRowWidth = 1u << 22;

  bool bufferDeviceAddress = false;
  bool scalarBlockLayout = false;
  bool descriptorIndexing = false;
  bool synchronization2 = false;
  bool int64Atomics = false;             // shaderInt64 and shaderBufferInt64Atomics: the film needs them
  bool subgroupBallotInCompute = false;  // queue pushes aggregate per subgroup where this holds
  // VkPhysicalDeviceSubgroupProperties: the stages with subgroup operations, and which.
  VkShaderStageFlags subgroupStages = 0;
  VkSubgroupFeatureFlags subgroupOperations = 0;
  bool accelerationStructure = false;
  bool rayQuery = false;
  bool rayTracingPipeline = false;
  bool rayTracingIndirect = false;
  bool invocationReorderNv = false;  // VK_NV_ray_tracing_invocation_reorder with its feature
  bool invocationReorderExt = false;
  // rayTracingInvocationReorderReorderingHint: whether the device actually reorders, or only
  // accepts the calls (NVIDIA GPUs without RT cores, such as the H100 and H200).
  bool invocationReorderReorders = false;

  uint32_t accelerationScratchAlignment = 256;
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rayTracingProperties{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};

  bool supports(Backend backend) const;
  std::vector<Backend> supportedBackends() const;
  // The supported backends that trace through acceleration structures, ray queries first.
  std::vector<Backend> hardwareBackends() const;
  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver's statistics of
  // each compiled pipeline (registers, memory), which kernels report (core/vk/pipeline_statistics.h).
  bool pipelineExecutableInfo = false;

  bool invocationReorder() const { return invocationReorderNv || invocationReorderExt; }
  // Whether kernels in `stage` can run the divergence counters' subgroup operations (basic,
  // ballot, arithmetic): compute on every device ptbench knows, ray generation not on lavapipe.
  bool simtCountersIn(VkShaderStageFlagBits stage) const;
  std::string typeName() const;
  std::string apiVersionString() const;
};

struct ContextOptions {
  bool validation = false;
  // Index or case-insensitive name substring; empty picks discrete, then integrated, then CPU.
  std::string deviceSelector;
  // Backends the run will use: the device must support each, and gets the features they need.
  std::vector<Backend> backends;
  // The longest one submission may run before the GPU is given up as hung (0: no limit).
  double submitTimeoutSeconds = 0;
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

// "auto" (ray queries where the device has them, else the ray-tracing pipeline) or a backend
// name; a UserError when the device lacks it, naming the backends it has.
Backend resolveBackend(const DeviceCapabilities& device, std::string_view requested);

}  // namespace ptbench::vk
