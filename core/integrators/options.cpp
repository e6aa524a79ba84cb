#include "core/integrators/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/integrators/wavefront.h"
#include "core/trace/registry.h"

namespace ptbench {

const std::vector<OptionInfo>& integratorOptions(IntegratorKind kind) {
  static const std::vector<OptionInfo> none;
  static const std::vector<OptionInfo> wavefront = {
      {"schedule", "depth or pool",
       "depth: the paths of a pass advance one bounce per iteration; pool: a persistent pool refilled as paths end"},
      {"pool_size", "an integer from 1 to 67108864, or 0 for the default",
       "paths in flight (0, the default: chosen from the device, the memory budget and the frame; reports say why)"},
      {"compaction", "true or false", "launch each stage over its queue (true) or over the whole pool (false)"},
      {"material_queues", "true or false", "one shade kernel and queue per material class"},
  };
  static const std::vector<OptionInfo> raycast = {
      {"rays", "primary, diffuse or shadow",
       "the rays the trace stage measures: camera rays (closest hit), cosine-distributed rays from their hits "
       "(closest hit) or rays from their hits to light samples (any hit)"},
  };
  static const std::vector<OptionInfo> ser = {
      {"hint", "none or material",
       "the coherence hint of each reorder: none, the hit object alone (hit or miss); material, also the hit's "
       "material class (3 bits)"},
      {"reorder_from", "an integer from 1 to 1024",
       "the first bounce whose hits are reordered: 1, the camera rays' too; 2, from the first indirect ray on"},
  };
  switch (kind) {
    case IntegratorKind::Wavefront:
      return wavefront;
    case IntegratorKind::Raycast:
      return raycast;
    case IntegratorKind::MegakernelSer:
      return ser;
    default:
      return none;
  }
}

std::string applyOption(IntegratorKind kind, const std::string& key, const nlohmann::json& value,
                        RenderSettings& settings) {
  const auto& known = integratorOptions(kind);
  const auto info = std::find_if(known.begin(), known.end(), [&](const OptionInfo& o) { return o.name == key; });
  if (info == known.end()) {
    if (known.empty()) return std::string(integratorName(kind)) + " has no options";
    std::string names;
    for (const auto& option : known) names += (names.empty() ? "" : ", ") + option.name;
    return "unknown option of " + std::string(integratorName(kind)) + "; it has " + names;
  }
  const std::string expected = "expected " + info->accepted;
  if (kind == IntegratorKind::Raycast) {
    for (RaycastRays rays : {RaycastRays::Primary, RaycastRays::Diffuse, RaycastRays::Shadow})
      if (value == raycastRaysName(rays)) {
        settings.raycast.rays = rays;
        return "";
      }
    return expected;
  }
  if (kind == IntegratorKind::MegakernelSer) {
    if (key == "hint") {
      if (value == "none")
        settings.ser.hint = SerHint::None;
      else if (value == "material")
        settings.ser.hint = SerHint::Material;
      else
        return expected;
    } else {
      if (!value.is_number_unsigned() || value.get<uint64_t>() < 1 || value.get<uint64_t>() > 1024) return expected;
      settings.ser.reorderFrom = value.get<uint32_t>();
    }
    return "";
  }
  WavefrontOptions& options = settings.wavefront;
  if (key == "schedule") {
    if (value == "depth")
      options.schedule = WavefrontSchedule::Depth;
    else if (value == "pool")
      options.schedule = WavefrontSchedule::Pool;
    else
      return expected;
  } else if (key == "pool_size") {
    if (!value.is_number_unsigned() || value.get<uint64_t>() > maxPoolSize) return expected;
    options.poolSize = value.get<uint32_t>();
  } else if (key == "compaction" || key == "material_queues") {
    if (!value.is_boolean()) return expected;
    (key == "compaction" ? options.compaction : options.materialQueues) = value.get<bool>();
  }
  return "";
}

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

nlohmann::json optionsJson(IntegratorKind kind, const RenderSettings& settings) {
  if (kind == IntegratorKind::Raycast) return {{"rays", raycastRaysName(settings.raycast.rays)}};
  if (kind == IntegratorKind::MegakernelSer)
    return {{"hint", settings.ser.hint == SerHint::Material ? "material" : "none"},
            {"reorder_from", settings.ser.reorderFrom}};
  if (kind != IntegratorKind::Wavefront) return nlohmann::json::object();
  const WavefrontOptions& options = settings.wavefront;
  return {{"schedule", options.schedule == WavefrontSchedule::Pool ? "pool" : "depth"},
          {"pool_size", options.poolSize},
          {"compaction", options.compaction},
          {"material_queues", options.materialQueues}};
}

// The backends' options are their descriptors' (core/trace/); these read them in the shape of
// the integrators' options.
const std::vector<OptionInfo>& backendOptions(Backend backend) {
  static const auto table = [] {
    std::array<std::vector<OptionInfo>, allBackends.size()> options;
    for (Backend each : allBackends)
      for (const trace::BackendOption& option : trace::descriptor(each).options)
        options[size_t(each)].push_back(
            {std::string(option.name), std::string(option.accepted), std::string(option.description)});
    return options;
  }();
  return table[size_t(backend)];
}

std::string applyBackendOption(Backend backend, const std::string& key, const nlohmann::json& value,
                               RenderSettings& settings) {
  const auto& known = trace::descriptor(backend).options;
  const auto option =
      std::find_if(known.begin(), known.end(), [&](const trace::BackendOption& o) { return o.name == key; });
  if (option == known.end())
    return known.empty() ? std::string(backendName(backend)) + " has no options"
                         : "unknown option of the " + std::string(backendName(backend)) + " backend; it has " +
                               std::string(known.front().name);
  TraceTarget target(backend, settings.softwareBvh);
  if (!option->parse(value, target)) return "expected " + std::string(option->accepted);
  settings.softwareBvh = target.softwareBvh;
  return "";
}

nlohmann::json runOptionsJson(IntegratorKind kind, std::string_view backend, const RenderSettings& settings) {
  nlohmann::json options = optionsJson(kind, settings);
  if (const auto traced = parseBackend(backend))
    for (const trace::BackendOption& option : trace::descriptor(*traced).options)
      options[std::string(option.name)] = option.print(TraceTarget(*traced, settings.softwareBvh));
  return options;
}

}  // namespace ptbench
