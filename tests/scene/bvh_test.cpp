#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <numbers>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "core/scene/builtin_scenes.h"
#include "core/scene/bvh/bvh2.h"
#include "core/scene/bvh/cwbvh.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/scene/bvh/traversal.h"
#include "core/scene/huge_pages.h"
#include "scene/bvh_checks.h"
#include "shipped_scenes.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

class SoftwareBvhScene : public ::testing::TestWithParam<std::string> {};

TEST_P(SoftwareBvhScene, BothLayoutsFindWhatBruteForceFinds) {
  const SceneData scene = loadTestScene(GetParam());
  expectLayoutsFindWhatBruteForceFinds(scene, buildSoftwareBvh(scene));
}

INSTANTIATE_TEST_SUITE_P(Scenes, SoftwareBvhScene, ::testing::ValuesIn(bvhTestScenes()), sceneTestName);

// --- Instances -------------------------------------------------------------------------------

Mat4 mirrored(Vec3 translation) {
  return Mat4::translation(translation) * Mat4::scale({-1, 1, 1});
}

TEST(SoftwareBvh, MirroredAndRotatedInstancesHitInWorldUnits) {
  SceneBuilder builder("test:instances");
  const uint32_t material = builder.addMaterial(defaultMaterial());
  Primitive triangle{.material = material};
  triangle.vertices = {{.position = {0, 0, 0}}, {.position = {1, 0, 0}}, {.position = {0, 1, 0}}};
  triangle.indices = {0, 1, 2};
  std::vector<Primitive> triangleMesh = {triangle}, sphereMesh = {uvSphere(16, material)};
  const uint32_t triangleIndex = builder.addMesh(triangleMesh), sphereIndex = builder.addMesh(sphereMesh);
  const std::vector<Mat4> transforms = {mirrored({-3, 0, 0}), rotatedAndScaled({3, 1, 0})};
  for (const Mat4& transform : transforms) builder.addInstance(triangleIndex, transform);
  builder.addInstance(sphereIndex, mirrored({-3, 0, 6}));
  builder.addInstance(sphereIndex, rotatedAndScaled({3, 0, 6}));
  const SceneData scene = builder.finish();
  const SoftwareBvh bvh = buildSoftwareBvh(scene);

  // Rays at known points of the triangles: t is 1 at the target in world units, and (u, v)
  // weigh world vertices 1 and 2 whether or not the transform mirrors.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(0, 1);
  for (uint32_t instance = 0; instance < transforms.size(); ++instance) {
    const Mat4& m = transforms[instance];
    const Vec3 w0 = m.transformPoint({0, 0, 0}), w1 = m.transformPoint({1, 0, 0}), w2 = m.transformPoint({0, 1, 0});
    const Vec3 normal = normalize(cross(w1 - w0, w2 - w0));
    for (int i = 0; i < 200; ++i) {
      float b1 = unit(rng), b2 = unit(rng);
      if (b1 + b2 > 1) b1 = 1 - b1, b2 = 1 - b2;
      const Vec3 target = w0 * (1 - b1 - b2) + w1 * b1 + w2 * b2;
      const float side = i % 2 ? 1.0f : -1.0f;
      const Vec3 origin = target + (normal * side + Vec3{unit(rng), unit(rng), unit(rng)} * 0.3f) * 2.0f;
      const Ray ray{.origin = origin, .direction = target - origin};
      for (const auto& hit : {traceClosest(bvh.bvh2, ray), traceClosest(bvh.cwbvh, ray)}) {
        ASSERT_TRUE(hit.has_value());
        EXPECT_EQ(hit->instance, instance);
        EXPECT_EQ(hit->primitive, 0u);
        EXPECT_NEAR(hit->t, 1.0f, 1e-5f);
        EXPECT_NEAR(hit->u, b1, 1e-4f);
        EXPECT_NEAR(hit->v, b2, 1e-4f);
      }
      // The interval is closed at both ends, as the hardware's is.
      const float t = traceClosest(bvh.bvh2, ray)->t;
      EXPECT_TRUE(traceAny(bvh.bvh2, {.origin = origin, .direction = ray.direction, .tMax = t}));
      EXPECT_TRUE(traceAny(bvh.cwbvh, {.origin = origin, .direction = ray.direction, .tMin = t}));
      EXPECT_FALSE(traceAny(bvh.bvh2, {.origin = origin, .direction = ray.direction, .tMax = std::nextafter(t, 0.0f)}));
      const float after = std::nextafter(t, INFINITY);
      EXPECT_FALSE(traceAny(bvh.cwbvh, {.origin = origin, .direction = ray.direction, .tMin = after, .tMax = after}));
    }
  }

  // Rays from around the mirrored and the rotated spheres, aimed near their centres, agree
  // with brute force.
  Bounds around;
  around.extend(Vec3{-6, -3, 3});
  around.extend(Vec3{6, 3, 9});
  const BruteForce bruteForce(scene);
  ClosestAgreement bvh2Brute, cwbvhBrute;
  for (Ray ray : randomRays(around, 5'000, 5)) {
    const Vec3 centre = ray.direction.x < 0 ? Vec3{-3, 0, 6} : Vec3{3, 0, 6};
    ray.direction = centre + ray.direction * 0.7f - ray.origin;
    const auto expected = bruteForce.closest(ray);
    bvh2Brute.add(expected, traceClosest(bvh.bvh2, ray));
    cwbvhBrute.add(expected, traceClosest(bvh.cwbvh, ray));
  }
  EXPECT_EQ(bvh2Brute.mismatches, 0u) << bvh2Brute.firstMismatch;
  EXPECT_EQ(cwbvhBrute.mismatches, 0u) << cwbvhBrute.firstMismatch;
  EXPECT_GT(bvh2Brute.hits, 2500u);
}

TEST(SoftwareBvh, CandidateFilterDecidesWhichHitsCount) {
  const SceneData scene = loadScene("builtin:spheres?n=16&subdiv=24");
  const SoftwareBvh bvh = buildSoftwareBvh(scene);
  // As an alpha mask might: every other triangle is a hole.
  const CandidateFilter filter = [](const SurfaceHit& hit) { return hit.primitive % 2 == 0; };
  const BruteForce bruteForce(scene);
  ClosestAgreement bvh2Brute, cwbvhBrute;
  size_t anyMismatches = 0;
  for (Ray ray : randomRays(scene.bounds, 4000, 9)) {
    const auto expected = bruteForce.closest(ray, filter);
    bvh2Brute.add(expected, traceClosest(bvh.bvh2, ray, filter));
    cwbvhBrute.add(expected, traceClosest(bvh.cwbvh, ray, filter));
    if (expected) {
      EXPECT_EQ(expected->primitive % 2, 0u);
    }
    ray.tMax = expected ? expected->t * 1.5f : 10;
    const bool expectedAny = bruteForce.any(ray, filter);
    anyMismatches +=
        (traceAny(bvh.bvh2, ray, filter) != expectedAny) + (traceAny(bvh.cwbvh, ray, filter) != expectedAny);
  }
  EXPECT_EQ(bvh2Brute.mismatches, 0u) << bvh2Brute.firstMismatch;
  EXPECT_EQ(cwbvhBrute.mismatches, 0u) << cwbvhBrute.firstMismatch;
  EXPECT_EQ(anyMismatches, 0u);
  EXPECT_GT(bvh2Brute.hits, 100u);
}

// --- Watertightness --------------------------------------------------------------------------

TEST(SoftwareBvh, RaysAtSharedEdgesAndVerticesNeverEscape) {
  const ClosedSpheres spheres = closedSpheres();
  // Built as a large mesh is: its top nodes shared among threads, each partitioned in chunks.
  BvhBuildOptions options{.threads = 4};
  options.binary.parallelNodeThreshold = 1024;
  expectNoRayEscapesAtSharedEdges(spheres, buildSoftwareBvh(spheres.scene, options));
}

// --- Structure -------------------------------------------------------------------------------

bool contains(const Bounds& outer, const Bounds& inner) {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
         outer.max.x >= inner.max.x && outer.max.y >= inner.max.y && outer.max.z >= inner.max.z;
}

Bounds triangleBounds(const gpu::BvhTriangle& t) {
  Bounds b;
  b.extend(toVec3(t.v0));
  b.extend(toVec3(t.v1));
  b.extend(toVec3(t.v2));
  return b;
}

// Every child's decoded box holds the exact box of the triangles below it, and is no more than
// two quantisation steps larger on any side; returns the node's exact box.
Bounds checkCwbvhBoxes(const SoftwareBvhLayout<gpu::CwbvhNode>& bvh, uint32_t index, size_t& checked) {
  const gpu::CwbvhNode& node = bvh.nodes[index];
  std::vector<std::pair<Bounds, Bounds>> children;  // decoded, exact
  Bounds exactNode;
  for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot) {
    const auto child = cwbvhChild(node, slot);
    if (!child) continue;
    Bounds exact;
    if (child->inner) {
      exact = checkCwbvhBoxes(bvh, child->index, checked);
    } else {
      for (uint32_t t = child->index; t < child->index + child->primitiveCount; ++t)
        exact.extend(triangleBounds(bvh.triangles[t]));
    }
    children.push_back({child->bounds, exact});
    exactNode.extend(exact);
  }
  const Vec3 step = (exactNode.max - exactNode.min) * (2.0f / 255);
  for (const auto& [decoded, exact] : children) {
    EXPECT_TRUE(contains(decoded, exact)) << "node " << index;
    for (int axis = 0; axis < 3; ++axis) {
      EXPECT_LE(exact.min[axis] - decoded.min[axis], step[axis] * 1.001f) << "node " << index;
      EXPECT_LE(decoded.max[axis] - exact.max[axis], step[axis] * 1.001f) << "node " << index;
    }
    ++checked;
  }
  return exactNode;
}

