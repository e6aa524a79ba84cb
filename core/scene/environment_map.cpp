#include "core/scene/environment_map.h"

#include <stb_image.h>

#include <cmath>
#include <memory>
#include <numbers>

#include "core/errors.h"

namespace ptbench {

EnvironmentMap loadEnvironmentMap(const std::filesystem::path& file, float intensity, float rotationDegrees) {
  const std::string name = file.string();
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error) || error)
    throw UserError(name + ": no such environment map (a Radiance .hdr file)");
  if (!stbi_is_hdr(name.c_str()))
    throw UserError(name + ": not a Radiance (.hdr, RGBE) image; convert the environment map to one");
  int width = 0, height = 0, channels = 0;
  const std::unique_ptr<float, void (*)(void*)> pixels(stbi_loadf(name.c_str(), &width, &height, &channels, 3),
                                                       stbi_image_free);
  if (!pixels) throw UserError(name + ": cannot read the environment map: " + stbi_failure_reason());
  if (width < 2 || height < 1 || width > 65536 || height > 32768)
    throw UserError(name + ": an environment map of " + std::to_string(width) + "x" + std::to_string(height) +
                    " texels; ptbench takes 2x1 to 65536x32768");
  // stb_image reads a truncated file as black texels. Each scanline takes at least 4 bytes a
  // texel, or, run-length encoded (widths 8 to 32767), a 4-byte header and one 2-byte run per
  // channel and 127 texels: a file shorter than that lost its end.
  const uint64_t perLine = width >= 8 && width <= 32767 ? 4 + 8 * ((uint64_t(width) + 126) / 127) : 4 * uint64_t(width);
  if (std::filesystem::file_size(file, error) < perLine * uint64_t(height) || error)
    throw UserError(name + ": cannot read the environment map: the file is shorter than its " + std::to_string(width) +
                    "x" + std::to_string(height) + " texels need (truncated?)");
  EnvironmentMap map{.source = name,
                     .width = uint32_t(width),
                     .height = uint32_t(height),
                     .rgb = std::vector<float>(pixels.get(), pixels.get() + size_t(width) * height * 3),
                     .intensity = intensity,
                     .rotationDegrees = rotationDegrees};
  for (size_t i = 0; i < map.rgb.size(); ++i)
    if (!std::isfinite(map.rgb[i]) || map.rgb[i] < 0)
      throw UserError(name + ": texel " + std::to_string(i / 3) + " is not a finite, non-negative radiance");
  return map;
}

Vec3 environmentDirection(const EnvironmentMap& map, double u, double v) {
  const double pi = std::numbers::pi;
  const double phi = 2 * pi * (u - 0.5) - map.rotationDegrees * pi / 180;
  const double theta = pi * v;
  return {float(std::sin(theta) * std::sin(phi)), float(std::cos(theta)), float(-std::sin(theta) * std::cos(phi))};
}

std::vector<float> environmentSamplingWeights(const EnvironmentMap& map) {
  std::vector<float> weights(size_t{map.width} * map.height);
  for (uint32_t y = 0; y < map.height; ++y) {
    const double sinTheta = std::sin(std::numbers::pi * (y + 0.5) / map.height);
    for (uint32_t x = 0; x < map.width; ++x) {
      const float* texel = &map.rgb[(size_t{y} * map.width + x) * 3];
      const double luminance = 0.2126 * texel[0] + 0.7152 * texel[1] + 0.0722 * texel[2];
      // A texel's solid angle is proportional to sin theta: that alone samples the sphere uniformly.
      weights[size_t{y} * map.width + x] = float((map.uniformSampling ? 1.0 : luminance) * sinTheta);
    }
  }
  return weights;
}

}  // namespace ptbench
