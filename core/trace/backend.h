// What ptbench knows about one trace backend, in one place (DESIGN.md, "Trace backends"): each
// backend is one unit in this folder defining its descriptor, listed once in registry.cpp. The
// context, the scene, kernels, options, `devices`, `verify` and the CLI's help read these
// instead of switching on the backend.
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
  nlohmann::json (*print)(const TraceTarget& target);               // the canonical form reports hold
};

struct BackendDescriptor {
  Backend id;
  std::string_view name;  // in configs, on the command line, in reports and kernel names (<kernel>_<name>)
  // The define that selects the backend's traceClosest/traceAny (shaders/trace/trace.glsl) when
  // shaders/CMakeLists.txt compiles a tracing kernel for it.
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
