#include "core/verify/student_t.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace ptbench::test {
namespace {

TEST(StudentT, TailsMatchTheClosedForms) {
  // One degree of freedom is Cauchy's: P(|T| > t) = 1 - 2 atan(t) / pi; two: 1 - t / sqrt(t^2 + 2).
  for (double t : {0.5, 1.0, 3.0, 40.0}) {
    EXPECT_NEAR(verify::studentTwoSidedTail(t, 1), 1 - 2 * std::atan(t) / std::numbers::pi, 1e-12) << t;
    EXPECT_NEAR(verify::studentTwoSidedTail(t, 2), 1 - t / std::sqrt(t * t + 2), 1e-12) << t;
  }
}

TEST(StudentT, CriticalValuesWidenAsDegreesOfFreedomFall) {
  const double normalTail = std::erfc(5 / std::sqrt(2.0));
  // Many degrees of freedom: the normal's 5; one: Cauchy's quantile.
  EXPECT_NEAR(verify::studentCriticalValue(5, 1e7), 5, 1e-3);
  EXPECT_NEAR(verify::studentCriticalValue(5, 1), std::tan(std::numbers::pi / 2 * (1 - normalTail)), 1);
  double previous = verify::studentCriticalValue(5, 1);
  for (double dof : {2.0, 3.0, 10.0, 100.0, 1000.0}) {
    const double t = verify::studentCriticalValue(5, dof);
    EXPECT_LT(t, previous) << dof;
    EXPECT_GT(t, 5) << dof;
    EXPECT_NEAR(verify::studentTwoSidedTail(t, dof), normalTail, 1e-3 * normalTail) << dof;
    previous = t;
  }
}

}  // namespace
}  // namespace ptbench::test
