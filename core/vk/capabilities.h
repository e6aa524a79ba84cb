// What a physical device offers, probed once by the context (core/vk/context.cpp). It sits below
// the trace backends' descriptors (core/trace/), which decide from it whether a device runs them.
#pragma once
#include <array>
#include <cstdint>
#include <string>
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
  bool subgroupClock = false;  // VK_KHR_shader_clock's shaderSubgroupClock: counters: clocks reads it
  // rayTracingInvocationReorderReorderingHint: whether the device actually reorders, or only
  // accepts the calls (NVIDIA GPUs without RT cores, such as the H100 and H200).
  bool invocationReorderReorders = false;

  uint32_t accelerationScratchAlignment = 256;
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rayTracingProperties{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};

  // What every backend needs, and ptbench at the least: Vulkan 1.3 with buffer device address,
  // scalar block layout, descriptor indexing, synchronization2 and 64-bit buffer atomics.
  bool meetsBaseline() const;
  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver's statistics of
  // each compiled pipeline (registers, memory), which kernels report (core/vk/pipeline_statistics.h).
  bool pipelineExecutableInfo = false;

  bool invocationReorder() const { return invocationReorderNv || invocationReorderExt; }
  // Whether kernels in `stage` can run the counters' subgroup operations (basic, ballot,
  // arithmetic; counters: simt's, and clocks' sums): compute on every device ptbench knows, ray
  // generation not on lavapipe.
  bool simtCountersIn(VkShaderStageFlagBits stage) const;
  std::string typeName() const;
  std::string apiVersionString() const;
};

}  // namespace ptbench::vk
