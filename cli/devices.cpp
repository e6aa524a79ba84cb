// `ptbench devices`: what each Vulkan device offers, and which trace backends it can run.
#include <fmt/format.h>

#include <iostream>

#include "cli/options.h"
#include "core/experiment/device_json.h"
#include "core/trace/registry.h"
#include "core/vk/context.h"

namespace ptbench::cli {
namespace {

std::string yesNo(bool value) {
  return value ? "yes" : "no";
}

void printDevices(bool asJson) {
  const auto devices = vk::listDevices();
  if (asJson) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& device : devices) list.push_back(deviceJson(device));
    std::cout << nlohmann::json{{"devices", list}}.dump(2) << "\n";
    return;
  }
  for (const auto& d : devices) {
    std::cout << fmt::format("{}: {} ({}), Vulkan {}, driver {} {}\n", d.index, d.name, d.typeName(),
                             d.apiVersionString(), d.driverName, d.driverInfo);
    std::cout << fmt::format("   memory {:.1f} GiB, subgroup {}, timestamps {} bits at {} ns\n",
                             static_cast<double>(d.deviceLocalBytes) / (1u << 30), d.subgroupSize, d.timestampValidBits,
                             d.timestampPeriodNs);
    std::string backends;
    for (const trace::BackendDescriptor* backend : trace::backends())
      backends +=
          fmt::format("{}{} {}", backends.empty() ? "" : ", ", backend->name, yesNo(trace::supports(d, backend->id)));
    std::cout << "   backends: " << backends << "\n";
    // The hint says whether the device regroups threads at a reorder or only accepts the call.
    const std::string reorder = d.invocationReorderNv
                                    ? (d.invocationReorderReorders ? "yes (reorders)" : "yes (accepted, not reordered)")
                                : d.invocationReorderExt ? "EXT only (ptbench uses the NV extension)"
                                                         : "no";
    std::cout << fmt::format(
        "   SER (VK_NV_ray_tracing_invocation_reorder): {}; counters: simt in compute {}, "
        "in ray generation {}; counters: clocks (VK_KHR_shader_clock's subgroup clock) {}, where simt runs\n",
        reorder, yesNo(d.simtCountersIn(VK_SHADER_STAGE_COMPUTE_BIT)),
        yesNo(d.simtCountersIn(VK_SHADER_STAGE_RAYGEN_BIT_KHR)), yesNo(d.subgroupClock));
    // Registers and occupancy per kernel in reports need the statistics; the SM model the builtins.
    std::cout << fmt::format(
        "   kernel statistics (VK_KHR_pipeline_executable_properties): {}; SMs {}, warps per SM {} "
        "(VK_NV_shader_sm_builtins)\n",
        yesNo(d.pipelineExecutableInfo), d.smCount ? std::to_string(d.smCount) : "unknown",
        d.warpsPerSm ? std::to_string(d.warpsPerSm) : "unknown");
  }
}

}  // namespace

void addDevicesCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand("devices", "List Vulkan devices and the trace backends each supports");
  auto asJson = std::make_shared<bool>(false);
  command->add_flag("--json", *asJson, "Print JSON: {\"devices\": [...]}");
  command->callback([asJson] { printDevices(*asJson); });
}

}  // namespace ptbench::cli
