#include "core/scene/quadrature.h"

#include <array>
#include <cmath>
#include <numbers>

namespace ptbench {
namespace {

using std::numbers::pi;

// Nodes and weights of an n-point Gauss-Legendre rule on [0, 1], by Newton's method on the
// Legendre polynomial from the Chebyshev-like first guesses (Numerical Recipes' gauleg).
template <int n>
struct GaussLegendre {
  std::array<double, n> nodes{}, weights{};
  GaussLegendre() {
    for (int i = 0; i < n; ++i) {
      double x = std::cos(pi * (i + 0.75) / (n + 0.5));
      double derivative = 0;
      for (int iteration = 0; iteration < 100; ++iteration) {
        double p = 1, previous = 0;
        for (int k = 1; k <= n; ++k) {
          const double older = previous;
          previous = p;
          p = ((2 * k - 1) * x * previous - (k - 1) * older) / k;
        }
        derivative = n * (x * p - previous) / (x * x - 1);
        const double step = p / derivative;
        x -= step;
        if (std::fabs(step) < 1e-16) break;
      }
      nodes[i] = 0.5 * (1 - x);
      weights[i] = 1 / ((1 - x * x) * derivative * derivative);
    }
  }
  double apply(const std::function<double(double)>& f, double a, double b) const {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += weights[i] * f(a + (b - a) * nodes[i]);
    return sum * (b - a);
  }
};

double integrateAdaptively(const std::function<double(double)>& f, double a, double b, double tolerance, int depth) {
  static const GaussLegendre<8> coarse;
  static const GaussLegendre<16> fine;
  const double estimate = fine.apply(f, a, b);
  // Below a relative 1e-14 the two rules differ by rounding alone; 30 halvings resolve features
  // a billionth of the interval wide.
  const double difference = std::fabs(estimate - coarse.apply(f, a, b));
  if (depth >= 30 || difference <= tolerance || difference <= 1e-14 * std::fabs(estimate)) return estimate;
  const double middle = 0.5 * (a + b);
  return integrateAdaptively(f, a, middle, 0.5 * tolerance, depth + 1) +
         integrateAdaptively(f, middle, b, 0.5 * tolerance, depth + 1);
}

}  // namespace

double integrate(const std::function<double(double)>& f, double a, double b, double tolerance) {
  return integrateAdaptively(f, a, b, tolerance, 0);
}

double integrateFixed(const std::function<double(double)>& f, double a, double b, int intervals) {
  static const GaussLegendre<16> rule;
  double sum = 0;
  for (int i = 0; i < intervals; ++i)
    sum += rule.apply(f, a + (b - a) * i / intervals, a + (b - a) * (i + 1) / intervals);
  return sum;
}

}  // namespace ptbench
