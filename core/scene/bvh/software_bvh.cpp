#include "core/scene/bvh/software_bvh.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>
#include <type_traits>

#include "core/scene/bvh/bvh2.h"
#include "core/scene/bvh/cwbvh.h"
#include "core/scene/huge_pages.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::BvhTriangle) == 48);
static_assert(sizeof(gpu::BvhInstance) == 64);
static_assert(sizeof(gpu::Bvh2Child) == 32);
static_assert(sizeof(gpu::Bvh2Node) == 64);
static_assert(sizeof(gpu::CwbvhNode) == 80);
static_assert(offsetof(gpu::CwbvhNode, childBase) == 16 && offsetof(gpu::CwbvhNode, meta) == 24);
static_assert(offsetof(gpu::CwbvhNode, quantizedMin) == 32 && offsetof(gpu::CwbvhNode, quantizedMax) == 56);

using Clock = std::chrono::steady_clock;

// A large mesh's triangles are gathered and boxed on as many threads as the budget spares.
constexpr uint32_t trianglesPerChunk = 16384;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <typename Node>
struct Collapsed {
  BvhTree<Node> tree;
  double ms = 0;
};

// One level's binary tree and both collapses of it.
struct LevelBuild {
  uint32_t primitiveCount = 0;
  Bounds bounds;
  double binaryMs = 0;
  Collapsed<gpu::Bvh2Node> bvh2;
  Collapsed<gpu::CwbvhNode> cwbvh;

  template <typename Node>
  const Collapsed<Node>& collapsed() const {
    if constexpr (std::is_same_v<Node, gpu::Bvh2Node>)
      return bvh2;
    else
      return cwbvh;
  }
};

bool builds(const BvhBuildOptions& options, BvhLayout layout) {
  return std::find(options.layouts.begin(), options.layouts.end(), layout) != options.layouts.end();
}

LevelBuild buildLevel(std::span<const Bounds> primitives, const BvhBuildOptions& options, ThreadBudget& budget) {
  LevelBuild level{.primitiveCount = static_cast<uint32_t>(primitives.size())};
  auto start = Clock::now();
  PrebuiltLevel built;
  if (options.levelBuilder) {
    built = options.levelBuilder(primitives, options.layouts);
  } else {
    built.binary = buildBinaryBvh(primitives, options.binary, budget);
    if (!built.binary.nodes.empty()) built.bounds = built.binary.nodes[0].bounds;
  }
  const BinaryBvh& binary = built.binary;
  level.binaryMs = msSince(start);
  level.bounds = built.bounds;
  if (built.bvh2) level.bvh2.tree = std::move(*built.bvh2);
  if (built.cwbvh) level.cwbvh.tree = std::move(*built.cwbvh);
  // The collapses only read the binary tree: the second takes a thread when one is spare.
  const bool collapsesBvh2 = builds(options, BvhLayout::Bvh2) && !built.bvh2;
  const bool collapsesCwbvh = builds(options, BvhLayout::Cwbvh) && !built.cwbvh;
  forkJoin(
      budget, collapsesBvh2 && collapsesCwbvh && primitives.size() >= options.binary.parallelThreshold,
      [&] {
        if (!collapsesBvh2) return;
        const auto collapseStart = Clock::now();
        level.bvh2.tree = collapseToBvh2(binary, options.costs, budget);
        level.bvh2.ms = msSince(collapseStart);
      },
      [&] {
        if (!collapsesCwbvh) return;
        const auto collapseStart = Clock::now();
        level.cwbvh.tree = collapseToCwbvh(binary, options.costs, budget);
        level.cwbvh.ms = msSince(collapseStart);
      });
  return level;
}

uint64_t meshTriangleCount(const SceneData& scene, const Mesh& mesh) {
  uint64_t count = 0;
  for (uint32_t g = mesh.firstGeometry; g < mesh.firstGeometry + mesh.geometryCount; ++g)
    count += scene.geometries[g].triangleCount;
  return count;
}

