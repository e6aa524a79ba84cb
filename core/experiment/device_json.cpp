#include "core/experiment/device_json.h"

#include "core/trace/registry.h"

namespace ptbench {

namespace {

// Where the divergence counters (counters: simt) can run: compute kernels, and the ray-generation
// shaders of the pipeline backend's megakernels.
nlohmann::json simtCountersJson(const vk::DeviceCapabilities& device) {
  return {{"compute", device.simtCountersIn(VK_SHADER_STAGE_COMPUTE_BIT)},
          {"ray_generation", device.simtCountersIn(VK_SHADER_STAGE_RAYGEN_BIT_KHR)}};
}

}  // namespace

nlohmann::json deviceJson(const vk::DeviceCapabilities& device) {
  nlohmann::json backends = nlohmann::json::object();
  for (Backend backend : allBackends) backends[std::string(backendName(backend))] = trace::supports(device, backend);
  return {
      {"index", device.index},
      {"name", device.name},
      {"type", device.typeName()},
      {"vendor_id", device.vendorId},
      {"device_id", device.deviceId},
      {"driver", device.driverName},
      {"driver_info", device.driverInfo},
      {"api_version", device.apiVersionString()},
      {"memory_bytes", device.deviceLocalBytes},
      {"subgroup_size", device.subgroupSize},
      {"timestamp_period_ns", device.timestampPeriodNs},
      {"timestamp_valid_bits", device.timestampValidBits},
      {"backends", backends},
      {"ser", device.invocationReorder()},
      {"invocation_reorder",
       {{"VK_NV_ray_tracing_invocation_reorder", device.invocationReorderNv},
        {"VK_EXT_ray_tracing_invocation_reorder", device.invocationReorderExt},
        // rayTracingInvocationReorderReorderingHint: false where the calls are accepted and ignored.
        {"reorders", device.invocationReorderReorders}}},
      {"simt_counters", simtCountersJson(device)},
      // VK_KHR_pipeline_executable_properties: reports give each kernel's registers and occupancy.
      {"kernel_statistics", device.pipelineExecutableInfo},
      // VK_NV_shader_sm_builtins (0: unknown).
      {"sm_count", device.smCount},
      {"warps_per_sm", device.warpsPerSm},
  };
}

}  // namespace ptbench
