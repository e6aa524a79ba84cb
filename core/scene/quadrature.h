// Numerical integration for the known answers computed on the CPU: the furnaces' albedos
// (core/verify), the sheen layer's albedo table (core/scene/sheen.h) and the multiple-scattering
// compensation's (core/scene/multiple_scattering.h).
#pragma once
#include <functional>

namespace ptbench {

// The integral of f over [a, b], by Gauss-Legendre rules of 8 and 16 points on intervals
// halved until the two agree within `tolerance` (absolute, shared out among the intervals).
double integrate(const std::function<double(double)>& f, double a, double b, double tolerance);

// The integral of f over [a, b] by a 16-point Gauss-Legendre rule on `intervals` equal
// intervals: a fixed cost, for tables of many integrals of smooth functions.
double integrateFixed(const std::function<double(double)>& f, double a, double b, int intervals);

}  // namespace ptbench
