// Images as integrators produce them and displays show them, below everything that writes or
// compares images.
#pragma once
#include <cstdint>
#include <vector>

namespace ptbench {

// Linear radiance, rows top to bottom, RGB interleaved.
struct LinearImage {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<float> rgb;
};

// Display-encoded colour: values of the sRGB transfer function in [0, 1], rows top to bottom,
// RGB interleaved (an 8-bit PNG's bytes over 255).
struct SrgbImage {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<float> rgb;
};

}  // namespace ptbench
