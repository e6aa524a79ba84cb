// Options beside the integrators' own (those are their registry entries, registry.h): a backend's
// (its descriptor's, core/trace/) as a run's settings take them, a run's options as reports hold
// them, and the wavefront's default pool.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/integrators/integrator.h"
#include "core/vk/context.h"

namespace ptbench {

struct OptionInfo {
  std::string name;
  std::string accepted;  // what a value may be, for error messages and --help
  std::string description;
};

// Sets option `key` of `backend` (options.<backend>, `render --option`) in `settings` from a JSON
// value. Returns an empty string, or what is wrong in one sentence ("expected cwbvh or bvh2").
std::string applyBackendOption(Backend backend, const std::string& key, const nlohmann::json& value,
                               RenderSettings& settings);

// The options a run used, its integrator's and its backend's (by name, as reports hold it), for
// reports and run keys.
nlohmann::json runOptionsJson(IntegratorKind kind, std::string_view backend, const RenderSettings& settings);

// Paths in flight when options.wavefront.pool_size is 0 (the default), for both schedules, and
// why. Enough to keep the device busy through the deep bounces, where few of a pass's paths
// live: the device's resident threads (SMs x 2048 on NVIDIA; an estimate elsewhere) times
// poolDeepBounceFactor, which a pool sweep on an H200 chose: within 2% of the sweep's best point
// on every shipped scene (docs/DESIGN.md, "The wavefront's pool"). Then bounded by
// poolMemoryBudget, by the frame's paths, and evened out so that the depth schedule's passes are
// equal.
struct PoolChoice {
  uint32_t paths = 0;
  std::string reason;
};
PoolChoice defaultWavefrontPool(const RenderSettings& settings, const vk::DeviceCapabilities& device);
// The pool a frame of `settings` uses: the configured size (at most the frame's paths), or the default.
PoolChoice wavefrontPool(const RenderSettings& settings, const vk::DeviceCapabilities& device);
// As wavefrontPool, and writes the size into settings.wavefront.pool_size, so that reports, run
// keys and the frames themselves all carry the size the default came to.
PoolChoice resolveWavefrontPool(RenderSettings& settings, const vk::DeviceCapabilities& device);
// The (pixel, sample) paths a frame of `settings` starts.
inline uint64_t framePaths(const RenderSettings& settings) {
  return uint64_t{settings.width} * settings.height * settings.samplesPerPixel;
}
inline constexpr uint32_t maxPoolSize = 1u << 26;
inline constexpr uint32_t poolDeepBounceFactor = 128;
inline constexpr uint32_t residentThreadsPerNvidiaSm = 2048;
// Where a device does not say how many threads it keeps resident (not NVIDIA): a large GPU's,
// or for a CPU implementation (lavapipe) a few cores' worth, whose memory is the host's.
inline constexpr uint32_t residentThreadsUnknownDevice = 1u << 18;
inline constexpr uint32_t residentThreadsCpuDevice = 1u << 14;
// The default pool's path state may take this much device memory, or a quarter of it if less.
inline constexpr uint64_t poolMemoryBudget = uint64_t{8} << 30;

}  // namespace ptbench
