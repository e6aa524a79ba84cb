#include "core/trace/registry.h"

#include <stdexcept>

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

}  // namespace ptbench
