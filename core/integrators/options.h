// Integrator options: what each integrator takes under options.<integrator> in a config and
// through `render --option key=value`, their defaults, and their canonical form in reports.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/integrators/integrator.h"

namespace ptbench {

struct OptionInfo {
  std::string name;
  std::string accepted;  // what a value may be, for error messages and --help
  std::string description;
};

// The options `kind` takes; empty for integrators without options.
const std::vector<OptionInfo>& integratorOptions(IntegratorKind kind);

// Sets option `key` of `kind` in `settings` from a JSON value. Returns an empty string, or
// what is wrong in one sentence ("expected depth or pool").
std::string applyOption(IntegratorKind kind, const std::string& key, const nlohmann::json& value,
                        RenderSettings& settings);

// The options a run used, defaults resolved, for reports: {} for integrators without options.
nlohmann::json optionsJson(IntegratorKind kind, const RenderSettings& settings);

// The options of a backend (options.<backend> in configs; `render --option` takes them too):
// the software backend's software_bvh. Empty for backends without options.
const std::vector<OptionInfo>& backendOptions(Backend backend);

// As applyOption, for an option of `backend`.
std::string applyBackendOption(Backend backend, const std::string& key, const nlohmann::json& value,
                               RenderSettings& settings);

// The options a run used, its integrator's and its backend's (by name, as reports hold it), for
// reports and run keys.
nlohmann::json runOptionsJson(IntegratorKind kind, std::string_view backend, const RenderSettings& settings);

// Paths in flight: the configured pool size, or the schedule's default. The depth schedule's
// default is one path per pixel (at most 2^24 paths: ~2.7 GB of state); the pool schedule's is
// 2^20 paths, Laine et al.'s choice and enough to fill an H100/H200 (132 SMs x 2048 threads
// resident, a few times over). Never more than the frame's paths.
uint32_t wavefrontPoolSize(const RenderSettings& settings);
inline constexpr uint32_t maxPoolSize = 1u << 26;
inline constexpr uint32_t defaultDepthPoolCap = 1u << 24;
inline constexpr uint32_t defaultPoolSize = 1u << 20;

}  // namespace ptbench
