// Every trace backend's descriptor, in the order `auto` prefers them (backends.def's).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/trace/backend.h"

namespace ptbench::trace {

// In allBackends' order, which is also `auto`'s preference: the driver's traversal first.
std::span<const BackendDescriptor* const> backends();
const BackendDescriptor& descriptor(Backend backend);

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
