// Student's t distribution: how many estimated standard errors a mean may stray when its
// variance is itself estimated from few samples. verify's tolerances widen with it as the
// samples fall.
#pragma once
#include <cstdint>

namespace ptbench::verify {

// P(|T| > t) for T with the given degrees of freedom (at least 1).
double studentTwoSidedTail(double t, double degreesOfFreedom);

// The t whose two-sided tail is probability: as many standard errors as a normal mean's
// normalStandardErrors when the degrees of freedom are many, more when they are few.
double studentCriticalValue(double normalStandardErrors, double degreesOfFreedom);

}  // namespace ptbench::verify
