// Summary statistics over repeated measurements.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
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

}  // namespace ptbench
