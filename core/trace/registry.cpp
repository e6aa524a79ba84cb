#include "core/trace/registry.h"

#include <algorithm>
#include <stdexcept>

#include "core/errors.h"
#include "core/vk/device_setup.h"

namespace ptbench::trace {

// One per line of backends.def, each defined in its own unit (<name>.cpp).
#define PTBENCH_TRACE_BACKEND(enumerator, name, shaderDefine, stage) extern const BackendDescriptor name##Backend;
#include "core/backends.def"

namespace {

// In backends.def's order, which is allBackends': descriptor() checks each is in its place.
constexpr std::array<const BackendDescriptor*, allBackends.size()> registry = {
#define PTBENCH_TRACE_BACKEND(enumerator, name, shaderDefine, stage) &name##Backend,
#include "core/backends.def"
};

}  // namespace

std::span<const BackendDescriptor* const> backends() {
  return registry;
}

const BackendDescriptor& descriptor(Backend backend) {
  const BackendDescriptor& found = *registry.at(size_t(backend));
  if (found.id != backend)
    throw std::logic_error("the trace backend registry lists " + std::string(found.name) + " in place of backend " +
                           std::to_string(int(backend)));
  return found;
}

std::optional<Backend> backendWithOption(std::string_view name) {
  for (const BackendDescriptor* backend : registry)
    for (const BackendOption& option : backend->options)
      if (option.name == name) return backend->id;
  return std::nullopt;
}

bool tracesSoftwareBvh(Backend backend) {
  return descriptor(backend).scene == SceneNeeds::SoftwareBvh;
}

std::string backendNameList(std::string_view lastSeparator) {
  std::string list;
  for (size_t i = 0; i < registry.size(); ++i) {
    if (i > 0) list += i + 1 == registry.size() ? lastSeparator : std::string_view(", ");
    list += registry[i]->name;
  }
  return list;
}

std::string backendChoicesHelp() {
  std::string autoRule;
  for (const BackendDescriptor* backend : registry)
    autoRule +=
        autoRule.empty() ? std::string(backend->name) + " where supported" : ", else " + std::string(backend->name);
  return "auto, " + backendNameList(" or ") + " (auto: " + autoRule + "; on a CPU implementation such as lavapipe, " +
         std::string(descriptor(Backend::Software).name) + ")";
}

void enableAccelerationStructures(vk::DeviceSetup& setup) {
  setup.enableExtension(VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME);
  setup.enableExtension(VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME);
  setup.features.accelerationStructure.accelerationStructure = VK_TRUE;
}

}  // namespace ptbench::trace

namespace ptbench {

std::string_view backendName(Backend backend) {
  return trace::descriptor(backend).name;
}

std::optional<Backend> parseBackend(std::string_view name) {
  for (const trace::BackendDescriptor* backend : trace::backends())
    if (backend->name == name) return backend->id;
  return std::nullopt;
}

namespace trace {

bool supports(const vk::DeviceCapabilities& device, Backend backend) {
  return device.meetsBaseline() && descriptor(backend).supportedBy(device);
}

std::vector<Backend> supportedBackends(const vk::DeviceCapabilities& device) {
  std::vector<Backend> supported;
  for (const BackendDescriptor* backend : backends())
    if (supports(device, backend->id)) supported.push_back(backend->id);
  return supported;
}

std::string unsupportedMessage(const vk::DeviceCapabilities& device, Backend backend) {
  std::string supported;
  for (Backend b : supportedBackends(device))
    supported += std::string(supported.empty() ? "" : ", ") + std::string(backendName(b));
  return "backend " + std::string(backendName(backend)) + " is not supported by " + device.name +
         "; it supports: " + (supported.empty() ? "none" : supported) +
         " (see `ptbench devices`, or choose another with --device)";
}

Backend resolveBackend(const vk::DeviceCapabilities& device, std::string_view requested) {
  if (requested == "auto") {
    // On a CPU implementation ptbench's own BVH: on lavapipe it was 3.7x as fast as ray queries
    // over the shipped scenes (geometric mean; 129x on ToyCar) and at worst 1.7x slower
    // (docs/config.md, "backends").
    if (device.type == VK_PHYSICAL_DEVICE_TYPE_CPU && supports(device, Backend::Software)) return Backend::Software;
    // The first the device supports in the registry's order: the driver's traversal where there
    // is one; ptbench's own BVH in compute shaders elsewhere. When there is none, the last, which
    // needs the least, is the one to name.
    const auto supported = supportedBackends(device);
    if (!supported.empty()) return supported.front();
    throw UserError(unsupportedMessage(device, backends().back()->id));
  }
  const auto backend = parseBackend(requested);
  if (!backend)
    throw UserError("unknown backend '" + std::string(requested) + "': use auto, " + backendNameList(" or "));
  if (!supports(device, *backend)) throw UserError(unsupportedMessage(device, *backend));
  return *backend;
}

std::vector<vk::BackendNeeds> deviceNeeds(std::span<const Backend> chosen) {
  std::vector<vk::BackendNeeds> needs;
  // In the registry's order, whatever the caller's: each enables what it needs in turn.
  for (const BackendDescriptor* backend : backends())
    if (std::find(chosen.begin(), chosen.end(), backend->id) != chosen.end())
      needs.push_back({.backend = backend->id,
                       .supportedBy = backend->supportedBy,
                       .enable = backend->enable,
                       .accelerationStructures = backend->scene == SceneNeeds::AccelerationStructures,
                       .unsupported = unsupportedMessage});
  return needs;
}

}  // namespace trace

}  // namespace ptbench