TEST(SoftwareBvh, QuantisedBoxesContainTheirExactBoxes) {
  for (const std::string spec : {"builtin:spheres?n=16&subdiv=24", "DamagedHelmet/glTF-Binary/DamagedHelmet.glb"}) {
    const SceneData scene = loadTestScene(spec);
    const SoftwareBvh bvh = buildSoftwareBvh(scene);
    size_t checked = 0;
    for (uint32_t root : bvh.cwbvh.meshRoots)
      if (root != NO_BVH_ROOT) checkCwbvhBoxes(bvh.cwbvh, root, checked);
    EXPECT_GT(checked, 1000u) << spec;

    // The top level's leaf boxes hold every vertex of their instances, transformed in double.
    for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot) {
      const auto child = cwbvhChild(bvh.cwbvh.nodes[0], slot);
      if (!child || child->inner) continue;
      for (uint32_t e = child->index; e < child->index + child->primitiveCount; ++e) {
        const gpu::Instance& instance = scene.instances[bvh.cwbvh.instances[e].instance];
        const Mesh& mesh = scene.meshes[scene.instanceMeshes[bvh.cwbvh.instances[e].instance]];
        const gpu::Geometry& first = scene.geometries[mesh.firstGeometry];
        for (uint32_t v = first.firstVertex; v < first.firstVertex + 64 && v < scene.vertices.size(); ++v) {
          const gpu::vec3 p = scene.vertices[v].position;
          const gpu::vec4* rows = instance.objectToWorld;
          for (int r = 0; r < 3; ++r) {
            const double world =
                double(rows[r].x) * p.x + double(rows[r].y) * p.y + double(rows[r].z) * p.z + rows[r].w;
            EXPECT_LE(double(child->bounds.min[r]), world);
            EXPECT_GE(double(child->bounds.max[r]), world);
          }
        }
      }
    }
  }
}

