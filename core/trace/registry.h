// Every trace backend's descriptor, in the order `auto` prefers them (registry.cpp lists them).
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "core/trace/backend.h"

namespace ptbench::trace {

// In allBackends' order, which is also `auto`'s preference: the driver's traversal first.
std::span<const BackendDescriptor* const> backends();
const BackendDescriptor& descriptor(Backend backend);

// The backends' names joined for messages and help: "rayquery, pipeline or software" with
// lastSeparator " or ", "rayquery, pipeline, software" with ", ".
std::string backendNameList(std::string_view lastSeparator);

// What --backend takes, with auto's rule: "auto, rayquery, pipeline or software (auto: rayquery
// where supported, else pipeline, else software)".
std::string backendChoicesHelp();

}  // namespace ptbench::trace
