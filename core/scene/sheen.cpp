#include "core/scene/sheen.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/scene/quadrature.h"
#include "shared/render.h"

namespace ptbench {
namespace {
using std::numbers::pi;
}  // namespace

double charlieSheenCosine(double cosView, double cosLight, double cosHalf, double roughness) {
  if (cosView <= 0 || cosLight <= 0) return 0;
  const double r = std::max(roughness, double(gpu::SHEEN_MIN_ROUGHNESS));
  const double alpha = r * r;
  const double sin2Half = std::max(1 - cosHalf * cosHalf, 0.0);
  const double distribution = (2 + 1 / alpha) * std::pow(sin2Half, 0.5 / alpha) / (2 * pi);
  const double visibility = 1 / (4 * (cosLight + cosView - cosLight * cosView));
  return distribution * visibility * cosLight;
}

// Over lights at polar cosine c and azimuth phi from the view's plane (symmetric about it):
// the half vector's cosine is (cos v + c) / |v + l|.
double charlieSheenAlbedo(double cosView, double roughness) {
  const double sinView = std::sqrt(std::max(1 - cosView * cosView, 0.0));
  const auto overAzimuth = [&](double t) {
    const double cosPhi = std::cos(pi * t);
    const auto overPolar = [&](double cosLight) {
      const double sinLight = std::sqrt(std::max(1 - cosLight * cosLight, 0.0));
      const double cosViewLight = sinView * sinLight * cosPhi + cosView * cosLight;
      const double length = std::sqrt(std::max(2 + 2 * cosViewLight, 1e-300));
      return charlieSheenCosine(cosView, cosLight, (cosView + cosLight) / length, roughness);
    };
    return integrate(overPolar, 0, 1, 1e-6);
  };
  // dω = d(cos θ) dφ over φ in [0, 2π): twice the half-plane, which t covers as φ = π t.
  return 2 * pi * integrate(overAzimuth, 0, 1, 1e-6);
}

const std::vector<float>& sheenAlbedoTable() {
  static const std::vector<float> table = [] {
    const uint32_t n = gpu::SHEEN_ALBEDO_SIZE;
    std::vector<float> values(size_t{n} * n);
    for (uint32_t row = 0; row < n; ++row)
      for (uint32_t column = 0; column < n; ++column)
        values[size_t{row} * n + column] =
            float(charlieSheenAlbedo(std::max(double(row) / (n - 1), 1e-4), double(column) / (n - 1)));
    return values;
  }();
  return table;
}

double sheenAlbedoFromTable(double cosTheta, double roughness) {
  const uint32_t n = gpu::SHEEN_ALBEDO_SIZE;
  const std::vector<float>& table = sheenAlbedoTable();
  const double x = std::clamp(cosTheta, 0.0, 1.0) * (n - 1), y = std::clamp(roughness, 0.0, 1.0) * (n - 1);
  const uint32_t row = std::min(uint32_t(x), n - 2), column = std::min(uint32_t(y), n - 2);
  const double fx = x - row, fy = y - column;
  const auto at = [&](uint32_t r, uint32_t c) { return double(table[size_t{r} * n + c]); };
  const double below = at(row, column) * (1 - fy) + at(row, column + 1) * fy;
  const double above = at(row + 1, column) * (1 - fy) + at(row + 1, column + 1) * fy;
  return below * (1 - fx) + above * fx;
}

}  // namespace ptbench
