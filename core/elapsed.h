// The one way a duration on the host is measured and reported: milliseconds of the steady clock
// since a moment taken with std::chrono::steady_clock::now().
#pragma once
#include <chrono>

namespace ptbench {

inline double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ptbench
