#include "core/verify/directional_albedo.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace ptbench::verify {
namespace {

constexpr double pi = std::numbers::pi;

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

double schlickFresnel(double f0, double cosTheta) {
  const double m = std::clamp(1 - cosTheta, 0.0, 1.0);
  return f0 + (1 - f0) * m * m * m * m * m;
}

// V = G2 / (4 NdotL NdotV), Smith's height-correlated masking-shadowing for GGX.
double smithVisibility(double cosLight, double cosView, double alpha) {
  const double a2 = alpha * alpha;
  const double viewTerm = cosLight * std::sqrt(cosView * cosView * (1 - a2) + a2);
  const double lightTerm = cosView * std::sqrt(cosLight * cosLight * (1 - a2) + a2);
  return 0.5 / (viewTerm + lightTerm);
}

// Accuracy asked of each albedo: far below the checks' floor of 0.2%.
constexpr double albedoTolerance = 1e-5;

// ∫ F(f0, v.h) D V (n.l) dω_l. With dω_l = 4 (v.h) dω_h this is the mean of
// F V (n.l) 4 (v.h) / (n.h) over half vectors h distributed as D(h) (n.h), whose polar angle has
// tan²θ = α² u / (1 - u) for u uniform on [0, 1) and whose azimuth φ is uniform (and, v lying in
// the xz plane, symmetric about it). For each φ, n.l = 2 (v.h)(n.h) - n.v falls through zero at
// tan 2θ* = -n.v / (sin θv cos φ): the integral in u stops there exactly, because the integrand
// falls to zero over a width of about α in n.l, too steep for a rule that straddles it.
double ggxSpecularAlbedo(double f0, double cosView, double alpha) {
  const double sinView = std::sqrt(1 - cosView * cosView);
  const double a2 = alpha * alpha;
  const auto overAzimuth = [&](double t) {
    const double phi = pi * t;
    const double horizonHalfAngle = 0.5 * (pi - std::atan2(cosView, sinView * std::cos(phi)));
    const double tan2Horizon = std::tan(horizonHalfAngle) * std::tan(horizonHalfAngle);
    const double uHorizon = tan2Horizon / (a2 + tan2Horizon);
    const auto overPolar = [&](double u) {
      const double tan2 = a2 * u / (1 - u);
      const double cosHalf = 1 / std::sqrt(1 + tan2);
      const double sinHalf = std::sqrt(tan2) * cosHalf;
      const double cosViewHalf = sinView * sinHalf * std::cos(phi) + cosView * cosHalf;
      const double cosLight = 2 * cosViewHalf * cosHalf - cosView;
      if (cosViewHalf <= 0 || cosLight <= 0) return 0.0;
      return schlickFresnel(f0, cosViewHalf) * smithVisibility(cosLight, cosView, alpha) * cosLight * 4 * cosViewHalf /
             cosHalf;
    };
    return integrate(overPolar, 0, uHorizon, albedoTolerance);
  };
  return integrate(overAzimuth, 0, 1, albedoTolerance);
}

// ∫ (1 - specular F(f0, v.h)) / π (n.l) dω_l, the diffuse lobe under a specular layer of
// weight `specular`, over cosine-distributed l (sin²θ = u, φ uniform and symmetric as above);
// v.h = sqrt((1 + v.l) / 2) for the half vector of two unit vectors.
double diffuseAlbedo(double f0, double specular, double cosView) {
  const double sinView = std::sqrt(1 - cosView * cosView);
  const auto overAzimuth = [&](double t) {
    const double cosPhi = std::cos(pi * t);
    const auto overPolar = [&](double u) {
      const double cosViewLight = sinView * std::sqrt(u) * cosPhi + cosView * std::sqrt(1 - u);
      return 1 - specular * schlickFresnel(f0, std::sqrt(0.5 * (1 + cosViewLight)));
    };
    return integrate(overPolar, 0, 1, albedoTolerance);
  };
  return integrate(overAzimuth, 0, 1, albedoTolerance);
}

// The specular lobe's albedo: the delta lobe's Fresnel at the view angle, else GGX's integral.
double specularAlbedo(double f0, double cosView, double alpha) {
  return alpha < deltaLobeAlpha ? schlickFresnel(f0, cosView) : ggxSpecularAlbedo(f0, cosView, alpha);
}

double greyValue(const char* what, float x, float y, float z) {
  if (x != y || y != z)
    throw std::logic_error(std::string("directionalAlbedo needs a grey material; its ") + what + " is (" +
                           std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")");
  return x;
}

}  // namespace

double ggxD(double cosHalf, double alpha) {
  const double a2 = alpha * alpha;
  const double d = cosHalf * cosHalf * (a2 - 1) + 1;
  return a2 / (pi * d * d);
}

double integrate(const std::function<double(double)>& f, double a, double b, double tolerance) {
  return integrateAdaptively(f, a, b, tolerance, 0);
}

double directionalAlbedo(const gpu::Material& material, double cosView) {
  for (const gpu::TextureRef& texture : material.textures)
    if (texture.texture != gpu::NO_TEXTURE) throw std::logic_error("directionalAlbedo needs an untextured material");
  const double baseColor =
      greyValue("base colour", material.baseColorFactor.x, material.baseColorFactor.y, material.baseColorFactor.z);
  const double specularColor = greyValue("specular colour", material.specularColorFactor.x,
                                         material.specularColorFactor.y, material.specularColorFactor.z);
  const double metallic = std::clamp(double(material.metallicFactor), 0.0, 1.0);
  const double roughness = std::clamp(double(material.roughnessFactor), 0.0, 1.0);
  const double alpha = roughness * roughness;
  const double specular = material.specularFactor;
  const double r = (material.ior - 1.0) / (material.ior + 1.0);
  const double dielectricF0 = std::min(r * r * specularColor, 1.0);

  // A lobe of weight zero is not integrated.
  const double dielectric = metallic == 1
                                ? 0.0
                                : baseColor * diffuseAlbedo(dielectricF0, specular, cosView) +
                                      (specular > 0 ? specular * specularAlbedo(dielectricF0, cosView, alpha) : 0.0);
  const double metal = metallic == 0 ? 0.0 : specularAlbedo(baseColor, cosView, alpha);
  return (1 - metallic) * dielectric + metallic * metal;
}

AlbedoTable::AlbedoTable(const gpu::Material& material, uint32_t intervals) : values_(intervals + 1) {
  // At exactly grazing view the integrals degenerate; a hair above it the albedo is continuous.
  for (uint32_t i = 0; i <= intervals; ++i)
    values_[i] = directionalAlbedo(material, std::max(double(i) / intervals, 1e-6));
}

double AlbedoTable::operator()(double cosView) const {
  const double x = std::clamp(cosView, 0.0, 1.0) * double(values_.size() - 1);
  const size_t below = std::min(size_t(x), values_.size() - 2);
  const double fraction = x - double(below);
  return values_[below] * (1 - fraction) + values_[below + 1] * fraction;
}

}  // namespace ptbench::verify
