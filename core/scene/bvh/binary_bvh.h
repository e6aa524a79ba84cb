// A binary BVH over boxes by the binned surface area heuristic (Wald 2007, "On fast
// Construction of SAH-based Bounding Volume Hierarchies"): the tree both software layouts are
// collapsed from (bvh2.h, cwbvh.h).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/scene/bvh/thread_budget.h"
#include "core/scene/huge_pages.h"
#include "core/scene/scene_data.h"

namespace ptbench {

// The surface area heuristic's cost model: a ray that reaches a node reaches its child with the
// probability (child area / node area); visiting an inner node costs `node`, a leaf `primitive`
// per primitive. The collapses into both layouts minimise it and every reported SAH cost is in
// these units (per ray entering the root). A primitive at 0.3 of a node: a wide node's visit
// (eight box tests after decoding the quantised boxes) costs several triangle tests, and this is
// the ratio with which the collapse fills wide nodes well; for the two-wide layout it gives
// leaves of two to four triangles.
struct SahCosts {
  float node = 1.0f;
  float primitive = 0.3f;
};

struct BinaryBvhOptions {
  // Split candidates per axis and node (16 to 32 is the usual range: more bins find splits
  // within a few percent of the full sweep's cost; fewer build faster).
  uint32_t binCount = 32;
  // A subtree with at least this many primitives may be built on a thread of its own.
  uint32_t parallelThreshold = 8192;
  // A node over at least this many primitives shares its own passes (its bounds, bins and
  // partition) among the threads the budget spares, in chunks of a quarter of this: the nodes
  // at the top, before enough subtrees have forked to fill the threads, would otherwise run on
  // one. Such a node partitions stably, so the tree does not depend on how many threads shared it.
  uint32_t parallelNodeThreshold = 65536;
};

struct BinaryBvhNode {
  Bounds bounds;
  uint32_t firstPrimitive = 0;  // into BinaryBvh::primitiveOrder; a subtree's primitives are contiguous
  uint32_t primitiveCount = 0;  // 1 in a leaf
  uint32_t rightChild = 0;      // an inner node's; its left child is the next node
};

// Built down to one primitive per leaf, as Ylitie et al. build theirs: each layout decides its
// own leaves when it collapses the tree, within its own leaf size limit. A tree over n
// primitives then has exactly 2n - 1 nodes in depth-first order, so every subtree's place is
// known before it is built and the result does not depend on the number of threads.
struct BinaryBvh {
  // Sized without being written (the build writes every node, on the threads that build its
  // subtrees): 72 bytes a primitive that one thread would otherwise fill with default nodes.
  UninitialisedArray<BinaryBvhNode> nodes;
  std::vector<uint32_t> primitiveOrder;  // primitive indices in leaf order

  static bool isLeaf(const BinaryBvhNode& node) { return node.primitiveCount == 1; }
  static uint32_t leftChild(uint32_t node) { return node + 1; }
};

// Primitives whose centroids coincide on every axis cannot be told apart by binning; they are
// split in half by index.
BinaryBvh buildBinaryBvh(std::span<const Bounds> primitives, const BinaryBvhOptions& options, ThreadBudget& budget);
// The same tree into `bvh`, whose arrays are reused (all they held is overwritten), working in
// `scratch` (the primitives' refs and a stable partition's second array, 64 bytes a primitive),
// which is dead once the tree is built.
void buildBinaryBvh(std::span<const Bounds> primitives, const BinaryBvhOptions& options, ThreadBudget& budget,
                    BinaryBvh& bvh, ScratchMemory& scratch);

// visit(n) for every node of the subtree at `root`, both children before their parent, as the
// collapses' bottom-up costs need: a subtree over m primitives is its root and the 2m - 2 nodes
// after it, swept backwards, and the two subtrees of a node over at least `forkPrimitives` go
// to threads the budget spares.
template <typename Visit>
void visitBottomUp(const BinaryBvh& bvh, ThreadBudget& budget, const Visit& visit, uint32_t root = 0,
                   uint32_t forkPrimitives = 8192) {
  const uint32_t count = bvh.nodes[root].primitiveCount;
  if (count < forkPrimitives) {
    for (uint32_t n = root + 2 * count - 1; n-- > root;) visit(n);
    return;
  }
  forkJoin(
      budget, true, [&] { visitBottomUp(bvh, budget, visit, BinaryBvh::leftChild(root), forkPrimitives); },
      [&] { visitBottomUp(bvh, budget, visit, bvh.nodes[root].rightChild, forkPrimitives); });
  visit(root);
}

}  // namespace ptbench
