#include "core/scene/bvh/software_bvh.h"

#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "core/elapsed.h"
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
// The layouts' assembly copies nodes and triangles in pieces of this many, so that one large mesh
// spreads over the threads as many small ones do.
constexpr uint32_t elementsPerPiece = 65536;

// The process's CPU time so far, every thread's: the build's threads, and any other thread of the
// process that runs meanwhile (the GPU builder's driver threads). The total from the process's
// CPU clock, exact to the nanosecond; the kernel's part from getrusage, which splits a thread's
// time between user and kernel by the scheduler's ticks and may lag a running thread by one.
struct ProcessCpuTime {
  double totalMs = 0, systemMs = 0;
  static ProcessCpuTime now() {
    timespec total{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &total);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return {.totalMs = double(total.tv_sec) * 1e3 + double(total.tv_nsec) / 1e6,
            .systemMs = double(usage.ru_stime.tv_sec) * 1e3 + double(usage.ru_stime.tv_usec) / 1e3};
  }
};

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
  return hasLayout(options.layouts, layout);
}

// The memory a level's build works in, about 200 bytes a primitive: the boxes, the binary tree
// (which the collapses read and nothing keeps) and the build's and collapses' tables. A thread
// keeps one from mesh to mesh (ScratchPool): fresh arrays for every mesh made the kernel fault in
// and zero gigabytes of pages, the binary trees' time growing with the threads that did so at once.
struct LevelScratch {
  UninitialisedArray<Bounds> boxes;
  BinaryBvh binary;
  // cwbvh.cost is also the binary build's: its refs are dead once the tree is built, and the CWBVH
  // collapse's costs (56 bytes a primitive) take their place rather than fresh memory.
  CollapseScratch bvh2, cwbvh;
};

// LevelScratch for the mesh builds running at once: each takes one while it runs and gives it
// back, so there are never more than threads, and the meshes one thread builds in turn (largest
// first) reuse the first one's memory. What they held never reaches the trees.
class ScratchPool {
 public:
  std::unique_ptr<LevelScratch> take() {
    const std::lock_guard lock(mutex_);
    if (free_.empty()) return std::make_unique<LevelScratch>();
    std::unique_ptr<LevelScratch> scratch = std::move(free_.back());
    free_.pop_back();
    return scratch;
  }
  void giveBack(std::unique_ptr<LevelScratch> scratch) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(scratch));
  }
  // Frees them all, each on a thread of its own where the budget spares one (freeing a
  // gigabyte's pages takes the kernel a while), before the layouts' arrays are allocated.
  void release(ThreadBudget& budget) {
    parallelFor(budget, free_.size(), [&](size_t i) { free_[i].reset(); });
    free_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<LevelScratch>> free_;
};

// A level from its builder's trees (moved out of `built`) and binary tree: any layout asked for
// that the builder did not collapse itself is collapsed here (the collapses only read the binary
// tree: the second takes a thread when one is spare).
LevelBuild finishLevel(PrebuiltLevel& built, const BinaryBvh& binary, uint32_t primitiveCount, double binaryMs,
                       const BvhBuildOptions& options, ThreadBudget& budget, LevelScratch& scratch) {
  LevelBuild level{.primitiveCount = primitiveCount, .bounds = built.bounds, .binaryMs = binaryMs};
  if (built.bvh2) level.bvh2.tree = std::move(*built.bvh2);
  if (built.cwbvh) level.cwbvh.tree = std::move(*built.cwbvh);
  const bool collapsesBvh2 = builds(options, BvhLayout::Bvh2) && !built.bvh2;
  const bool collapsesCwbvh = builds(options, BvhLayout::Cwbvh) && !built.cwbvh;
  forkJoin(
      budget, collapsesBvh2 && collapsesCwbvh && primitiveCount >= options.binary.parallelThreshold,
      [&] {
        if (!collapsesBvh2) return;
        const auto collapseStart = Clock::now();
        level.bvh2.tree = collapseToBvh2(binary, options.costs, budget, scratch.bvh2);
        level.bvh2.ms = millisecondsSince(collapseStart);
      },
      [&] {
        if (!collapsesCwbvh) return;
        const auto collapseStart = Clock::now();
        level.cwbvh.tree = collapseToCwbvh(binary, options.costs, budget, scratch.cwbvh);
        level.cwbvh.ms = millisecondsSince(collapseStart);
      });
  return level;
}

