// The directional albedo of ptbench's BSDF, integrated on the CPU in double precision: the
// known answer of the white-furnace checks (core/verify/analytic_cases.h), computed from the
// glTF 2.0 specification's formulas (Appendix B, with KHR_materials_specular) rather than
// from the shaders it checks.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/scene/quadrature.h"
#include "shared/render.h"
#include "shared/scene.h"

namespace ptbench::verify {

// Below gpu::SPECULAR_DELTA_ALPHA the specular lobe is a perfect mirror, a delta lobe, here as
// in shaders/common/bsdf.glsl.
inline constexpr double deltaLobeAlpha = gpu::SPECULAR_DELTA_ALPHA;

// GGX's normal distribution D(h) for the cosine between h and the normal.
double ggxD(double cosHalf, double alpha);

// The integral of f(v, l) (n . l) over the hemisphere of l, for a view direction at `cosView` to
// the normal: what a convex surface of this material returns under a uniform environment of
// radiance 1. The material must be grey (one value in every colour channel) and untextured.
// With msCompensation, the rough metal's multiple-scattering compensation (ms_compensation) is
// added as the shaders compute it, from core/scene/multiple_scattering.h's tables.
double directionalAlbedo(const gpu::Material& material, double cosView, bool msCompensation = false);

// directionalAlbedo at evenly spaced cosines, linearly interpolated between them.
class AlbedoTable {
 public:
  AlbedoTable(const gpu::Material& material, bool msCompensation, uint32_t intervals = 128);
  double operator()(double cosView) const;

 private:
  std::vector<double> values_;
};

}  // namespace ptbench::verify
