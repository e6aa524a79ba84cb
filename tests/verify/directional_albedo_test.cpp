#include "core/verify/directional_albedo.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "core/scene/scene_data.h"

namespace ptbench::test {
namespace {

using std::numbers::pi;

gpu::Material whiteMaterial(float metallic, float roughness, float specular = 1) {
  gpu::Material m = defaultMaterial();
  m.metallicFactor = metallic;
  m.roughnessFactor = roughness;
  m.specularFactor = specular;
  return m;
}

double schlick(double f0, double cosTheta) {
  return f0 + (1 - f0) * std::pow(1 - cosTheta, 5);
}

// A view and a light direction in the frame where the normal is z, and their half vector.
struct Directions {
  std::array<double, 3> v, l, h;
  Directions(double cosView, double cosLight, double phi)
      : v{std::sqrt(1 - cosView * cosView), 0, cosView},
        l{std::sqrt(1 - cosLight * cosLight) * std::cos(phi), std::sqrt(1 - cosLight * cosLight) * std::sin(phi),
          cosLight} {
    for (int k = 0; k < 3; ++k) h[k] = v[k] + l[k];
    const double length = std::sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
    for (double& c : h) c /= length;
  }
  double cosViewHalf() const { return v[0] * h[0] + v[1] * h[1] + v[2] * h[2]; }
};

// The glTF 2.0 BRDF (Appendix B; KHR_materials_specular with its defaults), white, written
// out again from the specification: GGX D times the height-correlated Smith V.
double specularLobe(const Directions& d, double alpha) {
  const double a2 = alpha * alpha;
  const double denominator = d.h[2] * d.h[2] * (a2 - 1) + 1;
  const double distribution = a2 / (pi * denominator * denominator);
  const double visibility =
      0.5 / (d.l[2] * std::sqrt(d.v[2] * d.v[2] * (1 - a2) + a2) + d.v[2] * std::sqrt(d.l[2] * d.l[2] * (1 - a2) + a2));
  return distribution * visibility;
}
constexpr double dielectricF0 = 0.04;  // ((1.5 - 1) / (1.5 + 1))^2
double diffuseUnderSpecular(const Directions& d) {
  return (1 - schlick(dielectricF0, d.cosViewHalf())) / pi;
}
double whiteDielectric(const Directions& d, double alpha) {
  return diffuseUnderSpecular(d) + schlick(dielectricF0, d.cosViewHalf()) * specularLobe(d, alpha);
}
double whiteMetal(const Directions& d, double alpha) {
  return schlick(1, d.cosViewHalf()) * specularLobe(d, alpha);
}

// The albedo straight from its definition, ∫ f(v, l) (n.l) dω_l, over l in polar coordinates:
// no change of variables, no cut at the horizon; only for lobes broad enough to resolve so.
double albedoByBruteForce(const std::function<double(const Directions&)>& brdf, double cosView) {
  return integrate(
      [&](double phi) {
        return integrate([&](double cosLight) { return brdf(Directions(cosView, cosLight, phi)) * cosLight; }, 0, 1,
                         1e-8);
      },
      0, 2 * pi, 1e-7);
}

TEST(DirectionalAlbedo, GgxDistributionCoversTheProjectedAreaOnce) {
  // ∫ D(h) (n.h) dω_h = 1: integrated in the polar angle, not through GGX's own sampling map.
  for (double alpha : {1.0, 0.5, 0.25, 0.1, 0.01, 0.001}) {
    const double area = integrate(
        [&](double theta) { return verify::ggxD(std::cos(theta), alpha) * std::cos(theta) * std::sin(theta) * 2 * pi; },
        0, pi / 2, 1e-9);
    EXPECT_NEAR(area, 1, 1e-7) << "alpha " << alpha;
  }
}

TEST(DirectionalAlbedo, LambertianWhiteIsOne) {
  const gpu::Material lambertian = whiteMaterial(0, 1, 0);  // no specular layer
  for (double cosView : {1.0, 0.7, 0.3, 0.05}) EXPECT_NEAR(verify::directionalAlbedo(lambertian, cosView), 1, 1e-7);
}

TEST(DirectionalAlbedo, WhiteMirrorIsOne) {
  const gpu::Material mirror = whiteMaterial(1, 0);
  for (double cosView : {1.0, 0.7, 0.3, 0.05}) EXPECT_NEAR(verify::directionalAlbedo(mirror, cosView), 1, 1e-12);
}

// A smooth dielectric's specular lobe is a delta: its albedo is Fresnel at the view angle; the
// diffuse lobe under it keeps what Fresnel at the half vector leaves.
TEST(DirectionalAlbedo, SmoothDielectricIsFresnelPlusTheDiffuseRemainder) {
  const gpu::Material smooth = whiteMaterial(0, 0);
  for (double cosView : {1.0, 0.7, 0.3, 0.05})
    EXPECT_NEAR(verify::directionalAlbedo(smooth, cosView),
                schlick(dielectricF0, cosView) + albedoByBruteForce(diffuseUnderSpecular, cosView), 1e-5)
        << "cos " << cosView;
}

// The quadrature (half vectors distributed as D, cut exactly at the horizon) against the
// definition integrated by brute force.
TEST(DirectionalAlbedo, RoughLobesAgreeWithTheirDefinition) {
  for (float roughness : {1.0f, 0.7f, 0.5f})
    for (double cosView : {1.0, 0.8, 0.5, 0.2}) {
      const double alpha = double(roughness) * roughness;
      const std::string what = "roughness " + std::to_string(roughness) + ", cos " + std::to_string(cosView);
      EXPECT_NEAR(verify::directionalAlbedo(whiteMaterial(0, roughness), cosView),
                  albedoByBruteForce([&](const Directions& d) { return whiteDielectric(d, alpha); }, cosView), 1e-5)
          << "dielectric, " << what;
      EXPECT_NEAR(verify::directionalAlbedo(whiteMaterial(1, roughness), cosView),
                  albedoByBruteForce([&](const Directions& d) { return whiteMetal(d, alpha); }, cosView), 1e-5)
          << "metal, " << what;
    }
}

// A white metal loses energy only to single scattering's missing interreflections: nothing at
// all as it becomes a mirror, more as it roughens; never more than it receives.
TEST(DirectionalAlbedo, WhiteMetalNeverExceedsOneAndTendsToItWhenSmooth) {
  double previous = 1;
  for (float roughness : {0.04f, 0.1f, 0.3f, 0.5f, 1.0f}) {
    const double albedo = verify::directionalAlbedo(whiteMaterial(1, roughness), 1);
    EXPECT_LE(albedo, previous) << roughness;
    previous = albedo;
  }
  EXPECT_GT(verify::directionalAlbedo(whiteMaterial(1, 0.04f), 1), 1 - 1e-5);
  EXPECT_LT(verify::directionalAlbedo(whiteMaterial(1, 1), 1), 0.5);
}

TEST(DirectionalAlbedo, TableInterpolatesWithinTheChecksFloor) {
  const gpu::Material rough = whiteMaterial(1, 0.5f);
  const verify::AlbedoTable table(rough, false);
  for (double cosView = 0.05; cosView < 1; cosView += 0.0437)
    EXPECT_NEAR(table(cosView), verify::directionalAlbedo(rough, cosView), 1e-4) << cosView;
}

TEST(DirectionalAlbedo, ColouredOrTexturedMaterialsAreRefused) {
  gpu::Material coloured = whiteMaterial(0, 0.5f);
  coloured.baseColorFactor = {1, 0.5f, 0.5f, 1};
  EXPECT_THROW(verify::directionalAlbedo(coloured, 1), std::logic_error);
  gpu::Material textured = whiteMaterial(0, 0.5f);
  textured.textures[0].texture = 0;
  EXPECT_THROW(verify::directionalAlbedo(textured, 1), std::logic_error);
}

}  // namespace
}  // namespace ptbench::test