// The leaf entries below a node (triangles, or instance entries in the top level), leaf by
// leaf; in a bottom level, also checks that the BVH2 leaf boxes are exact.
void collectLeafEntries(const SoftwareBvhLayout<gpu::Bvh2Node>& bvh, uint32_t node, bool bottomLevel,
                        std::vector<uint32_t>& entries) {
  for (const gpu::Bvh2Child& child : bvh.nodes[node].children) {
    if (child.primitiveCount == gpu::BVH2_INNER_CHILD) {
      collectLeafEntries(bvh, child.index, bottomLevel, entries);
      continue;
    }
    EXPECT_LE(child.primitiveCount, gpu::BVH2_MAX_LEAF_SIZE);
    Bounds exact;
    for (uint32_t t = child.index; t < child.index + child.primitiveCount; ++t) {
      entries.push_back(t);
      if (bottomLevel) exact.extend(triangleBounds(bvh.triangles[t]));
    }
    if (bottomLevel && child.primitiveCount > 0) {
      EXPECT_EQ(toVec3(child.boundsMin), exact.min);
      EXPECT_EQ(toVec3(child.boundsMax), exact.max);
    }
  }
}

void collectLeafEntries(const SoftwareBvhLayout<gpu::CwbvhNode>& bvh, uint32_t node, bool bottomLevel,
                        std::vector<uint32_t>& entries) {
  for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot) {
    const auto child = cwbvhChild(bvh.nodes[node], slot);
    if (!child) continue;
    if (child->inner) {
      collectLeafEntries(bvh, child->index, bottomLevel, entries);
      continue;
    }
    EXPECT_GE(child->primitiveCount, 1u);
    EXPECT_LE(child->primitiveCount, gpu::CWBVH_MAX_LEAF_SIZE);
    for (uint32_t t = child->index; t < child->index + child->primitiveCount; ++t) entries.push_back(t);
  }
}

template <typename Node>
void expectEveryTriangleOnce(const SceneData& scene, const SoftwareBvhLayout<Node>& bvh) {
  size_t total = 0;
  for (uint32_t m = 0; m < scene.meshes.size(); ++m) {
    const Mesh& mesh = scene.meshes[m];
    std::set<std::pair<uint32_t, uint32_t>> expected;
    for (uint32_t g = 0; g < mesh.geometryCount; ++g)
      for (uint32_t p = 0; p < scene.geometries[mesh.firstGeometry + g].triangleCount; ++p) expected.insert({g, p});
    if (expected.empty()) {
      EXPECT_EQ(bvh.meshRoots[m], NO_BVH_ROOT);
      continue;
    }
    std::vector<uint32_t> triangles;
    collectLeafEntries(bvh, bvh.meshRoots[m], true, triangles);
    std::set<std::pair<uint32_t, uint32_t>> found;
    for (uint32_t t : triangles) {
      const gpu::BvhTriangle& triangle = bvh.triangles[t];
      EXPECT_TRUE(found.insert({triangle.geometry, triangle.primitive}).second) << "mesh " << m << " twice";
      const gpu::Geometry& geometry = scene.geometries[mesh.firstGeometry + triangle.geometry];
      const uint32_t* corner = &scene.indices[geometry.firstIndex + 3 * triangle.primitive];
      EXPECT_EQ(toVec3(triangle.v0), toVec3(scene.vertices[geometry.firstVertex + corner[0]].position));
      EXPECT_EQ(toVec3(triangle.v2), toVec3(scene.vertices[geometry.firstVertex + corner[2]].position));
    }
    EXPECT_EQ(std::set<uint32_t>(triangles.begin(), triangles.end()).size(), triangles.size()) << "mesh " << m;
    EXPECT_EQ(found, expected) << "mesh " << m;
    total += triangles.size();
  }
  EXPECT_EQ(total, bvh.triangles.size());
  // The top level lists each instance entry once, and each instance with triangles has one.
  std::vector<uint32_t> entries;
  collectLeafEntries(bvh, 0, false, entries);
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries.size(), bvh.instances.size());
  EXPECT_TRUE(std::adjacent_find(entries.begin(), entries.end()) == entries.end());
  std::set<uint32_t> instances;
  for (const gpu::BvhInstance& entry : bvh.instances) instances.insert(entry.instance);
  EXPECT_EQ(instances.size(), scene.instances.size());
}

TEST(SoftwareBvh, EveryTriangleIsInExactlyOneLeaf) {
  for (const std::string spec :
       {"builtin:cornell", "builtin:spheres?n=16&subdiv=24", "FlightHelmet/FlightHelmet.gltf"}) {
    SCOPED_TRACE(spec);
    const SceneData scene = loadTestScene(spec);
    const SoftwareBvh bvh = buildSoftwareBvh(scene);
    expectEveryTriangleOnce(scene, bvh.bvh2);
    expectEveryTriangleOnce(scene, bvh.cwbvh);
  }
}