// A mesh's triangles in its own numbering: geometry by geometry, primitive by primitive.
std::vector<gpu::BvhTriangle> meshTriangles(const SceneData& scene, const Mesh& mesh, ThreadBudget& budget) {
  std::vector<gpu::BvhTriangle> triangles;
  resizeInHugePages(triangles, meshTriangleCount(scene, mesh));
  uint32_t first = 0;  // the geometry's first triangle in the mesh's numbering
  for (uint32_t g = 0; g < mesh.geometryCount; ++g) {
    const gpu::Geometry& geometry = scene.geometries[mesh.firstGeometry + g];
    const auto position = [&](uint32_t primitive, uint32_t corner) {
      return scene.vertices[geometry.firstVertex + scene.indices[geometry.firstIndex + 3 * primitive + corner]]
          .position;
    };
    const uint32_t flags =
        gpu::materialNeedsCandidateTest(scene.materials[geometry.material]) ? gpu::BVH_TRIANGLE_NON_OPAQUE : 0;
    const Chunks chunks{.begin = 0, .end = geometry.triangleCount, .size = trianglesPerChunk};
    parallelFor(budget, chunks.count(), [&](size_t c) {
      for (uint32_t p = chunks.first(c); p < chunks.last(c); ++p)
        triangles[first + p] = {.v0 = position(p, 0),
                                .geometry = g,
                                .v1 = position(p, 1),
                                .primitive = p,
                                .v2 = position(p, 2),
                                .flags = flags};
    });
    first += geometry.triangleCount;
  }
  return triangles;
}

struct MeshBuild {
  std::vector<gpu::BvhTriangle> triangles;  // in the mesh's numbering
  LevelBuild level;
};

MeshBuild buildMesh(const SceneData& scene, const Mesh& mesh, const BvhBuildOptions& options, ThreadBudget& budget) {
  MeshBuild build{.triangles = meshTriangles(scene, mesh, budget)};
  std::vector<Bounds> boxes;
  resizeInHugePages(boxes, build.triangles.size());
  const Chunks chunks{.begin = 0, .end = static_cast<uint32_t>(boxes.size()), .size = trianglesPerChunk};
  parallelFor(budget, chunks.count(), [&](size_t c) {
    for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i) {
      const gpu::BvhTriangle& t = build.triangles[i];
      boxes[i].extend(toVec3(t.v0));
      boxes[i].extend(toVec3(t.v1));
      boxes[i].extend(toVec3(t.v2));
    }
  });
  build.level = buildLevel(boxes, options, budget);
  return build;
}

float roundDown(double value) {
  const auto f = static_cast<float>(value);
  return double(f) > value ? std::nextafter(f, -INFINITY) : f;
}
float roundUp(double value) {
  const auto f = static_cast<float>(value);
  return double(f) < value ? std::nextafter(f, INFINITY) : f;
}

// The world box of an object box's eight corners, in double and rounded outwards, so that it
// holds the exactly transformed object box.
Bounds worldBounds(const gpu::Instance& instance, const Bounds& object) {
  const gpu::vec4* rows = instance.objectToWorld;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int corner = 0; corner < 8; ++corner) {
    const double x = (corner & 1 ? object.max : object.min).x;
    const double y = (corner & 2 ? object.max : object.min).y;
    const double z = (corner & 4 ? object.max : object.min).z;
    for (int r = 0; r < 3; ++r) {
      const double v = rows[r].x * x + rows[r].y * y + rows[r].z * z + rows[r].w;
      lo[r] = std::min(lo[r], v);
      hi[r] = std::max(hi[r], v);
    }
  }
  return {.min = {roundDown(lo[0]), roundDown(lo[1]), roundDown(lo[2])},
          .max = {roundUp(hi[0]), roundUp(hi[1]), roundUp(hi[2])}};
}

void offsetIndices(gpu::Bvh2Node& node, uint32_t nodeOffset, uint32_t primitiveOffset) {
  for (gpu::Bvh2Child& child : node.children)
    child.index += child.primitiveCount == gpu::BVH2_INNER_CHILD ? nodeOffset : primitiveOffset;
}
void offsetIndices(gpu::CwbvhNode& node, uint32_t nodeOffset, uint32_t primitiveOffset) {
  node.childBase += nodeOffset;
  node.primitiveBase += primitiveOffset;
}

// The root of a top level over no instances: a node that no ray leaves.
template <typename Node>
Node emptyRoot() {
  Node node{};
  if constexpr (std::is_same_v<Node, gpu::Bvh2Node>) {
    for (gpu::Bvh2Child& child : node.children)
      child = {.boundsMin = toGpu(Bounds{}.min), .boundsMax = toGpu(Bounds{}.max), .primitiveCount = 0};
  } else {
    node.quantizedMin[0] = node.quantizedMin[1] = node.quantizedMin[2] = 0xffffffffu;
    node.quantizedMin[3] = node.quantizedMin[4] = node.quantizedMin[5] = 0xffffffffu;
  }
  return node;
}

