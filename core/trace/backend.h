// What ptbench knows about one trace backend, in one place (DESIGN.md, "Trace backends"): each
// backend is one line in core/backends.def and one unit in this folder, <name>.cpp, defining its
// descriptor. The context, the scene, kernels, options, `devices`, `verify` and the CLI's help
// read these instead of switching on the backend.
#pragma once
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "core/backend.h"

namespace ptbench::vk {
struct DeviceCapabilities;
struct DeviceSetup;
}  // namespace ptbench::vk

namespace ptbench::trace {

// What the scene must hold for the backend to trace it (GpuScene).
enum class SceneNeeds {
  AccelerationStructures,  // BLAS and TLAS, traversed by the driver
  SoftwareBvh,             // ptbench's own BVH, in the layout the run's option software_bvh names
};

// An option of the backend (options.<backend> in configs, `render --option key=value`), read into
// and printed from the TraceTarget that kernels are compiled for.
struct BackendOption {
  std::string_view name;
  std::string_view accepted;  // what a value may be, for error messages and --help
  std::string_view description;
  bool (*parse)(const nlohmann::json& value, TraceTarget& target);  // false: not one `accepted` names
  // The canonical form reports hold; null leaves an option at its default out of reports, so that
  // runs keep the keys (report.cpp, runKey) reports from before the option had.
  nlohmann::json (*print)(const TraceTarget& target);
};

// A backend's line in backends.def, which the shader build reads too: its descriptor takes these
// from here, so that C++ and the shaders cannot disagree.
struct BackendListing {
  Backend id;
  std::string_view name;
  std::string_view shaderDefine;
  bool rayGeneration;
};

inline constexpr BackendListing backendListings[] = {
#define PTBENCH_TRACE_BACKEND(enumerator, name, shaderDefine, stage) \
  {Backend::enumerator, #name, #shaderDefine, std::string_view(#stage) == "rgen"},
#include "core/backends.def"
};

constexpr const BackendListing& listing(Backend backend) {
  return backendListings[size_t(backend)];
}

struct BackendDescriptor {
  // These four are the backend's listing (listing(id)); the rest is the descriptor's own.
  Backend id;
  std::string_view name;  // in configs, on the command line, in reports and kernel names (<kernel>_<name>)
  // The define that selects the backend's traceClosest/traceAny (shaders/trace/trace_<name>.glsl,
  // through the #if chain the shader build generates) when a tracing kernel is compiled for it.
  std::string_view shaderDefine;
  // Whether its tracing kernels are ray-generation shaders in a ray-tracing pipeline (with the
  // hit and miss shaders of shaders/trace/) rather than compute shaders.
  bool rayGeneration = false;
  SceneNeeds scene = SceneNeeds::AccelerationStructures;

  // What the backend needs of a device beyond the baseline every backend needs
  // (DeviceCapabilities::meetsBaseline), what that is in words, and how the context enables it.
  bool (*supportedBy)(const vk::DeviceCapabilities& device) = nullptr;
  std::string_view needs;  // "" when the baseline is all it needs
  void (*enable)(vk::DeviceSetup& setup, const vk::DeviceCapabilities& device) = nullptr;

  std::span<const BackendOption> options;
};

// What tracing through the scene's acceleration structures needs of a device, for the enable
// of every backend whose scene needs them (SceneNeeds::AccelerationStructures).
void enableAccelerationStructures(vk::DeviceSetup& setup);

}  // namespace ptbench::trace