// A level by the CPU's binned SAH build.
LevelBuild buildLevel(std::span<const Bounds> primitives, const BvhBuildOptions& options, ThreadBudget& budget,
                      LevelScratch& scratch) {
  const auto start = Clock::now();
  buildBinaryBvh(primitives, options.binary, budget, scratch.binary, scratch.cwbvh.cost);
  PrebuiltLevel built;
  if (!scratch.binary.nodes.empty()) built.bounds = scratch.binary.nodes[0].bounds;
  return finishLevel(built, scratch.binary, static_cast<uint32_t>(primitives.size()), millisecondsSince(start), options,
                     budget, scratch);
}

uint64_t meshTriangleCount(const SceneData& scene, const Mesh& mesh) {
  uint64_t count = 0;
  for (uint32_t g = mesh.firstGeometry; g < mesh.firstGeometry + mesh.geometryCount; ++g)
    count += scene.geometries[g].triangleCount;
  return count;
}

// A mesh's triangles as the layouts store them, by their index in the mesh's numbering: geometry
// by geometry, primitive by primitive.
class MeshTriangles {
 public:
  MeshTriangles(const SceneData& scene, const Mesh& mesh) : scene_(scene), mesh_(mesh) {
    uint32_t first = 0;
    for (uint32_t g = 0; g < mesh.geometryCount; ++g) {
      const gpu::Geometry& geometry = scene.geometries[mesh.firstGeometry + g];
      geometryFirsts_.push_back(first);
      flags_.push_back(
          gpu::materialNeedsCandidateTest(scene.materials[geometry.material]) ? gpu::BVH_TRIANGLE_NON_OPAQUE : 0);
      first += geometry.triangleCount;
    }
    count_ = first;
  }
  uint32_t count() const { return count_; }
  gpu::BvhTriangle operator[](uint32_t index) const {
    const auto g = static_cast<uint32_t>(std::upper_bound(geometryFirsts_.begin(), geometryFirsts_.end(), index) -
                                         geometryFirsts_.begin() - 1);
    const gpu::Geometry& geometry = scene_.geometries[mesh_.firstGeometry + g];
    const uint32_t primitive = index - geometryFirsts_[g];
    const auto position = [&](uint32_t corner) {
      return scene_.vertices[geometry.firstVertex + scene_.indices[geometry.firstIndex + 3 * primitive + corner]]
          .position;
    };
    return {.v0 = position(0),
            .geometry = g,
            .v1 = position(1),
            .primitive = primitive,
            .v2 = position(2),
            .flags = flags_[g]};
  }

 private:
  const SceneData& scene_;
  const Mesh& mesh_;
  std::vector<uint32_t> geometryFirsts_;  // each geometry's first triangle in the mesh's numbering
  std::vector<uint32_t> flags_;
  uint32_t count_ = 0;
};

// The boxes of a mesh's triangles, on as many threads as the budget spares; `boxes` is
// overwritten in full.
void meshBoxes(const MeshTriangles& triangles, ThreadBudget& budget, UninitialisedArray<Bounds>& boxes) {
  resizeForOverwrite(boxes, triangles.count());
  const Chunks chunks{.begin = 0, .end = triangles.count(), .size = trianglesPerChunk};
  parallelFor(budget, chunks.count(), [&](size_t c) {
    for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i) {
      const gpu::BvhTriangle t = triangles[i];
      Bounds box;
      box.extend(toVec3(t.v0));
      box.extend(toVec3(t.v1));
      box.extend(toVec3(t.v2));
      boxes[i] = box;
    }
  });
}

// A mesh's triangles into a layout's array from `into`, in the order its tree's leaves reference
// them, straight from the scene's vertices, in pieces on as many threads as the budget spares.
template <typename Node>
void placeTrianglesIn(const LevelBuild& level, const MeshTriangles& triangles, ThreadBudget& budget,
                      gpu::BvhTriangle* into) {
  const std::vector<uint32_t>& order = level.collapsed<Node>().tree.primitiveOrder;
  const Chunks pieces{.begin = 0, .end = static_cast<uint32_t>(order.size()), .size = elementsPerPiece};
  parallelFor(budget, pieces.count(), [&](size_t c) {
    for (uint32_t i = pieces.first(c); i < pieces.last(c); ++i) into[i] = triangles[order[i]];
  });
}