TEST(SoftwareBvh, NodeCountsAndSahCostsAreSane) {
  const SceneData scene = loadTestScene("FlightHelmet/FlightHelmet.gltf");
  const SoftwareBvh bvh = buildSoftwareBvh(scene);
  const SahCosts& costs = bvh.stats.costs;
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    const BvhStats& bvh2 = bvh.stats.bvh2.meshes[m];
    const BvhStats& cwbvh = bvh.stats.cwbvh.meshes[m];
    const auto triangles = bvh2.primitives;
    SCOPED_TRACE("mesh " + std::to_string(m) + ", " + std::to_string(triangles) + " triangles");
    EXPECT_EQ(cwbvh.primitives, triangles);
    if (triangles < 2) continue;
    // A two-wide tree's leaves fill the child slots its nodes do not: one more than its nodes.
    EXPECT_EQ(bvh2.leaves, bvh2.nodes + 1);
    EXPECT_GE(bvh2.leaves * gpu::BVH2_MAX_LEAF_SIZE, triangles);
    // Every wide node but the root fills one of its parent's 8 slots.
    EXPECT_LE(cwbvh.leaves + cwbvh.nodes - 1, 8 * cwbvh.nodes);
    EXPECT_GE(cwbvh.leaves * gpu::CWBVH_MAX_LEAF_SIZE, triangles);
    EXPECT_LT(cwbvh.nodes, bvh2.nodes);
    EXPECT_EQ(bvh2.bytes, bvh2.nodes * sizeof(gpu::Bvh2Node) + triangles * sizeof(gpu::BvhTriangle));
    EXPECT_EQ(cwbvh.bytes, cwbvh.nodes * sizeof(gpu::CwbvhNode) + triangles * sizeof(gpu::BvhTriangle));
    // Cheaper than one leaf of every triangle, dearer than a root visit and one triangle test.
    if (triangles >= 16) {
      EXPECT_LT(bvh2.sahCost, costs.primitive * double(triangles));
      EXPECT_LT(cwbvh.sahCost, costs.primitive * double(triangles));
    }
    EXPECT_GT(bvh2.sahCost, costs.node + costs.primitive);
    EXPECT_GT(cwbvh.sahCost, costs.node);
  }
  EXPECT_EQ(bvh.stats.bvh2.bytes, bvh.bvh2.nodes.size() * sizeof(gpu::Bvh2Node) +
                                      bvh.bvh2.triangles.size() * sizeof(gpu::BvhTriangle) +
                                      bvh.bvh2.instances.size() * sizeof(gpu::BvhInstance));
  EXPECT_EQ(bvh.stats.cwbvh.bottomLevels.primitives, scene.uniqueTriangleCount());
  EXPECT_EQ(bvh.stats.cwbvh.topLevel.primitives, scene.instances.size());
  EXPECT_GT(bvh.stats.buildMs, 0);
}

TEST(SoftwareBvh, SameArraysForEveryThreadCount) {
  const SceneData scene = loadScene("builtin:spheres?n=4&subdiv=128");
  BvhBuildOptions options{.threads = 1};
  options.binary.parallelThreshold = 256;       // so that subtrees go to other threads often
  options.binary.parallelNodeThreshold = 1024;  // and nodes are shared among threads, in chunks
  const SoftwareBvh one = buildSoftwareBvh(scene, options);
  for (unsigned threads : {2u, 3u, 8u}) {
    options.threads = threads;
    const SoftwareBvh many = buildSoftwareBvh(scene, options);
    EXPECT_EQ(many.stats.threads, threads);
    expectSameArrays(one.bvh2, many.bvh2);
    expectSameArrays(one.cwbvh, many.cwbvh);
  }
}

// Issue 24: the nodes at the top of a large mesh's tree were built on one thread, so that a
// 50M-triangle scene built no faster on 16 threads than on 2. Now they share their passes among
// threads: the same tree for any number of them, and the SAH cost of the build before (one
// thread, nodes partitioned in place; commit 1b83509 on this mesh: BVH2 44.6153, CWBVH 15.9315).
TEST(SoftwareBvh, MillionsOfTrianglesBuildTheSameTreeOnAnyThreadCount) {
  const SceneData scene = loadScene("builtin:spheres?n=1&subdiv=700");
  ASSERT_GT(scene.uniqueTriangleCount(), 1'900'000u);
  const SoftwareBvh one = buildSoftwareBvh(scene, {.threads = 1});
  const auto& sphere = [](const SoftwareBvh& bvh, BvhLayout layout) {
    return (layout == BvhLayout::Bvh2 ? bvh.stats.bvh2 : bvh.stats.cwbvh).meshes[0];
  };
  EXPECT_NEAR(sphere(one, BvhLayout::Bvh2).sahCost, 44.6153, 0.02 * 44.6153);
  EXPECT_NEAR(sphere(one, BvhLayout::Cwbvh).sahCost, 15.9315, 0.02 * 15.9315);
  // Primitive indices of 2^16 and above: the builder carries them in two halves.
  expectEveryTriangleOnce(scene, one.bvh2);
  expectEveryTriangleOnce(scene, one.cwbvh);
  std::set<unsigned> threadCounts = {2, 7, std::max(1u, std::thread::hardware_concurrency())};
  threadCounts.erase(1);
  for (unsigned threads : threadCounts) {
    const SoftwareBvh many = buildSoftwareBvh(scene, {.threads = threads});
    expectSameArrays(one.bvh2, many.bvh2);
    expectSameArrays(one.cwbvh, many.cwbvh);
    for (BvhLayout layout : allBvhLayouts)
      EXPECT_EQ(sphere(one, layout).sahCost, sphere(many, layout).sahCost) << threads << " threads";
  }
}

