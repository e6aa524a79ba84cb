// Every trace backend's descriptor, in the order `auto` prefers them (backends.def's).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/backend.h"
#include "core/vk/context.h"

namespace ptbench::trace {

// In allBackends' order, which is also `auto`'s preference: the driver's traversal first.
std::span<const BackendDescriptor* const> backends();
const BackendDescriptor& descriptor(Backend backend);

// Whether `device` runs `backend`: the baseline (DeviceCapabilities::meetsBaseline) and what the
// backend's descriptor asks beyond it.
bool supports(const vk::DeviceCapabilities& device, Backend backend);
// The backends `device` runs, in the registry's order, which `auto` prefers them in.
std::vector<Backend> supportedBackends(const vk::DeviceCapabilities& device);
// "auto" (ptbench's own BVH on a CPU implementation; else the first the device runs in the
// registry's order) or a backend's name; a UserError when the device lacks it, naming the
// backends it has.
Backend resolveBackend(const vk::DeviceCapabilities& device, std::string_view requested);
// The UserError's words where `device` lacks `backend`: the backends it has, and what to do.
std::string unsupportedMessage(const vk::DeviceCapabilities& device, Backend backend);
// What the context checks and enables for each of `backends` (vk::ContextOptions::backends).
std::vector<vk::BackendNeeds> deviceNeeds(std::span<const Backend> backends);

// The backend that has an option named `name` (options.<backend>, `render --option`), if any.
std::optional<Backend> backendWithOption(std::string_view name);

// Whether runs on `backend` traverse ptbench's software BVH (in the layout their software_bvh
// option names), which their scene must then build.
bool tracesSoftwareBvh(Backend backend);

// The backends' names joined for messages and help: "rayquery, pipeline or software" with
// lastSeparator " or ", "rayquery, pipeline, software" with ", ".
std::string backendNameList(std::string_view lastSeparator);

// What --backend takes, with auto's rule: "auto, rayquery, pipeline or software (auto: rayquery
// where supported, else pipeline, else software)".
std::string backendChoicesHelp();

}  // namespace ptbench::trace