template <typename Visit>
void forEachInnerChild(const gpu::Bvh2Node& node, Visit&& visit) {
  for (const gpu::Bvh2Child& child : node.children)
    if (child.primitiveCount == gpu::BVH2_INNER_CHILD) visit(child.index);
}
template <typename Visit>
void forEachInnerChild(const gpu::CwbvhNode& node, Visit&& visit) {
  for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot)
    if (const auto child = cwbvhChild(node, slot); child && child->inner) visit(child->index);
}

// Nodes on the longest path from the root down: what bounds the traversal stack.
template <typename Node>
uint32_t treeDepth(const BvhTree<Node>& tree) {
  if (tree.nodes.empty()) return 0;
  uint32_t deepest = 0;
  std::vector<std::pair<uint32_t, uint32_t>> pending = {{0, 1}};  // (node, its depth)
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, depth);
    forEachInnerChild(tree.nodes[node], [&, depth = depth](uint32_t child) { pending.emplace_back(child, depth + 1); });
  }
  return deepest;
}

template <typename Node>
BvhStats levelStats(const LevelBuild& level, size_t leafEntryBytes) {
  const Collapsed<Node>& collapsed = level.collapsed<Node>();
  return {.buildMs = level.binaryMs + collapsed.ms,
          .depth = treeDepth(collapsed.tree),
          .nodes = collapsed.tree.nodes.size(),
          .leaves = collapsed.tree.leafCount,
          .primitives = level.primitiveCount,
          .sahCost = collapsed.tree.sahCost,
          .bytes = collapsed.tree.nodes.size() * sizeof(Node) + level.primitiveCount * leafEntryBytes};
}

template <typename Node>
void assemble(const SceneData& scene, const std::vector<MeshBuild>& meshes, const LevelBuild& top,
              const std::vector<uint32_t>& topInstances, SoftwareBvhLayout<Node>& layout, BvhLayoutStats& stats,
              ThreadBudget& budget) {
  stats.built = true;
  const BvhTree<Node>& topTree = top.collapsed<Node>().tree;
  layout.nodes.assign(topTree.nodes.begin(), topTree.nodes.end());
  if (layout.nodes.empty()) layout.nodes.push_back(emptyRoot<Node>());
  stats.topLevel = levelStats<Node>(top, sizeof(gpu::BvhInstance));
  stats.topLevel.nodes = layout.nodes.size();

  // Each mesh's place in the arrays first, then the meshes copied in on as many threads as the
  // budget spares (a 50M-triangle scene's triangles are gigabytes, gathered in leaf order).
  stats.meshes.assign(meshes.size(), {});
  layout.meshRoots.assign(meshes.size(), NO_BVH_ROOT);
  std::vector<uint32_t> triangleOffsets(meshes.size(), 0);
  size_t nodeCount = layout.nodes.size(), triangleCount = 0;
  for (size_t m = 0; m < meshes.size(); ++m) {
    const BvhTree<Node>& tree = meshes[m].level.collapsed<Node>().tree;
    if (tree.nodes.empty()) continue;
    layout.meshRoots[m] = static_cast<uint32_t>(nodeCount);
    triangleOffsets[m] = static_cast<uint32_t>(triangleCount);
    nodeCount += tree.nodes.size();
    triangleCount += meshes[m].triangles.size();
  }
  resizeInHugePages(layout.nodes, nodeCount);
  resizeInHugePages(layout.triangles, triangleCount);
  parallelFor(budget, meshes.size(), [&](size_t m) {
    const BvhTree<Node>& tree = meshes[m].level.collapsed<Node>().tree;
    if (tree.nodes.empty()) return;
    const uint32_t nodeOffset = layout.meshRoots[m], triangleOffset = triangleOffsets[m];
    for (size_t n = 0; n < tree.nodes.size(); ++n) {
      Node node = tree.nodes[n];
      offsetIndices(node, nodeOffset, triangleOffset);
      layout.nodes[nodeOffset + n] = node;
    }
    gpu::BvhTriangle* triangles = layout.triangles.data() + triangleOffset;
    for (size_t i = 0; i < tree.primitiveOrder.size(); ++i) triangles[i] = meshes[m].triangles[tree.primitiveOrder[i]];
    stats.meshes[m] = levelStats<Node>(meshes[m].level, sizeof(gpu::BvhTriangle));
  });

  double weightedSah = 0;
  for (size_t m = 0; m < meshes.size(); ++m) {
    if (layout.meshRoots[m] == NO_BVH_ROOT) continue;
    const BvhStats& mesh = stats.meshes[m];
    stats.bottomLevels.buildMs += mesh.buildMs;
    stats.bottomLevels.nodes += mesh.nodes;
    stats.bottomLevels.leaves += mesh.leaves;
    stats.bottomLevels.primitives += mesh.primitives;
    stats.bottomLevels.bytes += mesh.bytes;
    stats.bottomLevels.depth = std::max(stats.bottomLevels.depth, mesh.depth);
    weightedSah += mesh.sahCost * double(mesh.primitives);
  }
  if (stats.bottomLevels.primitives > 0)
    stats.bottomLevels.sahCost = weightedSah / double(stats.bottomLevels.primitives);

  for (uint32_t i : topTree.primitiveOrder) {
    const uint32_t instance = topInstances[i];
    const std::array<gpu::vec4, 3> rows = worldToObjectRows(scene.instances[instance]);
    layout.instances.push_back({.worldToObject = {rows[0], rows[1], rows[2]},
                                .instance = instance,
                                .rootNode = layout.meshRoots[scene.instanceMeshes[instance]]});
  }
  stats.stackEntries = stats.topLevel.depth + 1 + stats.bottomLevels.depth;
  stats.bytes = layout.nodes.size() * sizeof(Node) + layout.triangles.size() * sizeof(gpu::BvhTriangle) +
                layout.instances.size() * sizeof(gpu::BvhInstance);
}

}  // namespace