// The build reports the process's CPU time beside its wall clock, so that a user can tell threads
// that wait from threads that run slower: what the process's CPU clock gives around the build,
// less the little work after it (whatever the machine's load); at most the wall clock times the
// threads, and one more (ThreadBudget::wait may overdraw by one for a while); and a kernel part no
// larger than the whole.
TEST(SoftwareBvh, ReportsTheCpuTimeItsThreadsTook) {
  const SceneData scene = loadScene("builtin:spheres?n=1&subdiv=300");
  const auto processCpuMs = [] {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
  };
  for (unsigned threads : {1u, 3u}) {
    const double before = processCpuMs();
    const SoftwareBvh bvh = buildSoftwareBvh(scene, {.threads = threads});
    const double around = processCpuMs() - before;
    const SoftwareBvhStats& s = bvh.stats;
    EXPECT_NEAR(s.cpuMs, around, 5.0 + 0.1 * around) << threads << " threads";
    EXPECT_LE(s.cpuMs, s.buildMs * (threads + 1)) << threads << " threads";
    EXPECT_GE(s.systemCpuMs, 0.0) << threads << " threads";
    EXPECT_LE(s.systemCpuMs, s.cpuMs) << threads << " threads";
  }
}

// Issue 24: both layouts were collapsed for every scene, even for runs that traverse one.
TEST(SoftwareBvh, BuildsOnlyTheLayoutsAskedFor) {
  const SceneData scene = loadScene("builtin:spheres?n=4&subdiv=32");
  const SoftwareBvh both = buildSoftwareBvh(scene);
  EXPECT_TRUE(both.stats.bvh2.built);
  EXPECT_TRUE(both.stats.cwbvh.built);
  const SoftwareBvh bvh2 = buildSoftwareBvh(scene, {.layouts = {BvhLayout::Bvh2}});
  EXPECT_TRUE(bvh2.stats.bvh2.built);
  EXPECT_FALSE(bvh2.stats.cwbvh.built);
  EXPECT_TRUE(bvh2.cwbvh.nodes.empty());
  EXPECT_EQ(bvh2.stats.cwbvh.bytes, 0u);
  expectSameArrays(both.bvh2, bvh2.bvh2);
  const SoftwareBvh cwbvh = buildSoftwareBvh(scene, {.layouts = {BvhLayout::Cwbvh}});
  EXPECT_FALSE(cwbvh.stats.bvh2.built);
  EXPECT_TRUE(cwbvh.bvh2.nodes.empty());
  expectSameArrays(both.cwbvh, cwbvh.cwbvh);
  const SoftwareBvh none = buildSoftwareBvh(scene, {.layouts = {}});
  EXPECT_FALSE(none.stats.bvh2.built);
  EXPECT_FALSE(none.stats.cwbvh.built);
}

TEST(SoftwareBvh, OneTriangleAndNoInstances) {
  SceneBuilder builder("test:one-triangle");
  Primitive triangle{.material = builder.addMaterial(defaultMaterial())};
  triangle.vertices = {{.position = {0, 0, 0}}, {.position = {1, 0, 0}}, {.position = {0, 1, 0}}};
  triangle.indices = {0, 1, 2};
  std::vector<Primitive> primitives = {triangle};
  builder.addInstance(builder.addMesh(primitives), Mat4{});
  const SceneData one = builder.finish();
  const SoftwareBvh bvh = buildSoftwareBvh(one);
  const Ray ray{.origin = {0.25f, 0.25f, 1}, .direction = {0, 0, -1}};
  EXPECT_EQ(traceClosest(bvh.bvh2, ray)->t, 1.0f);
  EXPECT_EQ(traceClosest(bvh.cwbvh, ray)->t, 1.0f);
  EXPECT_FALSE(traceAny(bvh.bvh2, {.origin = {2, 2, 1}, .direction = {0, 0, -1}}));

  const SceneData none = SceneBuilder("test:empty").finish();
  const SoftwareBvh empty = buildSoftwareBvh(none);
  ASSERT_EQ(empty.bvh2.nodes.size(), 1u);
  ASSERT_EQ(empty.cwbvh.nodes.size(), 1u);
  EXPECT_FALSE(traceClosest(empty.bvh2, ray).has_value());
  EXPECT_FALSE(traceClosest(empty.cwbvh, ray).has_value());
}

// The triangles whose candidates the traversal must ask about (BVH_TRIANGLE_NON_OPAQUE) are
// those the hardware BLAS leaves non-opaque: alpha-tested ones, and thin walls that shadow rays
// cross (transmission without a volume's thickness); volumetric glass stops every ray.
TEST(SoftwareBvh, AlphaTestedAndThinWalledTrianglesAreNonOpaque) {
  SceneBuilder builder("test:candidates");
  gpu::Material masked = defaultMaterial();
  masked.alphaMode = gpu::ALPHA_MASK;
  gpu::Material thinWall = defaultMaterial();
  thinWall.transmissionFactor = 1;
  gpu::Material volume = thinWall;
  volume.thicknessFactor = 0.1f;
  const std::pair<gpu::Material, uint32_t> expected[] = {{defaultMaterial(), 0},
                                                         {masked, gpu::BVH_TRIANGLE_NON_OPAQUE},
                                                         {thinWall, gpu::BVH_TRIANGLE_NON_OPAQUE},
                                                         {volume, 0}};
  std::vector<Primitive> primitives;
  for (const auto& [material, flags] : expected) {
    Primitive triangle{.material = builder.addMaterial(material)};
    triangle.vertices = {{.position = {0, 0, 0}}, {.position = {1, 0, 0}}, {.position = {0, 1, 0}}};
    triangle.indices = {0, 1, 2};
    primitives.push_back(triangle);
    EXPECT_EQ(gpu::materialNeedsCandidateTest(material), flags != 0);
  }
  builder.addInstance(builder.addMesh(primitives), Mat4{});
  const SoftwareBvh bvh = buildSoftwareBvh(builder.finish());
  ASSERT_EQ(bvh.cwbvh.triangles.size(), std::size(expected));
  for (const gpu::BvhTriangle& triangle : bvh.cwbvh.triangles)
    EXPECT_EQ(triangle.flags, expected[triangle.geometry].second) << "geometry " << triangle.geometry;
}

