#include "core/scene/bvh/bvh2.h"

#include <algorithm>
#include <limits>
#include <span>

#include "core/scene/huge_pages.h"

namespace ptbench {
namespace {

// Subtrees of at least this many primitives are emitted on threads the budget spares, as
// visitBottomUp finds their costs.
constexpr uint32_t forkPrimitives = 8192;

class Bvh2Collapse {
 public:
  Bvh2Collapse(const BinaryBvh& binary, const SahCosts& costs, CollapseScratch& scratch)
      : binary_(binary), costs_(costs) {
    // All written for every node, children before parents, before any is read.
    resizeForOverwrite(scratch.makesLeaf, binary.nodes.size());
    resizeForOverwrite(scratch.subtreeNodes, binary.nodes.size());
    cost_ = scratch.cost.take<float>(binary.nodes.size());
    makesLeaf_ = scratch.makesLeaf;
    subtreeNodes_ = scratch.subtreeNodes;
  }

  BvhTree<gpu::Bvh2Node> run(ThreadBudget& budget) {
    visitBottomUp(
        binary_, budget, [&](uint32_t n) { chooseLeaves(n); }, 0, forkPrimitives);
    // Leaves cover the binary tree's leaves' ranges, and the emission visits them left to right:
    // the leaf order is the binary tree's.
    reserveTouchedInHugePages(tree_.primitiveOrder, binary_.primitiveOrder.size(), budget);
    tree_.primitiveOrder.assign(binary_.primitiveOrder.begin(), binary_.primitiveOrder.end());
    const BinaryBvhNode& root = binary_.nodes[0];
    if (BinaryBvh::isLeaf(root)) {
      tree_.nodes.push_back(
          {.children = {leafChild(0),
                        {.boundsMin = toGpu(Bounds{}.min), .boundsMax = toGpu(Bounds{}.max), .primitiveCount = 0}}});
      tree_.leafCount = 1;
      tree_.sahCost = costs_.node + costs_.primitive;
      return std::move(tree_);
    }
    const float rootArea = root.bounds.halfArea();
    const float rootCost = rootArea * costs_.node + cost_[BinaryBvh::leftChild(0)] + cost_[root.rightChild];
    tree_.sahCost = rootArea > 0 ? rootCost / rootArea : 0;
    // The root is a node even where a leaf would cost less.
    const uint32_t nodeCount = 1 + subtreeNodes_[BinaryBvh::leftChild(0)] + subtreeNodes_[root.rightChild];
    reserveTouchedInHugePages(tree_.nodes, nodeCount, budget);
    tree_.nodes.resize(nodeCount);
    // Every node has two children, one fewer inner children than nodes.
    tree_.leafCount = uint64_t{nodeCount} + 1;
    emitNode(0, 0, budget);
    return std::move(tree_);
  }

 private:
  void chooseLeaves(uint32_t n) {
    const BinaryBvhNode& node = binary_.nodes[n];
    const float area = node.bounds.halfArea();
    const float leafCost = node.primitiveCount <= gpu::BVH2_MAX_LEAF_SIZE
                               ? area * float(node.primitiveCount) * costs_.primitive
                               : std::numeric_limits<float>::infinity();
    const float innerCost = BinaryBvh::isLeaf(node)
                                ? std::numeric_limits<float>::infinity()
                                : area * costs_.node + cost_[BinaryBvh::leftChild(n)] + cost_[node.rightChild];
    makesLeaf_[n] = leafCost <= innerCost;
    cost_[n] = std::min(leafCost, innerCost);
    subtreeNodes_[n] = makesLeaf_[n] ? 0 : 1 + subtreeNodes_[BinaryBvh::leftChild(n)] + subtreeNodes_[node.rightChild];
  }

  gpu::Bvh2Child leafChild(uint32_t n) const {
    const BinaryBvhNode& node = binary_.nodes[n];
    return {.boundsMin = toGpu(node.bounds.min),
            .index = node.firstPrimitive,
            .boundsMax = toGpu(node.bounds.max),
            .primitiveCount = node.primitiveCount};
  }

  // Depth first, the left subtree first, binary node n as node `index`: a subtree's nodes follow
  // its root, so the right child's place is the left subtree's size past the left child's.
  void emitNode(uint32_t n, uint32_t index, ThreadBudget& budget) {
    const uint32_t children[2] = {BinaryBvh::leftChild(n), binary_.nodes[n].rightChild};
    uint32_t childIndex[2] = {0, 0};
    uint32_t next = index + 1;
    gpu::Bvh2Node node{};
    for (int i = 0; i < 2; ++i) {
      const uint32_t c = children[i];
      if (makesLeaf_[c]) {
        node.children[i] = leafChild(c);
        continue;
      }
      const Bounds& bounds = binary_.nodes[c].bounds;
      childIndex[i] = next;
      node.children[i] = {.boundsMin = toGpu(bounds.min),
                          .index = next,
                          .boundsMax = toGpu(bounds.max),
                          .primitiveCount = gpu::BVH2_INNER_CHILD};
      next += subtreeNodes_[c];
    }
    tree_.nodes[index] = node;
    const auto emitChild = [&](int i) {
      if (!makesLeaf_[children[i]]) emitNode(children[i], childIndex[i], budget);
    };
    forkJoin(
        budget, binary_.nodes[n].primitiveCount >= forkPrimitives, [&] { emitChild(0); }, [&] { emitChild(1); });
  }

  const BinaryBvh& binary_;
  const SahCosts& costs_;
  std::span<float> cost_;  // the subtree's least SAH cost, unnormalised (area-weighted)
  std::span<uint8_t> makesLeaf_;
  std::span<uint32_t> subtreeNodes_;  // the nodes the subtree emits: 0 where it makes a leaf
  BvhTree<gpu::Bvh2Node> tree_;
};

}  // namespace

BvhTree<gpu::Bvh2Node> collapseToBvh2(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget,
                                      CollapseScratch& scratch) {
  if (binary.nodes.empty()) return {};
  return Bvh2Collapse(binary, costs, scratch).run(budget);
}

BvhTree<gpu::Bvh2Node> collapseToBvh2(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget) {
  CollapseScratch scratch;
  return collapseToBvh2(binary, costs, budget, scratch);
}

}  // namespace ptbench
