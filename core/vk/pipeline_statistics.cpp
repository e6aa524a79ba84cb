#include "core/vk/pipeline_statistics.h"

#include "core/text.h"

namespace ptbench::vk {
namespace {

double statisticValue(const VkPipelineExecutableStatisticKHR& statistic) {
  switch (statistic.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return statistic.value.b32 ? 1.0 : 0.0;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return double(statistic.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return double(statistic.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return statistic.value.f64;
    default:
      return 0.0;
  }
}

constexpr uint32_t nvidiaVendorId = 0x10de;
constexpr uint32_t nvidiaRegistersPerSm = 65536;
constexpr uint32_t nvidiaRegisterUnitPerWarp = 256;
constexpr uint32_t nvidiaWarpSize = 32;

}  // namespace

VkPipelineCreateFlags pipelineStatisticsFlags(const Context& context) {
  return context.pipelineStatisticsEnabled() ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0;
}

std::vector<PipelineExecutable> pipelineExecutables(const Context& context, VkPipeline pipeline) {
  std::vector<PipelineExecutable> result;
  if (!context.pipelineStatisticsEnabled()) return result;
  const VkPipelineInfoKHR pipelineInfo{.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipeline};
  // A diagnostic: a query the driver fails leaves the kernel without statistics, not the run.
  uint32_t count = 0;
  if (vkGetPipelineExecutablePropertiesKHR(context.device(), &pipelineInfo, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkPipelineExecutablePropertiesKHR> properties(
      count, {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (vkGetPipelineExecutablePropertiesKHR(context.device(), &pipelineInfo, &count, properties.data()) != VK_SUCCESS)
    return {};
  for (uint32_t index = 0; index < count; ++index) {
    PipelineExecutable executable{.name = properties[index].name,
                                  .stages = properties[index].stages,
                                  .subgroupSize = properties[index].subgroupSize};
    const VkPipelineExecutableInfoKHR executableInfo{
        .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipeline, .executableIndex = index};
    uint32_t statisticCount = 0;
    if (vkGetPipelineExecutableStatisticsKHR(context.device(), &executableInfo, &statisticCount, nullptr) != VK_SUCCESS)
      return {};
    std::vector<VkPipelineExecutableStatisticKHR> statistics(
        statisticCount, {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (vkGetPipelineExecutableStatisticsKHR(context.device(), &executableInfo, &statisticCount, statistics.data()) !=
        VK_SUCCESS)
      return {};
    for (const auto& statistic : statistics)
      executable.statistics.push_back({.name = statistic.name, .value = statisticValue(statistic)});
    result.push_back(std::move(executable));
  }
  return result;
}

std::optional<uint32_t> registersPerThread(const std::vector<PipelineExecutable>& executables) {
  // A ray-tracing pipeline may list several executables; its threads are allocated the most
  // any of them needs.
  std::optional<uint32_t> most;
  for (const auto& executable : executables)
    for (const auto& statistic : executable.statistics) {
      const std::string name = lowercase(statistic.name);
      if (name.find("register") == std::string::npos || name.find("spill") != std::string::npos) continue;
      most = std::max(most.value_or(0), uint32_t(statistic.value));
      break;
    }
  return most;
}

OccupancyResult occupancy(const DeviceCapabilities& device, const std::vector<PipelineExecutable>& executables,
                          uint32_t threadsPerWorkgroup) {
  if (executables.empty())
    return {.reason = device.pipelineExecutableInfo ? "the driver listed no executables for this pipeline"
                                                    : "the device lacks VK_KHR_pipeline_executable_properties"};
  const std::optional<uint32_t> registers = registersPerThread(executables);
  if (!registers || *registers == 0) return {.reason = "the driver's statistics name no register count"};
  if (device.vendorId != nvidiaVendorId || device.warpsPerSm == 0)
    return {.reason =
                "the register file and warp slots of this device are unknown (modelled for NVIDIA with "
                "VK_NV_shader_sm_builtins only)"};
  const uint32_t perWarp = (*registers * nvidiaWarpSize + nvidiaRegisterUnitPerWarp - 1) / nvidiaRegisterUnitPerWarp *
                           nvidiaRegisterUnitPerWarp;
  uint32_t byRegisters = nvidiaRegistersPerSm / perWarp;
  const uint32_t warpsPerWorkgroup = std::max(1u, (threadsPerWorkgroup + nvidiaWarpSize - 1) / nvidiaWarpSize);
  byRegisters = byRegisters / warpsPerWorkgroup * warpsPerWorkgroup;
  const uint32_t bySlots = device.warpsPerSm / warpsPerWorkgroup * warpsPerWorkgroup;
  Occupancy result{.registersPerThread = *registers,
                   .warpsPerSm = std::min(byRegisters, bySlots),
                   .maxWarpsPerSm = device.warpsPerSm,
                   .limitedBy = byRegisters < bySlots ? "registers" : "warp slots"};
  return {.occupancy = result};
}

}  // namespace ptbench::vk
