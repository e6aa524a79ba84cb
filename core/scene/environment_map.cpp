#include "core/scene/environment_map.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numbers>

#include "core/errors.h"

namespace ptbench {

namespace {

// Reads the bytes of a Radiance file from its start, refusing to go past its end.
class RadianceReader {
 public:
  RadianceReader(std::string_view bytes, const std::string& name) : bytes_(bytes), name_(name) {}

  [[noreturn]] void fail(const std::string& reason) const { throw UserError(name_ + ": " + reason); }

  // One header line, without its newline; fails at the end of the file.
  std::string_view line() {
    const size_t end = bytes_.find('\n', at_);
    if (end == std::string_view::npos || end - at_ > 4096)
      fail("not a Radiance (.hdr, RGBE) image: its header ends before the image size line");
    const std::string_view text = bytes_.substr(at_, end - at_);
    at_ = end + 1;
    return text;
  }

  size_t left() const { return bytes_.size() - at_; }
  uint8_t byte() { return uint8_t(bytes_[at_++]); }  // after left() said there is one
  const uint8_t* take(size_t count) {
    const auto* data = reinterpret_cast<const uint8_t*>(bytes_.data() + at_);
    at_ += count;
    return data;
  }

 private:
  std::string_view bytes_;
  const std::string& name_;
  size_t at_ = 0;
};

// As stb_image and Radiance itself convert: mantissa x 2^(exponent - 136), 0 for exponent 0.
void rgbeToFloat(const uint8_t* rgbe, float* rgb) {
  if (rgbe[3] == 0) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const float scale = std::ldexp(1.0f, int(rgbe[3]) - (128 + 8));
  for (int c = 0; c < 3; ++c) rgb[c] = float(rgbe[c]) * scale;
}

}  // namespace

RadianceImage decodeRadiance(std::string_view bytes, const std::string& name) {
  RadianceReader in(bytes, name);
  const std::string notRadiance = "not a Radiance (.hdr, RGBE) image; convert the environment map to one";
  if (!bytes.starts_with("#?RADIANCE\n") && !bytes.starts_with("#?RGBE\n")) in.fail(notRadiance);
  (void)in.line();
  bool rgbe = false;
  for (std::string_view text; !(text = in.line()).empty();) {
    if (text.starts_with("FORMAT=")) {
      if (text != "FORMAT=32-bit_rle_rgbe")
        in.fail("a Radiance image of " + std::string(text) + "; ptbench reads FORMAT=32-bit_rle_rgbe only");
      rgbe = true;
    }
  }
  if (!rgbe) in.fail("a Radiance image without FORMAT=32-bit_rle_rgbe in its header; ptbench reads that format only");

  // "-Y H +X W": rows from the top, texels from the left, the only orientation in use.
  const std::string size(in.line());
  unsigned long long width = 0, height = 0;
  int consumed = 0;
  // Digits only: %llu alone takes "-8" and wraps it to 2^64 - 8.
  char heightDigits[21] = {}, widthDigits[21] = {};
  if (std::sscanf(size.c_str(), "-Y %20[0-9] +X %20[0-9]%n", heightDigits, widthDigits, &consumed) != 2 ||
      size_t(consumed) != size.size())
    in.fail("the image size line is \"" + size.substr(0, 64) + "\"; ptbench reads \"-Y HEIGHT +X WIDTH\" only");
  height = std::strtoull(heightDigits, nullptr, 10);
  width = std::strtoull(widthDigits, nullptr, 10);
  if (width < 2 || height < 1 || width > maxEnvironmentWidth || height > maxEnvironmentHeight ||
      width * height > maxEnvironmentTexels)
    in.fail("an environment map of " + std::to_string(width) + "x" + std::to_string(height) +
            " texels; ptbench takes 2x1 to " + std::to_string(maxEnvironmentWidth) + "x" +
            std::to_string(maxEnvironmentHeight) + " and at most " + std::to_string(maxEnvironmentTexels) +
            " texels (16384x8192)");
  // Every scanline takes 4 bytes a texel flat or, run-length encoded, at least a 4-byte header
  // and one 2-byte run per channel and 127 texels: a shorter file is refused before the pixels
  // are allocated.
  const uint64_t leastPerLine = std::min<uint64_t>(4 * width, 4 + 8 * ((width + 126) / 127));
  const std::string truncated = "cannot read the environment map: the file ends before its " + std::to_string(width) +
                                "x" + std::to_string(height) + " texels (truncated?)";
  if (in.left() < leastPerLine * height) in.fail(truncated);

  RadianceImage image{uint32_t(width), uint32_t(height), std::vector<float>(size_t(width * height) * 3)};
  std::vector<uint8_t> line(size_t(width) * 4);  // one scanline of RGBE, channel after channel
  bool flat = width < 8 || width > 32767;        // run-length encoding exists for these widths only
  for (uint32_t y = 0; y < image.height; ++y) {
    float* row = image.rgb.data() + size_t(y) * image.width * 3;
    // A run-length encoded scanline starts 2, 2, width (big-endian, below 32768). Like
    // stb_image, a first scanline that does not makes the whole image flat RGBE.
    if (!flat) {
      if (in.left() < 4) in.fail(truncated);
      const uint8_t* head = in.take(4);
      if (head[0] != 2 || head[1] != 2 || (head[2] & 0x80) != 0) {
        if (y != 0)
          in.fail("cannot read the environment map: scanline " + std::to_string(y) +
                  " is not run-length encoded as the first was (corrupt?)");
        flat = true;
        rgbeToFloat(head, row);
        const size_t rest = (size_t(width) * height - 1) * 4;
        if (in.left() < rest) in.fail(truncated);
        const uint8_t* texels = in.take(rest);
        for (size_t i = 1; i < size_t(width) * height; ++i) rgbeToFloat(texels + (i - 1) * 4, row + i * 3);
        break;
      }
      if ((uint32_t(head[2]) << 8 | head[3]) != width)
        in.fail("cannot read the environment map: scanline " + std::to_string(y) + " says it is " +
                std::to_string(uint32_t(head[2]) << 8 | head[3]) + " texels wide, not " + std::to_string(width) +
                " (corrupt?)");
      for (size_t channel = 0; channel < 4; ++channel) {
        uint8_t* out = line.data() + channel * width;
        for (size_t x = 0; x < width;) {
          if (in.left() < 2) in.fail(truncated);
          size_t count = in.byte();
          // A run (count > 128) repeats one byte count - 128 times; else count bytes follow.
          const bool run = count > 128;
          if (run) count -= 128;
          if (count == 0 || count > width - x)
            in.fail("cannot read the environment map: scanline " + std::to_string(y) + " has a run of " +
                    std::to_string(count) + " texels at texel " + std::to_string(x) + " of " + std::to_string(width) +
                    " (corrupt?)");
          if (run) {
            std::memset(out + x, in.byte(), count);
          } else {
            if (in.left() < count) in.fail(truncated);
            std::memcpy(out + x, in.take(count), count);
          }
          x += count;
        }
      }
      for (size_t x = 0; x < width; ++x) {
        const uint8_t texel[4] = {line[x], line[width + x], line[2 * width + x], line[3 * width + x]};
        rgbeToFloat(texel, row + x * 3);
      }
    } else {
      if (in.left() < width * 4) in.fail(truncated);
      const uint8_t* texels = in.take(width * 4);
      for (size_t x = 0; x < width; ++x) rgbeToFloat(texels + x * 4, row + x * 3);
    }
  }
  return image;
}

EnvironmentMap loadEnvironmentMap(const std::filesystem::path& file, float intensity, float rotationDegrees) {
  const std::string name = file.string();
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error) || error)
    throw UserError(name + ": no such environment map (a Radiance .hdr file)");
  const uint64_t size = std::filesystem::file_size(file, error);
  // The largest map flat: its texels and a header. Anything longer is not one ptbench reads.
  const uint64_t largest = maxEnvironmentTexels * 4 + 65536;
  if (error || size > largest)
    throw UserError(name + ": " + std::to_string(size) +
                    " bytes, more than the largest environment map ptbench reads (" +
                    std::to_string(maxEnvironmentTexels) + " texels)");
  std::string bytes(size, '\0');
  std::ifstream in(file, std::ios::binary);
  if (!in.read(bytes.data(), std::streamsize(size)))
    throw UserError(name + ": cannot read the environment map: " + std::strerror(errno));
  RadianceImage image = decodeRadiance(bytes, name);
  EnvironmentMap map{.source = name,
                     .width = image.width,
                     .height = image.height,
                     .rgb = std::move(image.rgb),
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

namespace {

// Texel (x, y) with x wrapped around the map and y clamped to its rows: the neighbours bilinear
// filtering reads.
const float* texelAt(const EnvironmentMap& map, int64_t x, int64_t y) {
  const int64_t width = map.width, height = map.height;
  const int64_t column = ((x % width) + width) % width;
  const int64_t row = std::clamp<int64_t>(y, 0, height - 1);
  return &map.rgb[size_t(row * width + column) * 3];
}

double luminance(const float* texel) {
  return 0.2126 * texel[0] + 0.7152 * texel[1] + 0.0722 * texel[2];
}

}  // namespace

Vec3 environmentRadiance(const EnvironmentMap& map, double u, double v) {
  const double x = u * map.width - 0.5, y = v * map.height - 0.5;
  const double x0 = std::floor(x), y0 = std::floor(y);
  const double fx = x - x0, fy = y - y0;
  Vec3 result{0, 0, 0};
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const float* texel = texelAt(map, int64_t(x0) + dx, int64_t(y0) + dy);
      const float weight = float((dx ? fx : 1 - fx) * (dy ? fy : 1 - fy));
      result = result + Vec3{texel[0], texel[1], texel[2]} * weight;
    }
  return result;
}

std::vector<float> environmentSamplingWeights(const EnvironmentMap& map) {
  // The integral over a texel of a tent between texel centres: 1/8, 3/4, 1/8 of the texels at
  // -1, 0, +1 (per axis; at the poles the clamped row counts for the missing one).
  constexpr std::array<double, 3> spread = {0.125, 0.75, 0.125};
  std::vector<float> weights(size_t{map.width} * map.height);
  for (uint32_t y = 0; y < map.height; ++y) {
    const double sinTheta = std::sin(std::numbers::pi * (y + 0.5) / map.height);
    for (uint32_t x = 0; x < map.width; ++x) {
      double filtered = 0;
      if (!map.uniformSampling)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            filtered += spread[dx + 1] * spread[dy + 1] * luminance(texelAt(map, int64_t{x} + dx, int64_t{y} + dy));
      // A texel's solid angle is proportional to sin theta: that alone samples the sphere uniformly.
      weights[size_t{y} * map.width + x] = float((map.uniformSampling ? 1.0 : filtered) * sinTheta);
    }
  }
  return weights;
}

}  // namespace ptbench
