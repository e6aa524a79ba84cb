// What the driver says of a compiled pipeline (VK_KHR_pipeline_executable_properties): its
// executables (one per compiled shader stage, or the driver's own split of a ray-tracing
// pipeline) and their statistics (registers, memory, instruction counts: names are the driver's),
// and the occupancy the registers allow where the device's SM is known.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/vk/context.h"

namespace ptbench::vk {

struct ExecutableStatistic {
  std::string name;  // as the driver names it, e.g. "Register Count"
  double value = 0;  // booleans as 0 or 1
};

struct PipelineExecutable {
  std::string name;
  VkShaderStageFlags stages = 0;
  uint32_t subgroupSize = 0;
  std::vector<ExecutableStatistic> statistics;
};

// The pipeline's executables; empty unless the context enabled pipeline statistics
// (Context::pipelineStatisticsEnabled) and the pipeline was created with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR (pipelineStatisticsFlags).
std::vector<PipelineExecutable> pipelineExecutables(const Context& context, VkPipeline pipeline);

// The create flags that capture statistics on this context: none where it cannot.
VkPipelineCreateFlags pipelineStatisticsFlags(const Context& context);

// Resident warps per SM that a kernel's registers allow. NVIDIA only: its register file of
// 65,536 32-bit registers per SM (every architecture since Kepler), allocated per warp in units
// of 256, and VK_NV_shader_sm_builtins' warps per SM. Workgroups are resident whole, so a compute
// kernel's warps round down to whole workgroups; a ray-generation shader's threads are
// scheduled by the driver per warp. Shared memory, the resident-workgroup limit of a SM (32 on an
// H100, which caps one-invocation kernels such as prepare) and the driver's own limits are not
// modelled.
struct Occupancy {
  uint32_t registersPerThread = 0;
  uint32_t warpsPerSm = 0;     // resident
  uint32_t maxWarpsPerSm = 0;  // the SM's warp slots
  std::string limitedBy;       // "registers" or "warp slots"
  double fraction() const { return maxWarpsPerSm > 0 ? double(warpsPerSm) / maxWarpsPerSm : 0.0; }
};
struct OccupancyResult {
  std::optional<Occupancy> occupancy;
  std::string reason;  // why there is none
};

// The first statistic whose name says it counts registers per thread, if any.
std::optional<uint32_t> registersPerThread(const std::vector<PipelineExecutable>& executables);

OccupancyResult occupancy(const DeviceCapabilities& device, const std::vector<PipelineExecutable>& executables,
                          uint32_t threadsPerWorkgroup);

}  // namespace ptbench::vk
