// An image as integrators produce it, below everything that writes or compares images.
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

}  // namespace ptbench
