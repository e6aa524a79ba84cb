// The one check of a number a user gives, as a flag's value or a config key's: finite and
// within the range docs/cli.md, --help and docs/config.md document. NaN and the infinities lie
// in no range, and each range leaves out the values whose use would overflow (2^exposure
// beyond a float, a timeout beyond 64-bit nanoseconds).
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <string>

namespace ptbench {

struct NumberRange {
  double lowest = 0, highest = 0;
  bool lowestExcluded = false;  // "more than lowest" rather than "from lowest"

  bool contains(double value) const {
    return std::isfinite(value) && (lowestExcluded ? value > lowest : value >= lowest) && value <= highest;
  }
  // What is accepted, as messages and --help say it: "from -32 to 32", "more than 0, up to 1".
  std::string text() const {
    return lowestExcluded ? fmt::format("more than {:g}, up to {:g}", lowest, highest)
                          : fmt::format("from {:g} to {:g}", lowest, highest);
  }
};

// Ranges a flag and a config key share, so that the two stay in step.
constexpr NumberRange exposureRange{-32, 32};  // 2^32 x the largest valid sample stays far below float's limit
constexpr NumberRange fovRange{0.1, 179};
constexpr NumberRange lensLengthRange{0, 1e30};  // aperture, focus distance; scene units
constexpr NumberRange environmentIntensityRange{0, 1e30};
constexpr NumberRange environmentRotationRange{-3600, 3600};

}  // namespace ptbench