// Acceleration structures mark geometry non-opaque by its own material, so an instance may not
// override it with a material that would need the other marking.
TEST(SceneBuilder, RefusesAnOverrideThatWouldChangeWhichHitsAreTested) {
  SceneBuilder builder("test:override");
  gpu::Material thinWall = defaultMaterial();
  thinWall.transmissionFactor = 1;
  const uint32_t opaque = builder.addMaterial(defaultMaterial());
  const uint32_t glass = builder.addMaterial(thinWall);
  Primitive triangle{.material = opaque};
  triangle.vertices = {{.position = {0, 0, 0}}, {.position = {1, 0, 0}}, {.position = {0, 1, 0}}};
  triangle.indices = {0, 1, 2};
  std::vector<Primitive> primitives = {triangle};
  const uint32_t mesh = builder.addMesh(primitives);
  EXPECT_NO_THROW(builder.addInstance(mesh, Mat4{}, opaque));
  EXPECT_THROW(builder.addInstance(mesh, Mat4{}, glass), std::logic_error);
}

// Centroids a denormal apart make the bins' scale infinite: the binned position of each is then
// infinite or NaN, whose conversion to a bin index UBSan aborted on. Each still gets its leaf.
TEST(BinaryBvh, CentroidsADenormalApartStillGetALeafEach) {
  std::vector<Bounds> boxes;
  for (const float z : {0.0f, 1e-40f, 2e-40f, 3e-40f}) boxes.push_back({.min = {0, 0, z}, .max = {1, 1, z}});
  ThreadBudget budget(1);
  const BinaryBvh bvh = buildBinaryBvh(boxes, {}, budget);
  ASSERT_EQ(bvh.nodes.size(), 2 * boxes.size() - 1);
  std::vector<uint32_t> order = bvh.primitiveOrder;
  std::ranges::sort(order);
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3}));
}

// The depth of the deepest leaf of a binary tree, the root 0.
uint32_t binaryDepth(const BinaryBvh& bvh) {
  uint32_t deepest = 0;
  std::vector<std::pair<uint32_t, uint32_t>> pending = {{0, 0}};
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, depth);
    if (BinaryBvh::isLeaf(bvh.nodes[node])) continue;
    pending.emplace_back(BinaryBvh::leftChild(node), depth + 1);
    pending.emplace_back(bvh.nodes[node].rightChild, depth + 1);
  }
  return deepest;
}

void expectEachPrimitiveOnce(std::vector<uint32_t> order, size_t count, const std::string& what) {
  std::ranges::sort(order);
  std::vector<uint32_t> expected(count);
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(order, expected) << what;
}

// Boxes around 1e19 have half-areas beyond float: every SAH cost is infinite, and NaN where
// infinities cancel. The CWBVH collapse then chose a split of none of a node's roots and
// recursed without end (a crash); the BVH2 collapse and the binary build must hold up as well.
TEST(BinaryBvh, BoxesWhoseAreasOverflowFloatStillMakeTrees) {
  std::vector<Bounds> boxes;
  for (int i = 0; i < 300; ++i) {
    const float x = float(i % 2 ? 1 : -1) * 1e19f * float(1 + i % 7);
    boxes.push_back({.min = {x, -3e19f, float(i)}, .max = {x + 1e19f, 3e19f, float(i) + 1e19f}});
  }
  ThreadBudget budget(1);
  const BinaryBvh binary = buildBinaryBvh(boxes, {}, budget);
  expectEachPrimitiveOnce(binary.primitiveOrder, boxes.size(), "binary");
  expectEachPrimitiveOnce(collapseToCwbvh(binary, SahCosts{}, budget).primitiveOrder, boxes.size(), "cwbvh");
  expectEachPrimitiveOnce(collapseToBvh2(binary, SahCosts{}, budget).primitiveOrder, boxes.size(), "bvh2");
}

// Points on a line (every SAH cost 0, so the first bin's split wins), each twice as far out as
// the one before: each split peels off the outermost point alone, a tree as deep as the points
// are many. Past its SAH depth the build halves, so the recursion stays shallow for any input.
TEST(BinaryBvh, CentroidsThatPeelOffOneAtATimeStillGiveAShallowTree) {
  std::vector<Bounds> boxes;
  for (int k = -140; k <= 120; ++k) {
    const float x = -std::ldexp(1.0f, k);
    boxes.push_back({.min = {x, 0, 0}, .max = {x, 0, 0}});
  }
  ThreadBudget budget(1);
  const BinaryBvh bvh = buildBinaryBvh(boxes, {}, budget);
  expectEachPrimitiveOnce(bvh.primitiveOrder, boxes.size(), "binary");
  EXPECT_LE(binaryDepth(bvh), 128u + 8u);
}

