#include "core/verify/directional_albedo.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/scene/multiple_scattering.h"
#include "core/scene/sheen.h"

namespace ptbench::verify {
namespace {

using std::numbers::pi;

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

double directionalAlbedo(const gpu::Material& material, double cosView, bool msCompensation) {
  for (const gpu::TextureRef& texture : material.textures)
    if (texture.texture != gpu::NO_TEXTURE) throw std::logic_error("directionalAlbedo needs an untextured material");
  if (material.transmissionFactor > 0 || material.model != gpu::MATERIAL_MODEL_GLTF)
    throw std::logic_error("directionalAlbedo integrates opaque glTF materials only");
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
  double metal = metallic == 0 ? 0.0 : specularAlbedo(baseColor, cosView, alpha);
  // The compensation adds F_ms (1 - E) / E to the rough metal's Fresnel term, E from the table
  // (multiple_scattering.cpp), so its albedo is that times the white lobe's.
  if (metallic > 0 && msCompensation && alpha >= deltaLobeAlpha)
    metal += conductorMultipleScattering(baseColor, cosView, roughness) * ggxSpecularAlbedo(1, cosView, alpha);
  double albedo = (1 - metallic) * dielectric + metallic * metal;

  const double sheen =
      greyValue("sheen colour", material.sheenColorFactor.x, material.sheenColorFactor.y, material.sheenColorFactor.z);
  if (sheen > 0) {
    // KHR_materials_sheen over a Lambertian: the lobe's own albedo, scaled down where it would
    // exceed 1, and the Lambertian scaled by min(1 - sheen E(v), 1 - sheen E(l)), E as the
    // shaders read it from the table.
    if (metallic != 0 || specular != 0)
      throw std::logic_error("directionalAlbedo integrates sheen over a Lambertian base only");
    const double sheenRoughness = material.sheenRoughnessFactor;
    const double tableView = sheenAlbedoFromTable(cosView, sheenRoughness);
    const double sheenView = sheen * std::min(tableView, 1.0);
    const auto scaledLambertian = [&](double cosLight) {
      return 2 * std::min(1 - sheenView, 1 - sheen * std::min(sheenAlbedoFromTable(cosLight, sheenRoughness), 1.0)) *
             cosLight;
    };
    albedo = sheen * charlieSheenAlbedo(cosView, sheenRoughness) / std::max(tableView, 1.0) +
             baseColor * integrate(scaledLambertian, 0, 1, albedoTolerance);
  }
  if (material.clearcoatFactor > 0) {
    // KHR_materials_clearcoat: the coat takes clearcoat F(0.04, n.v) and reflects it through
    // its GGX lobe (no Fresnel of its own); the rest reaches the material below.
    const double coat = material.clearcoatFactor * schlickFresnel(0.04, cosView);
    const double coatAlpha = double(material.clearcoatRoughnessFactor) * material.clearcoatRoughnessFactor;
    albedo = (1 - coat) * albedo + coat * specularAlbedo(1.0, cosView, coatAlpha);
  }
  return albedo;
}

AlbedoTable::AlbedoTable(const gpu::Material& material, bool msCompensation, uint32_t intervals)
    : values_(intervals + 1) {
  // At exactly grazing view the integrals degenerate; a hair above it the albedo is continuous.
  for (uint32_t i = 0; i <= intervals; ++i)
    values_[i] = directionalAlbedo(material, std::max(double(i) / intervals, 1e-6), msCompensation);
}

double AlbedoTable::operator()(double cosView) const {
  const double x = std::clamp(cosView, 0.0, 1.0) * double(values_.size() - 1);
  const size_t below = std::min(size_t(x), values_.size() - 2);
  const double fraction = x - double(below);
  return values_[below] * (1 - fraction) + values_[below + 1] * fraction;
}

}  // namespace ptbench::verify
