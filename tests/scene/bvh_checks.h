// What the software BVH's tests share: scenes by name, random rays, agreement of two answers to
// the same closest-hit queries (the C++ reference, brute force, the GPU traversal), and the
// checks every builder's tree must pass (bvh_test.cpp: the CPU's; gpu_binary_bvh_test.cpp: the
// GPU's).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/scene/builtin_scenes.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/scene/bvh/traversal.h"
#include "core/scene/math.h"
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

// The same layout byte for byte (builds that must be deterministic).
template <typename Node>
void expectSameArrays(const SoftwareBvhLayout<Node>& a, const SoftwareBvhLayout<Node>& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  ASSERT_EQ(a.triangles.size(), b.triangles.size());
  ASSERT_EQ(a.instances.size(), b.instances.size());
  EXPECT_EQ(std::memcmp(a.nodes.data(), b.nodes.data(), a.nodes.size() * sizeof(Node)), 0);
  EXPECT_EQ(std::memcmp(a.triangles.data(), b.triangles.data(), a.triangles.size() * sizeof(gpu::BvhTriangle)), 0);
  EXPECT_EQ(std::memcmp(a.instances.data(), b.instances.data(), a.instances.size() * sizeof(gpu::BvhInstance)), 0);
  EXPECT_EQ(a.meshRoots, b.meshRoots);
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

// The oracle: every triangle, through the same transform into object space and the same
// watertight test as the traversal, of every instance whose world box the ray's line meets.
// Those boxes come from each vertex transformed in double and padded generously, so they cull
// nothing a ray could hit; they only keep the 1M-triangle scene affordable.
class BruteForce {
 public:
  explicit BruteForce(const SceneData& scene) : scene_(scene) {
    for (uint32_t i = 0; i < scene.instances.size(); ++i) {
      const gpu::vec4* rows = scene.instances[i].objectToWorld;
      const Mesh& mesh = scene.meshes[scene.instanceMeshes[i]];
      WorldBox box;
      for (uint32_t g = mesh.firstGeometry; g < mesh.firstGeometry + mesh.geometryCount; ++g) {
        const gpu::Geometry& geometry = scene.geometries[g];
        for (uint32_t k = 0; k < 3 * geometry.triangleCount; ++k) {
          const gpu::vec3 p = scene.vertices[geometry.firstVertex + scene.indices[geometry.firstIndex + k]].position;
          for (int r = 0; r < 3; ++r) {
            const double w = double(rows[r].x) * p.x + double(rows[r].y) * p.y + double(rows[r].z) * p.z + rows[r].w;
            box.lo[r] = std::min(box.lo[r], w);
            box.hi[r] = std::max(box.hi[r], w);
          }
        }
      }
      const double pad = 1e-3 * std::max({box.hi[0] - box.lo[0], box.hi[1] - box.lo[1], box.hi[2] - box.lo[2], 1e-3});
      for (int r = 0; r < 3; ++r) box.lo[r] -= pad, box.hi[r] += pad;
      boxes_.push_back(box);
    }
  }

  std::optional<SurfaceHit> closest(const Ray& ray, const CandidateFilter& filter = {}) const {
    std::optional<SurfaceHit> closest;
    float tFar = ray.tMax;
    forEachHit(ray, tFar, [&](const SurfaceHit& hit) {
      if (!filter || filter(hit)) {
        closest = hit;
        tFar = hit.t;
      }
      return false;
    });
    return closest;
  }

  bool any(const Ray& ray, const CandidateFilter& filter = {}) const {
    bool found = false;
    forEachHit(ray, ray.tMax, [&](const SurfaceHit& hit) { return found = !filter || filter(hit); });
    return found;
  }

 private:
  struct WorldBox {
    double lo[3] = {INFINITY, INFINITY, INFINITY};
    double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool meets(const Ray& ray) const {
      double tNear = -INFINITY, tFar = INFINITY;
      const double o[3] = {ray.origin.x, ray.origin.y, ray.origin.z};
      const double d[3] = {ray.direction.x, ray.direction.y, ray.direction.z};
      for (int axis = 0; axis < 3; ++axis) {
        if (d[axis] == 0) {
          if (o[axis] < lo[axis] || o[axis] > hi[axis]) return false;
          continue;
        }
        const double t0 = (lo[axis] - o[axis]) / d[axis], t1 = (hi[axis] - o[axis]) / d[axis];
        tNear = std::max(tNear, std::min(t0, t1));
        tFar = std::min(tFar, std::max(t0, t1));
      }
      return tNear <= tFar;
    }
  };

  // visit(hit) returns true to stop.
  template <typename Visit>
  void forEachHit(const Ray& ray, const float& tFar, Visit&& visit) const {
    for (uint32_t i = 0; i < scene_.instances.size(); ++i) {
      if (!boxes_[i].meets(ray)) continue;
      const Ray objectRay = toObjectSpace(worldToObjectRows(scene_.instances[i]), ray);
      const WatertightRay watertight(objectRay.origin, objectRay.direction);
      const Mesh& mesh = scene_.meshes[scene_.instanceMeshes[i]];
      for (uint32_t g = 0; g < mesh.geometryCount; ++g) {
        const gpu::Geometry& geometry = scene_.geometries[mesh.firstGeometry + g];
        const auto position = [&](uint32_t p, uint32_t corner) {
          return toVec3(
              scene_.vertices[geometry.firstVertex + scene_.indices[geometry.firstIndex + 3 * p + corner]].position);
        };
        for (uint32_t p = 0; p < geometry.triangleCount; ++p) {
          const auto hit = watertight.intersect(position(p, 0), position(p, 1), position(p, 2), ray.tMin, tFar);
          if (hit &&
              visit(SurfaceHit{.t = hit->t, .instance = i, .geometry = g, .primitive = p, .u = hit->u, .v = hit->v}))
            return;
        }
      }
    }
  }

  const SceneData& scene_;
  std::vector<WorldBox> boxes_;
};

// Both layouts of `bvh` (either builder's) find on random rays what brute force finds, and what
// each other finds; shadow rays too.
inline void expectLayoutsFindWhatBruteForceFinds(const SceneData& scene, const SoftwareBvh& bvh) {
  constexpr size_t bruteForceRaysPerScene = 100'000;
  // Triangle tests the brute force may spend per scene; it checks at least 2,000 rays.
  constexpr double bruteForceBudget = 5e7;
  const BruteForce bruteForce(scene);
  const std::vector<Ray> rays = randomRays(scene.bounds, bruteForceRaysPerScene, 20261122);
  const size_t bruteForceRays = std::clamp<size_t>(
      size_t(bruteForceBudget / double(std::max<uint64_t>(scene.triangleCount(), 1))), 2000, rays.size());
  const float diagonal = length(scene.bounds.max - scene.bounds.min);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> fraction(0, 2);

  ClosestAgreement layouts, bvh2Brute, cwbvhBrute;
  size_t anyLayoutMismatches = 0, anyBruteMismatches = 0, anyHits = 0;
  for (size_t i = 0; i < rays.size(); ++i) {
    const Ray& ray = rays[i];
    const auto bvh2Hit = traceClosest(bvh.bvh2, ray);
    const auto cwbvhHit = traceClosest(bvh.cwbvh, ray);
    layouts.add(bvh2Hit, cwbvhHit);
    // A shadow ray that ends before or after the first hit, as often one as the other.
    Ray shadow = ray;
    shadow.tMax = fraction(rng) * (bvh2Hit ? bvh2Hit->t : diagonal);
    const bool bvh2Any = traceAny(bvh.bvh2, shadow), cwbvhAny = traceAny(bvh.cwbvh, shadow);
    anyLayoutMismatches += bvh2Any != cwbvhAny;
    anyHits += bvh2Any;
    if (i < bruteForceRays) {
      const auto expected = bruteForce.closest(ray);
      bvh2Brute.add(expected, bvh2Hit);
      cwbvhBrute.add(expected, cwbvhHit);
      // Something lies within [tMin, tMax] exactly when the closest hit of all does.
      const bool expectedAny = expected && expected->t <= shadow.tMax;
      anyBruteMismatches += (bvh2Any != expectedAny) + (cwbvhAny != expectedAny);
    }
  }
  EXPECT_EQ(bvh2Brute.mismatches, 0u) << bvh2Brute.firstMismatch;
  EXPECT_EQ(cwbvhBrute.mismatches, 0u) << cwbvhBrute.firstMismatch;
  EXPECT_EQ(layouts.mismatches, 0u) << layouts.firstMismatch;
  EXPECT_EQ(anyBruteMismatches, 0u);
  EXPECT_EQ(anyLayoutMismatches, 0u);
  // Ties come from coplanar overlaps (CornellBox_bevy's blocks stand in its floor's plane).
  EXPECT_LE(layouts.ties + bvh2Brute.ties + cwbvhBrute.ties, (layouts.hits + bvh2Brute.hits) / 100);
  // The rays must mean something: a good share hit, and some shadow rays are blocked and some not.
  EXPECT_GT(layouts.hits, rays.size() / 20);
  EXPECT_GT(anyHits, 0u);
  EXPECT_LT(anyHits, rays.size());
  EXPECT_GE(bvh2Brute.rays, 2000u);
}

inline Mat4 rotatedAndScaled(Vec3 translation) {
  // 50 degrees about a normalised (1, 2, 2) / 3, then scaled unevenly.
  const float half = 0.5f * 50 * std::numbers::pi_v<float> / 180, s = std::sin(half) / 3;
  return Mat4::translation(translation) * Mat4::rotation(1 * s, 2 * s, 2 * s, std::cos(half)) *
         Mat4::scale({2.0f, 0.5f, 1.5f});
}

// A UV sphere whose seam and pole vertices share indices. uvSphere repeats them (for their uv)
// at exactly the same positions; welded by exact equality, the mesh must be closed (a repeat a
// bit apart would leave a gap a ray may rightly pass through, and the edge check below fails).
inline Primitive closedSphere(uint32_t subdivisions, uint32_t material) {
  Primitive sphere = uvSphere(subdivisions, material);
  std::vector<uint32_t> canonical(sphere.vertices.size());
  std::vector<gpu::Vertex> kept;
  for (size_t i = 0; i < sphere.vertices.size(); ++i) {
    const Vec3 p = toVec3(sphere.vertices[i].position);
    const auto same = std::find_if(kept.begin(), kept.end(), [&](const gpu::Vertex& k) {
      const Vec3 q = toVec3(k.position);
      return q.x == p.x && q.y == p.y && q.z == p.z;
    });
    canonical[i] = static_cast<uint32_t>(same - kept.begin());
    if (same == kept.end()) kept.push_back(sphere.vertices[i]);
  }
  sphere.vertices = kept;
  for (uint32_t& index : sphere.indices) index = canonical[index];
  return sphere;
}

// Two instances of a closed sphere (one plain, one rotated and scaled unevenly), and the
// sphere's triangles' indices into the scene's vertices.
struct ClosedSpheres {
  SceneData scene;
  std::vector<uint32_t> indices;
  std::vector<Mat4> transforms;
};

inline ClosedSpheres closedSpheres() {
  SceneBuilder builder("test:closed-spheres");
  std::vector<Primitive> mesh = {closedSphere(48, builder.addMaterial(defaultMaterial()))};
  ClosedSpheres spheres{.indices = mesh[0].indices, .transforms = {Mat4{}, rotatedAndScaled({5, 0, 0})}};
  // Closed: every edge is shared by exactly two triangles, once in each direction.
  std::map<std::pair<uint32_t, uint32_t>, int> edges;
  const std::vector<uint32_t>& indices = spheres.indices;
  for (size_t t = 0; t < indices.size(); t += 3)
    for (int k = 0; k < 3; ++k) ++edges[{indices[t + k], indices[t + (k + 1) % 3]}];
  for (const auto& [edge, count] : edges) {
    EXPECT_EQ(count, 1);
    EXPECT_EQ(edges.count({edge.second, edge.first}), 1u);
  }
  const uint32_t sphere = builder.addMesh(mesh);
  for (const Mat4& transform : spheres.transforms) builder.addInstance(sphere, transform);
  spheres.scene = builder.finish();
  return spheres;
}

// Rays aimed at the spheres' shared edges and vertices from inside never escape through both
// layouts of `bvh` (either builder's): the watertight test and the traversal leave no gap.
inline void expectNoRayEscapesAtSharedEdges(const ClosedSpheres& spheres, const SoftwareBvh& bvh) {
  const std::vector<gpu::Vertex>& vertices = spheres.scene.vertices;
  const std::vector<uint32_t>& indices = spheres.indices;
  const std::vector<Mat4>& transforms = spheres.transforms;
  constexpr size_t rayCount = 1'000'000;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> unit(0, 1);
  const auto triangleCount = static_cast<uint32_t>(indices.size() / 3);
  size_t bvh2Escapes = 0, cwbvhEscapes = 0;
  for (size_t i = 0; i < rayCount; ++i) {
    const Mat4& transform = transforms[i % transforms.size()];
    const uint32_t t = std::min(static_cast<uint32_t>(unit(rng) * float(triangleCount)), triangleCount - 1);
    const auto corner = [&](uint32_t k) { return toVec3(vertices[indices[3 * t + k % 3]].position); };
    const uint32_t k = static_cast<uint32_t>(unit(rng) * 3) % 3;
    // Half the rays at a vertex, half at a point of an edge.
    const Vec3 objectTarget = i % 2 ? corner(k) + (corner(k + 1) - corner(k)) * unit(rng) : corner(k);
    const Vec3 objectOrigin = Vec3{unit(rng) - 0.5f, unit(rng) - 0.5f, unit(rng) - 0.5f};
    const Vec3 origin = transform.transformPoint(objectOrigin);
    const Ray ray{.origin = origin, .direction = transform.transformPoint(objectTarget) - origin};
    bvh2Escapes += !traceClosest(bvh.bvh2, ray).has_value();
    cwbvhEscapes += !traceClosest(bvh.cwbvh, ray).has_value();
  }
  EXPECT_EQ(bvh2Escapes, 0u) << "of " << rayCount;
  EXPECT_EQ(cwbvhEscapes, 0u) << "of " << rayCount;
}

}  // namespace ptbench::test
