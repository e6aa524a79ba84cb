#include "core/experiment/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ptbench {

Summary summarize(std::span<const double> values) {
  Summary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(n);
  if (n > 1) {
    double squares = 0;
    for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / double(n - 1));
  }
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
  return s;
}

nlohmann::json toJson(const Summary& s) {
  return {{"count", s.count}, {"median", s.median}, {"mean", s.mean}, {"min", s.min},
          {"max", s.max},     {"stddev", s.stddev}, {"cv", s.cv}};
}

}  // namespace ptbench
