// The scenes built for ReSTIR: builtin:manylights (many small lights, direct light the hard
// part) and builtin:room (one light outside a window, indirect light the hard part).
#include "core/scene/builtin_scenes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <utility>

#include "core/errors.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/scene/bvh/traversal.h"

namespace ptbench::test {
namespace {

std::string refusal(const std::string& spec) {
  try {
    loadScene(spec);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(accepted)";
}

// Corner k of an emitter, in world space (the built-in scenes' instances are untransformed).
Vec3 emitterCorner(const SceneData& scene, const gpu::EmissiveTriangle& emitter, int k) {
  const gpu::Geometry& geometry = scene.geometries[emitter.geometry];
  const uint32_t index = scene.indices[geometry.firstIndex + 3 * emitter.triangle + uint32_t(k)];
  return toVec3(scene.vertices[geometry.firstVertex + index].position);
}

TEST(ManyLights, HasOneEmissiveTrianglePerLightAtTheSameTotalPower) {
  for (uint32_t n : {1u, 7u, 1000u, maxManyLights}) {
    const std::string spec = "builtin:manylights?n=" + std::to_string(n);
    const SceneData scene = loadScene(spec);
    EXPECT_EQ(scene.emissiveTriangles.size(), n) << spec;
    EXPECT_NEAR(scene.totalEmissivePower, manyLightsTotalPower, 1e-4 * manyLightsTotalPower) << spec;
    EXPECT_TRUE(scene.punctualLights.empty()) << spec;
    EXPECT_FALSE(scene.environmentMap.has_value()) << spec;
    EXPECT_TRUE(scene.sceneCamera.has_value()) << spec;
    double pdfs = 0;
    for (const gpu::AliasEntry& entry : scene.lightAliasTable) {
      EXPECT_GT(entry.pdf, 0.0f) << spec << ": every light can be chosen";
      pdfs += entry.pdf;
    }
    EXPECT_NEAR(pdfs, 1, 1e-3) << spec;
  }
  EXPECT_EQ(loadScene("builtin:manylights").emissiveTriangles.size(), defaultManyLights);
}

TEST(ManyLights, LightsVaryInColourAndPowerAndStayInTheYard) {
  const SceneData scene = loadScene("builtin:manylights?n=1000");
  std::set<std::pair<float, float>> colours;
  for (const gpu::Material& m : scene.materials)
    if (luminance(toVec3(m.emissiveFactor)) > 0)
      colours.insert({m.emissiveFactor.x / m.emissiveFactor.y, m.emissiveFactor.z / m.emissiveFactor.y});
  EXPECT_GE(colours.size(), 8u) << "hues";
  float dimmest = INFINITY, brightest = 0;
  for (const gpu::EmissiveTriangle& emitter : scene.emissiveTriangles) {
    dimmest = std::min(dimmest, emitter.power);
    brightest = std::max(brightest, emitter.power);
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = emitterCorner(scene, emitter, k);
      EXPECT_GT(p.y, 0) << "above the floor";
      EXPECT_LT(std::fabs(p.x), 15) << "over the floor";
      EXPECT_GT(p.z, -10) << "before the back wall";
    }
  }
  EXPECT_GT(brightest, 20 * dimmest);
}

TEST(ManyLights, IsTheSameSceneEveryTime) {
  const SceneData a = loadScene("builtin:manylights?n=300"), b = loadScene("builtin:manylights?n=300");
  ASSERT_EQ(a.vertices.size(), b.vertices.size());
  for (size_t i = 0; i < a.vertices.size(); ++i)
    ASSERT_EQ(toVec3(a.vertices[i].position), toVec3(b.vertices[i].position)) << "vertex " << i;
}

TEST(ManyLights, BadLightCountsAreRefusedByName) {
  const std::string range = "n must be an integer from 1 to " + std::to_string(maxManyLights);
  for (const char* spec : {"builtin:manylights?n=0", "builtin:manylights?n=65537", "builtin:manylights?n=ten",
                           "builtin:manylights?n=-4", "builtin:manylights?n=", "builtin:manylights?n=2.5"})
    EXPECT_NE(refusal(spec).find(std::string(spec) + ": " + range), std::string::npos) << refusal(spec);
  EXPECT_NE(refusal("builtin:manylights?lights=5").find("unknown parameter 'lights'"), std::string::npos);
  EXPECT_NE(refusal("builtin:room?n=4").find("builtin:room?n=4: unknown parameter 'n'"), std::string::npos);
}

TEST(BuiltinScenes, UnknownNameListsEveryBuiltinScene) {
  const std::string message = refusal("builtin:teapot");
  for (const char* name :
       {"builtin:cornell", "builtin:furnace", "builtin:spheres", "builtin:manylights?n=N", "builtin:room"})
    EXPECT_NE(message.find(name), std::string::npos) << name << " in: " << message;
}

constexpr Vec3 roomMin{-3, 0, -4}, roomMax{3, 3, 4};
bool insideRoom(Vec3 p) {
  return p.x > roomMin.x && p.x < roomMax.x && p.y > roomMin.y && p.y < roomMax.y && p.z > roomMin.z && p.z < roomMax.z;
}

TEST(Room, ItsOnlyLightIsOutsideAndTheCameraInside) {
  const SceneData scene = loadScene("builtin:room");
  EXPECT_EQ(scene.emissiveTriangles.size(), 2u) << "one quad";
  EXPECT_TRUE(scene.punctualLights.empty());
  EXPECT_FALSE(scene.environmentMap.has_value());
  for (const gpu::EmissiveTriangle& emitter : scene.emissiveTriangles)
    for (int k = 0; k < 3; ++k) EXPECT_GT(emitterCorner(scene, emitter, k).z, roomMax.z + 1);
  ASSERT_TRUE(scene.sceneCamera.has_value());
  EXPECT_TRUE(insideRoom(scene.sceneCamera->position));
}

// Rays from the camera in every direction: those that leave the room leave through the
// window, in the wall at z = 4, and some do.
TEST(Room, IsClosedButForItsWindow) {
  const SceneData scene = loadScene("builtin:room");
  const SoftwareBvh bvh = buildSoftwareBvh(scene);
  const Vec3 origin = scene.sceneCamera->position;
  constexpr int rays = 20000;
  int escaped = 0;
  for (int i = 0; i < rays; ++i) {
    // A Fibonacci sphere: directions spread evenly.
    const float z = 1 - 2 * (float(i) + 0.5f) / rays, r = std::sqrt(1 - z * z);
    const float phi = float(i) * std::numbers::pi_v<float> * (3 - std::sqrt(5.0f));
    const Vec3 direction{r * std::cos(phi), r * std::sin(phi), z};
    const auto hit = traceClosest(bvh.cwbvh, Ray{.origin = origin, .direction = direction});
    // The sun, outside, counts as escaping.
    if (hit && insideRoom(origin + direction * (0.999f * hit->t))) continue;
    ++escaped;
    ASSERT_GT(direction.z, 0) << "direction " << i << " escaped away from the window wall";
    const Vec3 crossing = origin + direction * ((roomMax.z - origin.z) / direction.z);
    EXPECT_TRUE(std::fabs(crossing.x) < 1.01f && crossing.y > 1.49f && crossing.y < 2.61f)
        << "direction " << i << " left through the wall at " << crossing.x << ", " << crossing.y;
  }
  EXPECT_GT(escaped, 0) << "the window is open";
  EXPECT_LT(escaped, rays / 10);
}

}  // namespace
}  // namespace ptbench::test
