// Images as integrators produce them and displays show them, below everything that writes or
// compares images.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptbench {

// Linear radiance, rows top to bottom, RGB interleaved.
struct LinearImage {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<float> rgb;
};

// How many of an image's values are NaN or infinite: no error metric means anything on them
// (a NaN compares as no difference at all).
inline size_t nonFiniteValues(const LinearImage& image) {
  return size_t(std::count_if(image.rgb.begin(), image.rgb.end(), [](float v) { return !std::isfinite(v); }));
}

// Display-encoded colour: values of the sRGB transfer function in [0, 1], rows top to bottom,
// RGB interleaved (an 8-bit PNG's bytes over 255).
struct SrgbImage {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<float> rgb;
};

}  // namespace ptbench