// A mesh's triangles into each layout's array built, from `firstTriangle` in its order there.
void placeTriangles(const LevelBuild& level, const MeshTriangles& triangles, const BvhBuildOptions& options,
                    ThreadBudget& budget, SoftwareBvh& bvh, uint64_t firstTriangle) {
  if (builds(options, BvhLayout::Bvh2))
    placeTrianglesIn<gpu::Bvh2Node>(level, triangles, budget, bvh.bvh2.triangles.data() + firstTriangle);
  if (builds(options, BvhLayout::Cwbvh))
    placeTrianglesIn<gpu::CwbvhNode>(level, triangles, budget, bvh.cwbvh.triangles.data() + firstTriangle);
}

// Every mesh's level by the levels builder (the GPU's), given all their boxes at once so that it
// can batch them: the boxes first (largest mesh first, on the budget's threads), then each mesh's
// triangles placed in the layouts' arrays from `firstTriangles` as its trees arrive, while the
// builder's later batches run. The boxes, 24 bytes a triangle, are all held at once (the CPU's
// build holds a thread's worth), each mesh's freed once it is placed.
void buildMeshesTogether(const SceneData& scene, std::span<const uint32_t> order, const BvhBuildOptions& options,
                         ThreadBudget& budget, std::span<const uint64_t> firstTriangles, SoftwareBvh& bvh,
                         std::vector<LevelBuild>& meshes) {
  std::vector<MeshTriangles> triangles;
  triangles.reserve(scene.meshes.size());
  for (const Mesh& mesh : scene.meshes) triangles.emplace_back(scene, mesh);
  std::vector<UninitialisedArray<Bounds>> boxes(scene.meshes.size());
  parallelFor(budget, order.size(), [&](size_t i) { meshBoxes(triangles[order[i]], budget, boxes[order[i]]); });
  const std::vector<std::span<const Bounds>> levels(boxes.begin(), boxes.end());
  ScratchPool scratchPool;
  options.levelsBuilder(levels, options.layouts, budget, [&](size_t mesh, PrebuiltLevel built) {
    std::unique_ptr<LevelScratch> scratch = scratchPool.take();
    meshes[mesh] = finishLevel(built, built.binary, static_cast<uint32_t>(levels[mesh].size()), built.buildMs, options,
                               budget, *scratch);
    scratchPool.giveBack(std::move(scratch));
    placeTriangles(meshes[mesh], triangles[mesh], options, budget, bvh, firstTriangles[mesh]);
    boxes[mesh] = {};
  });
  scratchPool.release(budget);
}

