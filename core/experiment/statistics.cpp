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

namespace ptbench {

std::optional<RatioInterval> ratioInterval(std::span<const double> base, std::span<const double> next,
                                           double confidence) {
  // Every pairwise difference is held at once: a run of 10^5 frames (a noise target that was
  // never met) would need 10^10. Beyond maxSamples a side is its maxSamples evenly spaced order
  // statistics, fewer samples than it has, so a wider interval: never a sharper verdict.
  constexpr size_t maxSamples = 2000;
  auto logarithms = [](std::span<const double> values) -> std::optional<std::vector<double>> {
    std::vector<double> sorted(values.begin(), values.end());
    for (double value : sorted)
      if (!(value > 0) || !std::isfinite(value)) return std::nullopt;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> kept;
    if (sorted.size() <= maxSamples) {
      kept = sorted;
    } else {
      for (size_t i = 0; i < maxSamples; ++i) kept.push_back(sorted[i * (sorted.size() - 1) / (maxSamples - 1)]);
    }
    // Logarithms make a ratio a shift, which is what the U statistic's interval estimates.
    for (double& value : kept) value = std::log(value);
    return kept;
  };
  const auto logBase = logarithms(base), logNext = logarithms(next);
  if (!logBase || !logNext || logBase->empty() || logNext->empty()) return std::nullopt;
  const size_t m = logBase->size(), n = logNext->size();
  std::vector<double> differences;
  differences.reserve(m * n);
  for (double b : *logBase)
    for (double x : *logNext) differences.push_back(x - b);
  std::sort(differences.begin(), differences.end());
  // The two-sided normal quantile of `confidence`, by bisection on erfc (no table, no library).
  const double tail = 1 - confidence;
  double lowZ = 0, highZ = 10;
  for (int i = 0; i < 100; ++i) {
    const double z = 0.5 * (lowZ + highZ);
    (std::erfc(z / std::sqrt(2.0)) > tail ? lowZ : highZ) = z;
  }
  const double z = 0.5 * (lowZ + highZ);
  const double mn = double(m) * double(n);
  // The count of pairwise differences cut off each end (the large-sample critical value of U).
  const double cut = std::floor(mn / 2 - z * std::sqrt(mn * double(m + n + 1) / 12));
  if (cut < 0) return std::nullopt;
  const size_t k = size_t(cut);
  const size_t count = differences.size();
  const double median = count % 2 ? differences[count / 2]
                                  : 0.5 * (differences[count / 2 - 1] + differences[count / 2]);
  return RatioInterval{.estimate = std::exp(median),
                       .low = std::exp(differences[k]),
                       .high = std::exp(differences[count - 1 - k])};
}

}  // namespace ptbench
