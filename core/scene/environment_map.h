// Environment maps: equirectangular Radiance (.hdr) images of the light from every direction,
// and the distribution next-event estimation samples them by (docs/integrators.md, "Environment maps").
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/scene/math.h"

namespace ptbench {

// Texel (x, y) of a width x height map covers u in [x, x + 1) / width and v in [y, y + 1) /
// height; a direction's (u, v) is u = (phi + rotation) / 2 pi + 1/2 (wrapped), v = theta / pi,
// with theta from +Y (up) and phi = atan2(x, -z): the map's centre column looks down -Z, row 0
// is the zenith. shaders/common/environment.glsl maps directions the same way.
struct EnvironmentMap {
  std::string source;  // the file, for messages
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<float> rgb;     // linear radiance, rows from the zenith down
  float intensity = 1;        // scales every texel
  float rotationDegrees = 0;  // about +Y: the map turns by this angle (counter-clockwise seen from above)
  // Next-event estimation draws directions uniformly over the sphere instead of by the map's
  // luminance: the baseline importance sampling is measured against.
  bool uniformSampling = false;
};

// The largest environment map ptbench reads: 65536 texels wide, 32768 high, and 2^27 texels in
// all (a 16384x8192 map, 1.5 GiB of float radiance).
inline constexpr uint32_t maxEnvironmentWidth = 65536;
inline constexpr uint32_t maxEnvironmentHeight = 32768;
inline constexpr uint64_t maxEnvironmentTexels = uint64_t(1) << 27;

// A Radiance RGBE image (#?RADIANCE or #?RGBE, FORMAT=32-bit_rle_rgbe, "-Y H +X W"), decoded
// as linear float RGB rows from the top by ptbench's own reader, which never reads past
// `bytes` and takes time bounded by its size: a truncated or corrupt file, an unsupported
// orientation or a size beyond the limits above is a UserError "NAME: REASON".
struct RadianceImage {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<float> rgb;
};
RadianceImage decodeRadiance(std::string_view bytes, const std::string& name);

// Reads a Radiance RGBE file. A file that is missing, not Radiance, truncated, corrupt, beyond
// the size limits, or has texels that are not finite and non-negative is a UserError naming it.
EnvironmentMap loadEnvironmentMap(const std::filesystem::path& file, float intensity = 1, float rotationDegrees = 0);

// The direction of (u, v) in the map, and back; the C++ twins of environment.glsl's.
Vec3 environmentDirection(const EnvironmentMap& map, double u, double v);

// The map's radiance at (u, v), before its intensity: bilinear between the four texel centres
// around it, wrapping in u and clamped at the poles, so that a map seen directly is smooth. The
// C++ twin of environment.glsl's environmentRadianceAt.
Vec3 environmentRadiance(const EnvironmentMap& map, double u, double v);

// Texel weights for importance sampling: the integral of the filtered radiance's luminance over
// the texel (its own luminance 3/4 and each neighbour's 1/8 per axis, as bilinear filtering
// spreads them) x sin(theta) at the texel's centre, so that texels are chosen in proportion to
// the light they send (the map's rows near the poles cover less solid angle), and every texel
// the filtered radiance reaches can be chosen. Sampled through an alias table over all texels,
// then uniformly within the texel: a piecewise-constant 2D distribution, whose pdf is the one
// the shaders give.
std::vector<float> environmentSamplingWeights(const EnvironmentMap& map);

}  // namespace ptbench
