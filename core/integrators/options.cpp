#include "core/integrators/options.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/integrators/registry.h"
#include "core/integrators/wavefront.h"
#include "core/trace/registry.h"

namespace ptbench {

PoolChoice defaultWavefrontPool(const RenderSettings& settings, const vk::DeviceCapabilities& device) {
  const uint64_t frame = framePaths(settings);
  const bool cpu = device.type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const uint64_t resident = device.smCount > 0 ? uint64_t{device.smCount} * residentThreadsPerNvidiaSm
                            : cpu              ? residentThreadsCpuDevice
                                               : residentThreadsUnknownDevice;
  std::string reason = device.smCount > 0
                           ? fmt::format("{} SMs x {} resident threads", device.smCount, residentThreadsPerNvidiaSm)
                           : fmt::format("{} resident threads (the device does not say; {})", resident,
                                         cpu ? "a CPU's" : "a large GPU's");
  reason += fmt::format(" x {} for the deep bounces", poolDeepBounceFactor);
  uint64_t paths = resident * poolDeepBounceFactor;
  const uint64_t budget =
      device.deviceLocalBytes > 0 ? std::min(poolMemoryBudget, device.deviceLocalBytes / 4) : poolMemoryBudget;
  const uint64_t bytesPerPath = WavefrontIntegrator::stateBytes(1, settings.wavefront);
  if (paths * bytesPerPath > budget) {
    paths = std::max<uint64_t>(budget / bytesPerPath, 1);
    reason += fmt::format(", cut to the state memory budget of {} MiB", budget >> 20);
  }
  paths = std::min<uint64_t>(paths, maxPoolSize);
  if (paths >= frame) {
    paths = frame;
    reason += ", cut to the frame's paths";
  } else {
    const uint64_t passes = (frame + paths - 1) / paths;
    paths = (frame + passes - 1) / passes;
    reason += fmt::format(", evened over {} passes of the frame's {} paths", passes, frame);
  }
  return {uint32_t(std::max<uint64_t>(paths, 1)), reason};
}

PoolChoice wavefrontPool(const RenderSettings& settings, const vk::DeviceCapabilities& device) {
  if (settings.restir != Restir::Off)
    return {settings.width * settings.height, "restir: one sample of every pixel a pass, as the reservoirs take them"};
  if (settings.wavefront.poolSize == 0) return defaultWavefrontPool(settings, device);
  const uint64_t frame = framePaths(settings);
  if (settings.wavefront.poolSize > frame) return {uint32_t(frame), "configured, cut to the frame's paths"};
  return {settings.wavefront.poolSize, "configured"};
}

PoolChoice resolveWavefrontPool(RenderSettings& settings, const vk::DeviceCapabilities& device) {
  const PoolChoice pool = wavefrontPool(settings, device);
  settings.wavefront.poolSize = pool.paths;
  return pool;
}

std::string applyBackendOption(Backend backend, const std::string& key, const nlohmann::json& value,
                               RenderSettings& settings) {
  const auto& known = trace::descriptor(backend).options;
  const auto option =
      std::find_if(known.begin(), known.end(), [&](const trace::BackendOption& o) { return o.name == key; });
  if (option == known.end()) {
    if (known.empty()) return std::string(backendName(backend)) + " has no options";
    std::string names;
    for (const trace::BackendOption& other : known) names += (names.empty() ? "" : ", ") + std::string(other.name);
    return "unknown option of the " + std::string(backendName(backend)) + " backend; it has " + names;
  }
  TraceTarget target(backend, settings.softwareBvh, settings.softwareBuilder);
  if (!option->parse(value, target)) return "expected " + std::string(option->accepted);
  settings.softwareBvh = target.softwareBvh;
  settings.softwareBuilder = target.softwareBuilder;
  return "";
}

nlohmann::json runOptionsJson(IntegratorKind kind, std::string_view backend, const RenderSettings& settings) {
  nlohmann::json options = optionsJson(kind, settings);
  if (const auto traced = parseBackend(backend))
    for (const trace::BackendOption& option : trace::descriptor(*traced).options)
      if (nlohmann::json value = option.print(TraceTarget(*traced, settings.softwareBvh, settings.softwareBuilder));
          !value.is_null())
        options[std::string(option.name)] = std::move(value);
  return options;
}

}  // namespace ptbench
