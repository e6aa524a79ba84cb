#include "core/verify/student_t.h"

#include <cmath>
#include <limits>

namespace ptbench::verify {
namespace {

// The continued fraction of the regularized incomplete beta function, by Lentz's method
// (Numerical Recipes, betacf): it converges fast for x < (a + 1) / (a + b + 2).
double incompleteBetaFraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double numerator = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    for (int step = 0; step < 2; ++step) {
      d = 1 + numerator * d;
      if (std::fabs(d) < tiny) d = tiny;
      c = 1 + numerator / c;
      if (std::fabs(c) < tiny) c = tiny;
      d = 1 / d;
      const double delta = d * c;
      h *= delta;
      if (step == 1 && std::fabs(delta - 1) < 1e-15) return h;
      numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    }
  }
  return h;
}

// I_x(a, b).
double regularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * incompleteBetaFraction(a, b, x) / a;
  return 1 - front * incompleteBetaFraction(b, a, 1 - x) / b;
}

}  // namespace

double studentTwoSidedTail(double t, double degreesOfFreedom) {
  const double v = degreesOfFreedom;
  return regularizedIncompleteBeta(v / 2, 0.5, v / (v + t * t));
}

double studentCriticalValue(double normalStandardErrors, double degreesOfFreedom) {
  const double probability = std::erfc(normalStandardErrors / std::sqrt(2.0));
  // The tail falls as t grows: bisect, on a logarithmic scale since one degree of freedom
  // (a Cauchy distribution) puts the answer near 1e6.
  double low = normalStandardErrors, high = normalStandardErrors;
  while (studentTwoSidedTail(high, degreesOfFreedom) > probability && high < 1e15) high *= 2;
  for (int i = 0; i < 100 && high - low > 1e-9 * high; ++i) {
    const double middle = std::sqrt(low * high);
    (studentTwoSidedTail(middle, degreesOfFreedom) > probability ? low : high) = middle;
  }
  return high;
}

}  // namespace ptbench::verify
