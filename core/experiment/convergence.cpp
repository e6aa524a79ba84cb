#include "core/experiment/convergence.h"

#include <cmath>

#include "core/experiment/flip.h"

namespace ptbench {

std::optional<ConvergenceMetrics> convergenceMetrics(const LinearImage& image, const LinearImage& reference,
                                                     WithFlip withFlip) {
  if (image.width != reference.width || image.height != reference.height || image.rgb.size() != reference.rgb.size() ||
      image.rgb.empty())
    return std::nullopt;
  double squared = 0, relative = 0;
  for (size_t i = 0; i < image.rgb.size(); ++i) {
    const double r = reference.rgb[i];
    const double e = double(image.rgb[i]) - r;
    squared += e * e;
    relative += e * e / (r * r + 0.01);
  }
  const double n = double(image.rgb.size());
  ConvergenceMetrics metrics{.rmse = std::sqrt(squared / n), .relmse = relative / n};
  if (withFlip == WithFlip::Yes) metrics.flip = hdrFlip(image, reference)->mean;
  return metrics;
}

double secondsToReach(double relmse, double frameSeconds, double target) {
  return target > 0 ? frameSeconds * relmse / target : 0.0;
}

double efficiency(double relmse, double frameSeconds) {
  return relmse > 0 && frameSeconds > 0 ? 1.0 / (relmse * frameSeconds) : 0.0;
}

}  // namespace ptbench