// parallelFor takes every place the budget spares before its helpers start. It used to start
// each helper as it took its place, and a helper's own parallelFor (a mesh's boxes) took the
// places not yet taken: a 50M-triangle scene's mesh loop ran on 8 of 16 threads. Eight items
// that each nest a parallelFor, on a budget of eight threads, now all run at once.
TEST(ThreadBudget, ParallelForTakesEverySparePlaceBeforeItsHelpersStart) {
  constexpr size_t threads = 8;
  ThreadBudget budget(threads);
  std::atomic<size_t> running{0}, mostAtOnce{0};
  parallelFor(budget, threads, [&](size_t) {
    const size_t now = running.fetch_add(1) + 1;
    for (size_t seen = mostAtOnce.load(); now > seen && !mostAtOnce.compare_exchange_weak(seen, now);) {
    }
    parallelFor(budget, 32, [](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(1)); });
    // Each item waits a while for the others, so that items with threads of their own overlap.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (mostAtOnce.load() < threads && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    running.fetch_sub(1);
  });
  EXPECT_EQ(mostAtOnce.load(), threads);
}

// A thread keeps its arrays from mesh to mesh (software_bvh.cpp's ScratchPool): what they held
// before, a larger level's tree and garbage in the collapses' tables, must not reach the next
// level's trees.
TEST(BinaryBvh, ReusedScratchBuildsTheTreesFreshMemoryBuilds) {
  const auto randomBoxes = [](size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> position(-10, 10), size(0, 0.5f);
    std::vector<Bounds> boxes(count);
    for (Bounds& box : boxes) {
      box.min = {position(rng), position(rng), position(rng)};
      box.max = box.min + Vec3{size(rng), size(rng), size(rng)};
    }
    return boxes;
  };
  const std::vector<Bounds> large = randomBoxes(30000, 1), small = randomBoxes(7000, 2);
  BinaryBvhOptions options;
  options.parallelNodeThreshold = 1024;  // shared nodes: the stable partition's second array
  ThreadBudget budget(3);
  const BinaryBvh fresh = buildBinaryBvh(small, options, budget);
  const BvhTree<gpu::Bvh2Node> freshBvh2 = collapseToBvh2(fresh, SahCosts{}, budget);
  const BvhTree<gpu::CwbvhNode> freshCwbvh = collapseToCwbvh(fresh, SahCosts{}, budget);

  // The binary build works in the CWBVH collapse's cost table's memory, as a mesh's build does.
  BinaryBvh reused;
  CollapseScratch bvh2Scratch, cwbvhScratch;
  buildBinaryBvh(large, options, budget, reused, cwbvhScratch.cost);
  collapseToBvh2(reused, SahCosts{}, budget, bvh2Scratch);
  collapseToCwbvh(reused, SahCosts{}, budget, cwbvhScratch);
  for (CollapseScratch* tables : {&bvh2Scratch, &cwbvhScratch}) {
    const std::span<uint8_t> cost = tables->cost.take<uint8_t>(tables->cost.bytes());
    std::fill(cost.begin(), cost.end(), uint8_t(0xff));  // NaN as floats, and as refs
    std::fill(tables->split.begin(), tables->split.end(), uint8_t(0xff));
    std::fill(tables->makesLeaf.begin(), tables->makesLeaf.end(), uint8_t(0xff));
    std::fill(tables->subtreeNodes.begin(), tables->subtreeNodes.end(), 0xffffffffu);
    std::fill(tables->levels.begin(), tables->levels.end(), 0xffffffffu);
  }
  buildBinaryBvh(small, options, budget, reused, cwbvhScratch.cost);
  ASSERT_EQ(reused.nodes.size(), fresh.nodes.size());
  EXPECT_EQ(std::memcmp(reused.nodes.data(), fresh.nodes.data(), fresh.nodes.size() * sizeof(BinaryBvhNode)), 0);
  EXPECT_EQ(reused.primitiveOrder, fresh.primitiveOrder);
  const BvhTree<gpu::Bvh2Node> bvh2 = collapseToBvh2(reused, SahCosts{}, budget, bvh2Scratch);
  const BvhTree<gpu::CwbvhNode> cwbvh = collapseToCwbvh(reused, SahCosts{}, budget, cwbvhScratch);
  ASSERT_EQ(bvh2.nodes.size(), freshBvh2.nodes.size());
  EXPECT_EQ(std::memcmp(bvh2.nodes.data(), freshBvh2.nodes.data(), bvh2.nodes.size() * sizeof(gpu::Bvh2Node)), 0);
  EXPECT_EQ(bvh2.primitiveOrder, freshBvh2.primitiveOrder);
  EXPECT_EQ(bvh2.sahCost, freshBvh2.sahCost);
  EXPECT_EQ(bvh2.leafCount, freshBvh2.leafCount);
  ASSERT_EQ(cwbvh.nodes.size(), freshCwbvh.nodes.size());
  EXPECT_EQ(std::memcmp(cwbvh.nodes.data(), freshCwbvh.nodes.data(), cwbvh.nodes.size() * sizeof(gpu::CwbvhNode)), 0);
  EXPECT_EQ(cwbvh.primitiveOrder, freshCwbvh.primitiveOrder);
  EXPECT_EQ(cwbvh.sahCost, freshCwbvh.sahCost);
  EXPECT_EQ(cwbvh.leafCount, freshCwbvh.leafCount);
}

