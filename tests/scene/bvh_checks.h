// What the software BVH's tests share: scenes by name, random rays, and agreement of two
// answers to the same closest-hit queries (the C++ reference, brute force, the GPU traversal).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/scene/builtin_scenes.h"
#include "core/scene/bvh/traversal.h"
#include "shipped_scenes.h"

namespace ptbench::test {

// The built-in scenes and every shipped one; their test names.
inline std::vector<std::string> bvhTestScenes() {
  // The 102,400 triangles of spheres?n=2&subdiv=160 make one mesh large enough for the build to
  // share its top nodes among threads (BinaryBvhOptions::parallelNodeThreshold).
  std::vector<std::string> scenes = {"builtin:cornell", "builtin:spheres?n=16&subdiv=24",
                                     "builtin:spheres?n=2&subdiv=160"};
  scenes.insert(scenes.end(), shippedScenes.begin(), shippedScenes.end());
  return scenes;
}

inline std::string sceneTestName(const ::testing::TestParamInfo<std::string>& scene) {
  // A glTF scene by its folder, a builtin with its parameters (two spheres scenes).
  std::string name = scene.param.substr(0, scene.param.find('/'));
  std::erase_if(name, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); });
  return name;
}

// A builtin scene, or a glTF scene by its path under scenes/.
inline SceneData loadTestScene(const std::string& spec) {
  return loadScene(isBuiltinScene(spec) ? spec
                                        : (std::filesystem::path(PTBENCH_SOURCE_DIR) / "scenes" / spec).string());
}

// Origins inside the bounds and in a margin of a quarter of their size around them, directions
// uniform over the sphere.
inline std::vector<Ray> randomRays(const Bounds& bounds, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0, 1);
  const Vec3 margin = (bounds.max - bounds.min) * 0.25f;
  const Vec3 lo = bounds.min - margin, size = (bounds.max - bounds.min) + margin * 2;
  std::vector<Ray> rays(count);
  for (Ray& ray : rays) {
    ray.origin = {lo.x + size.x * unit(rng), lo.y + size.y * unit(rng), lo.z + size.z * unit(rng)};
    const float z = 2 * unit(rng) - 1, phi = 2 * std::numbers::pi_v<float> * unit(rng);
    const float r = std::sqrt(std::max(0.0f, 1 - z * z));
    ray.direction = {r * std::cos(phi), r * std::sin(phi), z};
  }
  return rays;
}

inline std::string describe(const std::optional<SurfaceHit>& hit) {
  if (!hit) return "miss";
  return "t " + std::to_string(hit->t) + " instance " + std::to_string(hit->instance) + " geometry " +
         std::to_string(hit->geometry) + " primitive " + std::to_string(hit->primitive);
}

inline bool sameTriangle(const SurfaceHit& a, const SurfaceHit& b) {
  return a.instance == b.instance && a.geometry == b.geometry && a.primitive == b.primitive;
}

inline bool closeT(float a, float b) {
  return std::fabs(a - b) <= 1e-5f * std::max(std::fabs(a), std::fabs(b));
}

// Two answers to one closest-hit query agree when they name the same triangle at the same t and
// barycentrics. Different triangles at the same t are a tie (a shared edge, coplanar copies):
// either answer is right, and ties are counted, not failed.
struct ClosestAgreement {
  size_t rays = 0, hits = 0, ties = 0, mismatches = 0;
  std::string firstMismatch;

  void add(const std::optional<SurfaceHit>& expected, const std::optional<SurfaceHit>& actual) {
    ++rays;
    bool agree = expected.has_value() == actual.has_value();
    if (agree && expected) {
      ++hits;
      if (sameTriangle(*expected, *actual))
        agree = closeT(expected->t, actual->t) && std::fabs(expected->u - actual->u) <= 1e-5f &&
                std::fabs(expected->v - actual->v) <= 1e-5f;
      else if (closeT(expected->t, actual->t))
        ++ties;
      else
        agree = false;
    }
    if (!agree && mismatches++ == 0) firstMismatch = "expected " + describe(expected) + ", found " + describe(actual);
  }
};

}  // namespace ptbench::test
