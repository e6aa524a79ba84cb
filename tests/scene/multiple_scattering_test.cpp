// The multiple-scattering compensation's tables (core/scene/multiple_scattering.h) against closed
// forms and the furnace's independent quadrature.
#include "core/scene/multiple_scattering.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/verify/directional_albedo.h"

namespace ptbench {
namespace {

// At alpha = 1 GGX's D is 1 / pi and, at normal view, G2 = 2 n.l / (1 + n.l): E = 1 - ln 2.
TEST(MultipleScattering, ConductorAlbedoHasItsClosedFormAtRoughnessOne) {
  EXPECT_NEAR(ggxConductorAlbedo(1, 1), 1 - std::log(2.0), 2e-3);
  EXPECT_NEAR(conductorAlbedoFromTable(1, 1), 1 - std::log(2.0), 2e-3);
}

// The table's E, between its grid points, against the furnace's quadrature over half vectors
// (core/verify), which shares no code with it: a white metal's single-scattering albedo.
TEST(MultipleScattering, ConductorTableMatchesTheFurnaceQuadrature) {
  gpu::Material metal{};
  metal.model = gpu::MATERIAL_MODEL_GLTF;
  for (auto& texture : metal.textures) texture.texture = gpu::NO_TEXTURE;
  metal.baseColorFactor = {1, 1, 1, 1};
  metal.specularColorFactor = {1, 1, 1};
  metal.metallicFactor = 1;
  metal.specularFactor = 1;
  metal.ior = 1.5f;
  for (float roughness : {0.2f, 0.35f, 0.5f, 0.8f}) {
    metal.roughnessFactor = roughness;
    for (double cosView : {0.13, 0.41, 0.77, 0.98})
      EXPECT_NEAR(conductorAlbedoFromTable(cosView, roughness), verify::directionalAlbedo(metal, cosView), 5e-3)
          << roughness << ", " << cosView;
  }
}

// White glass reflects and transmits at most what it receives, loses more the rougher it is, and
// light leaving it loses more than light entering (total internal reflection sends it back to the
// microsurface); the table between its grid points holds the direct integral.
TEST(MultipleScattering, GlassAlbedoIsAtMostOneAndFallsWithRoughness) {
  for (double cosView : {0.2, 0.6, 1.0}) {
    double previous = 1;
    for (double roughness : {0.1, 0.3, 0.5, 0.8}) {
      const double entering = ggxGlassAlbedo(cosView, roughness * roughness, 1.5);
      const double leaving = ggxGlassAlbedo(cosView, roughness * roughness, 1 / 1.5);
      EXPECT_LE(entering, 1 + 1e-6);
      EXPECT_LE(entering, previous + 1e-6);
      EXPECT_LT(leaving, entering + 1e-6);
      previous = entering;
    }
  }
  for (const bool entering : {true, false})
    for (double ior : {1.33, 1.5, 1.7})
      EXPECT_NEAR(glassAlbedoFromTable(0.53, 0.43, ior, entering),
                  ggxGlassAlbedo(0.53, 0.43 * 0.43, entering ? ior : 1 / ior), 5e-3)
          << ior << (entering ? " entering" : " leaving");
}

// The compensation's energy, F_ms (1 - E) / E times the lobe's E: a white metal's is 1 - E, so
// that it returns all it receives; a coloured one's is tinted below its Fresnel average.
TEST(MultipleScattering, WhiteMetalReturnsAllItReceives) {
  for (double roughness : {0.3, 0.5, 0.8, 1.0})
    for (double cosView : {0.1, 0.5, 0.9}) {
      const double albedo = conductorAlbedoFromTable(cosView, roughness);
      EXPECT_NEAR(albedo + conductorMultipleScattering(1, cosView, roughness) * albedo, 1, 1e-6);
      EXPECT_LT(conductorMultipleScattering(0.5, cosView, roughness),
                conductorMultipleScattering(1, cosView, roughness));
    }
  EXPECT_EQ(conductorMultipleScattering(0, 1, 0), 0) << "a smooth lobe loses nothing";
}

}  // namespace
}  // namespace ptbench