// One array after another in the same memory (the binary build's refs, then the CWBVH costs):
// it grows only when an array needs more, and each array starts at the same aligned place.
TEST(HugePages, ScratchMemoryReusesItsMemoryAndGrowsOnlyWhenAnArrayNeedsMore) {
  ScratchMemory memory;
  EXPECT_TRUE(memory.take<float>(0).empty());
  const std::span<float> floats = memory.take<float>(1000);
  ASSERT_EQ(floats.size(), 1000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(floats.data()) % 64, 0u);
  std::fill(floats.begin(), floats.end(), 2.0f);
  const size_t bytes = memory.bytes();
  EXPECT_GE(bytes, 1000 * sizeof(float));
  const std::span<uint32_t> words = memory.take<uint32_t>(10);
  EXPECT_EQ(static_cast<void*>(words.data()), static_cast<void*>(floats.data()));
  EXPECT_EQ(memory.bytes(), bytes);
  using Triple = std::array<double, 3>;
  const std::span<Triple> triples = memory.take<Triple>(bytes);  // 24 times as many bytes
  EXPECT_GE(memory.bytes(), bytes * sizeof(Triple));
  EXPECT_EQ(triples.size(), bytes);
  triples.back() = {1, 2, 3};
}

// The build's large arrays grow into fresh memory that asks for huge pages; what they held stays.
TEST(HugePages, GrowingAnArrayKeepsItsElementsAndValueInitialisesTheRest) {
  std::vector<uint32_t> values(1000);
  std::iota(values.begin(), values.end(), 7u);
  const size_t count = 3 * hugePageBytes / sizeof(uint32_t);
  resizeInHugePages(values, count);
  ASSERT_EQ(values.size(), count);
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(values[i], 7 + i);
  EXPECT_TRUE(std::all_of(values.begin() + 1000, values.end(), [](uint32_t v) { return v == 0; }));
  std::vector<Bounds> small;
  reserveInHugePages(small, 10);  // too small for a huge page: an ordinary reservation
  EXPECT_GE(small.capacity(), 10u);
  EXPECT_TRUE(small.empty());
}

// Not a test: the build speed docs/bvh.md quotes. Run with --gtest_also_run_disabled_tests.
TEST(SoftwareBvh, DISABLED_BuildSpeed) {
  const SceneData scene = loadTestScene("MetalRoughSpheresNoTextures/glTF-Binary/MetalRoughSpheresNoTextures.glb");
  const double triangles = double(scene.uniqueTriangleCount());
  for (unsigned threads : {1u, 2u}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      const SoftwareBvh bvh = buildSoftwareBvh(scene, {.threads = threads});
      const auto& s = bvh.stats;
      double bvh2Ms = 0, cwbvhMs = 0;
      for (size_t m = 0; m < s.bvh2.meshes.size(); ++m) {
        bvh2Ms += s.bvh2.meshes[m].buildMs;
        cwbvhMs += s.cwbvh.meshes[m].buildMs;
      }
      std::printf(
          "%u thread(s): %.0f triangles in %.1f ms wall (%.1f ms CPU) = %.2f Mtri/s (both layouts); summed over "
          "meshes: binary %.1f ms, binary+bvh2 %.1f ms, binary+cwbvh %.1f ms; SAH bvh2 %.2f cwbvh %.2f; MiB bvh2 "
          "%.1f cwbvh %.1f\n",
          threads, triangles, s.buildMs, s.cpuMs, triangles / s.buildMs / 1e3, s.binaryBuildMs, bvh2Ms, cwbvhMs,
          s.bvh2.bottomLevels.sahCost, s.cwbvh.bottomLevels.sahCost, double(s.bvh2.bytes) / (1 << 20),
          double(s.cwbvh.bytes) / (1 << 20));
    }
  }
}

// Not a test: the large-mesh build rate (docs/bvh.md, "The CPU builder"), with the process's CPU time (on a
// shared machine, wall time alone says little). Run with --gtest_also_run_disabled_tests.
TEST(SoftwareBvh, DISABLED_BuildSpeedLargeMesh) {
  const SceneData scene = loadScene("builtin:spheres?n=1&subdiv=700");
  const double triangles = double(scene.uniqueTriangleCount());
  // Nodes never shared among threads: the build as it was before issue 24, for comparison.
  for (const uint32_t sharedFrom : {BinaryBvhOptions{}.parallelNodeThreshold, UINT32_MAX}) {
    for (unsigned threads : {1u, 2u}) {
      for (int repeat = 0; repeat < 2; ++repeat) {
        BvhBuildOptions options{.threads = threads};
        options.binary.parallelNodeThreshold = sharedFrom;
        const SoftwareBvh bvh = buildSoftwareBvh(scene, options);
        const auto& s = bvh.stats;
        std::printf(
            "%s, %u thread(s): %.0f triangles in %.1f ms wall (%.1f ms CPU) = %.2f Mtri/s (both layouts), binary "
            "trees %.1f ms = %.2f Mtri/s, collapses bvh2 %.1f ms cwbvh %.1f ms, assembly %.1f ms; mesh 0 SAH bvh2 "
            "%.4f cwbvh %.4f\n",
            sharedFrom == UINT32_MAX ? "no node shared" : "large nodes shared", threads, triangles, s.buildMs, s.cpuMs,
            triangles / s.buildMs / 1e3, s.binaryBuildMs, triangles / s.binaryBuildMs / 1e3,
            s.bvh2.meshes[0].buildMs - s.binaryBuildMs, s.cwbvh.meshes[0].buildMs - s.binaryBuildMs, s.assembleMs,
            s.bvh2.meshes[0].sahCost, s.cwbvh.meshes[0].sahCost);
      }
    }
  }
}

}  // namespace
}  // namespace ptbench::test
