// Summary statistics over repeated measurements, and the interval that compare judges by.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

namespace ptbench {

struct Summary {
  size_t count = 0;
  double median = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double stddev = 0;  // sample standard deviation (n - 1)
  double cv = 0;      // stddev / mean
};

Summary summarize(std::span<const double> values);
nlohmann::json toJson(const Summary& summary);

// How much slower `next`'s times are than `base`'s, as a ratio: the Hodges-Lehmann estimate (the
// median of every pairwise ratio next[j] / base[i]) and the distribution-free confidence interval
// around it that the Mann-Whitney U statistic gives (Hollander and Wolfe, "Nonparametric
// Statistical Methods", 4.3). Ranks, not means and deviations: one slow frame (a clock change, a
// compositor) moves neither bound far, and no normal distribution is assumed.
struct RatioInterval {
  double estimate = 1;
  double low = 1, high = 1;
};
// The samples must be positive. None where either side has too few samples for an interval at
// `confidence` (five a side at 99%).
std::optional<RatioInterval> ratioInterval(std::span<const double> base, std::span<const double> next,
                                           double confidence);

}  // namespace ptbench