std::array<gpu::vec4, 3> worldToObjectRows(const gpu::Instance& instance) {
  // normalToWorld holds the inverse transpose of the 3x3, so its columns are the inverse's rows.
  const gpu::vec4* n = instance.normalToWorld;
  const double t[3] = {instance.objectToWorld[0].w, instance.objectToWorld[1].w, instance.objectToWorld[2].w};
  std::array<gpu::vec4, 3> rows;
  const float inverse[3][3] = {{n[0].x, n[1].x, n[2].x}, {n[0].y, n[1].y, n[2].y}, {n[0].z, n[1].z, n[2].z}};
  for (int r = 0; r < 3; ++r) {
    const double translation = -(inverse[r][0] * t[0] + inverse[r][1] * t[1] + inverse[r][2] * t[2]);
    rows[r] = {inverse[r][0], inverse[r][1], inverse[r][2], static_cast<float>(translation)};
  }
  return rows;
}

SoftwareBvh buildSoftwareBvh(const SceneData& scene, const BvhBuildOptions& options) {
  const auto start = Clock::now();
  const unsigned threads = threadsToUse(options.threads);
  ThreadBudget budget(threads);

  // Largest first, so that the mesh the build ends on is a small one.
  std::vector<uint32_t> order(scene.meshes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return meshTriangleCount(scene, scene.meshes[a]) > meshTriangleCount(scene, scene.meshes[b]);
  });
  std::vector<MeshBuild> meshes(scene.meshes.size());
  parallelFor(budget, order.size(),
              [&](size_t i) { meshes[order[i]] = buildMesh(scene, scene.meshes[order[i]], options, budget); });

  // Instances of meshes without triangles have nothing to hit and stay out of the top level.
  std::vector<uint32_t> topInstances;
  std::vector<Bounds> instanceBounds;
  for (uint32_t i = 0; i < scene.instances.size(); ++i) {
    const LevelBuild& mesh = meshes[scene.instanceMeshes[i]].level;
    if (mesh.primitiveCount == 0) continue;
    topInstances.push_back(i);
    instanceBounds.push_back(worldBounds(scene.instances[i], mesh.bounds));
  }
  const LevelBuild top = buildLevel(instanceBounds, options, budget);

  SoftwareBvh bvh;
  const auto assembleStart = Clock::now();
  forkJoin(
      budget, true,
      [&] {
        if (builds(options, BvhLayout::Bvh2))
          assemble(scene, meshes, top, topInstances, bvh.bvh2, bvh.stats.bvh2, budget);
      },
      [&] {
        if (builds(options, BvhLayout::Cwbvh))
          assemble(scene, meshes, top, topInstances, bvh.cwbvh, bvh.stats.cwbvh, budget);
      });
  bvh.stats.assembleMs = msSince(assembleStart);
  bvh.stats.threads = threads;
  bvh.stats.binCount = options.binary.binCount;
  bvh.stats.costs = options.costs;
  bvh.stats.binaryBuildMs = top.binaryMs;
  for (const MeshBuild& mesh : meshes) bvh.stats.binaryBuildMs += mesh.level.binaryMs;
  bvh.stats.buildMs = msSince(start);
  return bvh;
}

}  // namespace ptbench