// A mesh's level, its triangles placed in the layouts' arrays from `firstTriangle` as soon as its
// trees give their order: the gigabytes of a large scene's triangles are copied while other meshes
// build (or wait for the GPU), where after the mesh loop nothing would be left to overlap them with.
LevelBuild buildMesh(const SceneData& scene, const Mesh& mesh, const BvhBuildOptions& options, ThreadBudget& budget,
                     LevelScratch& scratch, SoftwareBvh& bvh, uint64_t firstTriangle) {
  const MeshTriangles triangles(scene, mesh);
  meshBoxes(triangles, budget, scratch.boxes);
  LevelBuild level = buildLevel(scratch.boxes, options, budget, scratch);
  placeTriangles(level, triangles, options, budget, bvh, firstTriangle);
  return level;
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
// A wide node's inner children follow childBase, one for each bit of imask (shared/bvh.h): no
// need to decode every slot's box, as cwbvhChild does.
template <typename Visit>
void forEachInnerChild(const gpu::CwbvhNode& node, Visit&& visit) {
  const auto innerCount = static_cast<uint32_t>(std::popcount(node.exponentsAndImask >> 24));
  for (uint32_t i = 0; i < innerCount; ++i) visit(node.childBase + i);
}

// Nodes on the longest path from the root down: what bounds the traversal stack.
template <typename Node>
uint32_t treeDepth(const BvhTree<Node>& tree, ThreadBudget&) {
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

// The subtree at `root` of a BVH2 layout, which is depth first with the left child next: the
// subtree is its root and the nodes before `end`, where the next one begins, so that a large
// one's halves go to threads the budget spares (a mesh's two layouts' depths are the statistics'
// only passes over every node, and a large mesh's would otherwise end its assembly on one thread).
uint32_t subtreeDepth(std::span<const gpu::Bvh2Node> nodes, uint32_t root, uint32_t end, ThreadBudget& budget) {
  constexpr uint32_t forkNodes = 16384;
  uint32_t inner[2], innerCount = 0;
  forEachInnerChild(nodes[root], [&](uint32_t child) { inner[innerCount++] = child; });
  if (innerCount == 0) return 1;
  // A single inner child's subtree runs to the end, whichever side it is on.
  if (innerCount == 1) return 1 + subtreeDepth(nodes, inner[0], end, budget);
  uint32_t left = 0, right = 0;
  forkJoin(
      budget, end - root >= forkNodes, [&] { left = subtreeDepth(nodes, inner[0], inner[1], budget); },
      [&] { right = subtreeDepth(nodes, inner[1], end, budget); });
  return 1 + std::max(left, right);
}
uint32_t treeDepth(const BvhTree<gpu::Bvh2Node>& tree, ThreadBudget& budget) {
  if (tree.nodes.empty()) return 0;
  return subtreeDepth(tree.nodes, 0, static_cast<uint32_t>(tree.nodes.size()), budget);
}

template <typename Node>
BvhStats levelStats(const LevelBuild& level, size_t leafEntryBytes, ThreadBudget& budget) {
  const Collapsed<Node>& collapsed = level.collapsed<Node>();
  return {.buildMs = level.binaryMs + collapsed.ms,
          .depth = treeDepth(collapsed.tree, budget),
          .nodes = collapsed.tree.nodes.size(),
          .leaves = collapsed.tree.leafCount,
          .primitives = level.primitiveCount,
          .sahCost = collapsed.tree.sahCost,
          .bytes = collapsed.tree.nodes.size() * sizeof(Node) + level.primitiveCount * leafEntryBytes};
}

// A part of the layouts' assembly that runs beside the others: a mesh's statistics, or a range
// of its nodes copied into one layout's array.
struct Piece {
  enum class Kind { Statistics, Nodes };
  BvhLayout layout;
  Kind kind;
  uint32_t mesh;
  uint32_t begin = 0, end = 0;
};

// One layout's nodes assembled from the levels: each mesh's place in them and the node array
// sized (place), then the pieces (on as many threads as the budget spares, both layouts' at
// once), then the sums and the instance entries (finish). The triangles are in place already:
// each mesh's build put them there (buildMesh).
template <typename Node>
class LayoutAssembly {
 public:
  LayoutAssembly(const SceneData& scene, const std::vector<LevelBuild>& meshes,
                 const std::vector<uint64_t>& firstTriangles, const LevelBuild& top,
                 const std::vector<uint32_t>& topInstances, SoftwareBvhLayout<Node>& layout, BvhLayoutStats& stats)
      : scene_(scene),
        meshes_(meshes),
        firstTriangles_(firstTriangles),
        top_(top),
        topInstances_(topInstances),
        layout_(layout),
        stats_(stats) {}

  void place(ThreadBudget& budget) {
    stats_.built = true;
    const BvhTree<Node>& topTree = top_.collapsed<Node>().tree;
    layout_.nodes.assign(topTree.nodes.begin(), topTree.nodes.end());
    if (layout_.nodes.empty()) layout_.nodes.push_back(emptyRoot<Node>());
    stats_.topLevel = levelStats<Node>(top_, sizeof(gpu::BvhInstance), budget);
    stats_.topLevel.nodes = layout_.nodes.size();

    stats_.meshes.assign(meshes_.size(), {});
    layout_.meshRoots.assign(meshes_.size(), NO_BVH_ROOT);
    size_t nodeCount = layout_.nodes.size();
    for (size_t m = 0; m < meshes_.size(); ++m) {
      const BvhTree<Node>& tree = meshes_[m].collapsed<Node>().tree;
      if (tree.nodes.empty()) continue;
      layout_.meshRoots[m] = static_cast<uint32_t>(nodeCount);
      nodeCount += tree.nodes.size();
    }
    resizeInHugePages(layout_.nodes, nodeCount);
  }
  void addPieces(BvhLayout layout, std::vector<Piece>& pieces) const {
    for (uint32_t m = 0; m < meshes_.size(); ++m) {
      const size_t nodes = meshes_[m].collapsed<Node>().tree.nodes.size();
      if (nodes == 0) continue;
      pieces.push_back({.layout = layout, .kind = Piece::Kind::Statistics, .mesh = m});
      for (size_t begin = 0; begin < nodes; begin += elementsPerPiece)
        pieces.push_back({.layout = layout,
                          .kind = Piece::Kind::Nodes,
                          .mesh = m,
                          .begin = static_cast<uint32_t>(begin),
                          .end = static_cast<uint32_t>(std::min(nodes, begin + elementsPerPiece))});
    }
  }

  void run(const Piece& piece, ThreadBudget& budget) {
    const LevelBuild& mesh = meshes_[piece.mesh];
    const BvhTree<Node>& tree = mesh.collapsed<Node>().tree;
    switch (piece.kind) {
      case Piece::Kind::Statistics:
        stats_.meshes[piece.mesh] = levelStats<Node>(mesh, sizeof(gpu::BvhTriangle), budget);
        break;
      case Piece::Kind::Nodes: {
        const uint32_t nodeOffset = layout_.meshRoots[piece.mesh];
        const auto triangleOffset = static_cast<uint32_t>(firstTriangles_[piece.mesh]);
        for (uint32_t n = piece.begin; n < piece.end; ++n) {
          Node node = tree.nodes[n];
          offsetIndices(node, nodeOffset, triangleOffset);
          layout_.nodes[nodeOffset + n] = node;
        }
        break;
      }
    }
  }

  void finish() {
    double weightedSah = 0;
    for (size_t m = 0; m < meshes_.size(); ++m) {
      if (layout_.meshRoots[m] == NO_BVH_ROOT) continue;
      const BvhStats& mesh = stats_.meshes[m];
      stats_.bottomLevels.buildMs += mesh.buildMs;
      stats_.bottomLevels.nodes += mesh.nodes;
      stats_.bottomLevels.leaves += mesh.leaves;
      stats_.bottomLevels.primitives += mesh.primitives;
      stats_.bottomLevels.bytes += mesh.bytes;
      stats_.bottomLevels.depth = std::max(stats_.bottomLevels.depth, mesh.depth);
      weightedSah += mesh.sahCost * double(mesh.primitives);
    }
    if (stats_.bottomLevels.primitives > 0)
      stats_.bottomLevels.sahCost = weightedSah / double(stats_.bottomLevels.primitives);

    const BvhTree<Node>& topTree = top_.collapsed<Node>().tree;
    layout_.instances.reserve(topTree.primitiveOrder.size());
    for (uint32_t i : topTree.primitiveOrder) {
      const uint32_t instance = topInstances_[i];
      const std::array<gpu::vec4, 3> rows = worldToObjectRows(scene_.instances[instance]);
      layout_.instances.push_back({.worldToObject = {rows[0], rows[1], rows[2]},
                                   .instance = instance,
                                   .rootNode = layout_.meshRoots[scene_.instanceMeshes[instance]]});
    }
    stats_.stackEntries = stats_.topLevel.depth + 1 + stats_.bottomLevels.depth;
    stats_.bytes = layout_.nodes.size() * sizeof(Node) + layout_.triangles.size() * sizeof(gpu::BvhTriangle) +
                   layout_.instances.size() * sizeof(gpu::BvhInstance);
  }

 private:
  const SceneData& scene_;
  const std::vector<LevelBuild>& meshes_;
  const std::vector<uint64_t>& firstTriangles_;  // each mesh's first triangle in the layout's array
  const LevelBuild& top_;
  const std::vector<uint32_t>& topInstances_;
  SoftwareBvhLayout<Node>& layout_;
  BvhLayoutStats& stats_;
};

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
  const ProcessCpuTime cpuStart = ProcessCpuTime::now();
  const unsigned threads = threadsToUse(options.threads);
  ThreadBudget budget(threads);

  // Largest first, so that the mesh the build ends on is a small one.
  std::vector<uint32_t> order(scene.meshes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return meshTriangleCount(scene, scene.meshes[a]) > meshTriangleCount(scene, scene.meshes[b]);
  });
  // Each layout's triangle array holds every mesh's triangles once, in mesh order: the build's
  // largest arrays, written by the meshes' builds as each finishes.
  SoftwareBvh bvh;
  const bool buildsBvh2 = builds(options, BvhLayout::Bvh2), buildsCwbvh = builds(options, BvhLayout::Cwbvh);
  std::vector<uint64_t> firstTriangles(scene.meshes.size());
  uint64_t sceneTriangles = 0;
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    firstTriangles[m] = sceneTriangles;
    sceneTriangles += meshTriangleCount(scene, scene.meshes[m]);
  }
  if (buildsBvh2) resizeInHugePages(bvh.bvh2.triangles, sceneTriangles);
  if (buildsCwbvh) resizeInHugePages(bvh.cwbvh.triangles, sceneTriangles);

  std::vector<LevelBuild> meshes(scene.meshes.size());
  if (options.levelsBuilder) {
    buildMeshesTogether(scene, order, options, budget, firstTriangles, bvh, meshes);
  } else {
    ScratchPool scratchPool;
    parallelFor(budget, order.size(), [&](size_t i) {
      const uint32_t mesh = order[i];
      std::unique_ptr<LevelScratch> scratch = scratchPool.take();
      meshes[mesh] = buildMesh(scene, scene.meshes[mesh], options, budget, *scratch, bvh, firstTriangles[mesh]);
      scratchPool.giveBack(std::move(scratch));
    });
    scratchPool.release(budget);
  }

  // Instances of meshes without triangles have nothing to hit and stay out of the top level.
  std::vector<uint32_t> topInstances;
  std::vector<Bounds> instanceBounds;
  for (uint32_t i = 0; i < scene.instances.size(); ++i) {
    const LevelBuild& mesh = meshes[scene.instanceMeshes[i]];
    if (mesh.primitiveCount == 0) continue;
    topInstances.push_back(i);
    instanceBounds.push_back(worldBounds(scene.instances[i], mesh.bounds));
  }
  LevelScratch topScratch;
  LevelBuild top;
  if (options.levelsBuilder) {
    const std::span<const Bounds> topLevel[] = {instanceBounds};
    options.levelsBuilder(topLevel, options.layouts, budget, [&](size_t, PrebuiltLevel built) {
      top = finishLevel(built, built.binary, static_cast<uint32_t>(instanceBounds.size()), built.buildMs, options,
                        budget, topScratch);
    });
  } else {
    top = buildLevel(instanceBounds, options, budget, topScratch);
  }

  const auto assembleStart = Clock::now();
  LayoutAssembly<gpu::Bvh2Node> bvh2(scene, meshes, firstTriangles, top, topInstances, bvh.bvh2, bvh.stats.bvh2);
  LayoutAssembly<gpu::CwbvhNode> cwbvh(scene, meshes, firstTriangles, top, topInstances, bvh.cwbvh, bvh.stats.cwbvh);
  if (buildsBvh2) bvh2.place(budget);
  if (buildsCwbvh) cwbvh.place(budget);
  std::vector<Piece> pieces;
  if (buildsBvh2) bvh2.addPieces(BvhLayout::Bvh2, pieces);
  if (buildsCwbvh) cwbvh.addPieces(BvhLayout::Cwbvh, pieces);
  parallelFor(budget, pieces.size(), [&](size_t i) {
    const Piece& piece = pieces[i];
    if (piece.layout == BvhLayout::Bvh2)
      bvh2.run(piece, budget);
    else
      cwbvh.run(piece, budget);
  });
  if (buildsBvh2) bvh2.finish();
  if (buildsCwbvh) cwbvh.finish();
  bvh.stats.assembleMs = millisecondsSince(assembleStart);
  bvh.stats.threads = threads;
  bvh.stats.binCount = options.binary.binCount;
  bvh.stats.costs = options.costs;
  bvh.stats.binaryBuildMs = top.binaryMs;
  for (const LevelBuild& mesh : meshes) bvh.stats.binaryBuildMs += mesh.binaryMs;
  bvh.stats.buildMs = millisecondsSince(start);
  const ProcessCpuTime cpuEnd = ProcessCpuTime::now();
  bvh.stats.cpuMs = cpuEnd.totalMs - cpuStart.totalMs;
  bvh.stats.systemCpuMs = std::clamp(cpuEnd.systemMs - cpuStart.systemMs, 0.0, bvh.stats.cpuMs);
  // The meshes' trees are nearly as large as the layouts' nodes: freed on several threads too.
  parallelFor(budget, meshes.size(), [&](size_t m) { meshes[m] = {}; });
  return bvh;
}

}  // namespace ptbench
