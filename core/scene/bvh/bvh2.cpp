#include "core/scene/bvh/bvh2.h"

#include <algorithm>
#include <limits>
#include <span>

#include "core/scene/huge_pages.h"

namespace ptbench {
namespace {

class Bvh2Collapse {
 public:
  Bvh2Collapse(const BinaryBvh& binary, const SahCosts& costs, CollapseScratch& scratch)
      : binary_(binary), costs_(costs) {
    // Both written for every node, children before parents, before any is read.
    resizeForOverwrite(scratch.cost, binary.nodes.size());
    resizeForOverwrite(scratch.makesLeaf, binary.nodes.size());
    cost_ = scratch.cost;
    makesLeaf_ = scratch.makesLeaf;
  }

  BvhTree<gpu::Bvh2Node> run(ThreadBudget& budget) {
    // One node per inner node of the binary tree at most.
    reserveInHugePages(tree_.nodes, binary_.primitiveOrder.size());
    reserveInHugePages(tree_.primitiveOrder, binary_.primitiveOrder.size());
    visitBottomUp(binary_, budget, [&](uint32_t n) { chooseLeaves(n); });
    const BinaryBvhNode& root = binary_.nodes[0];
    if (BinaryBvh::isLeaf(root)) {
      tree_.nodes.push_back(
          {.children = {leafChild(0),
                        {.boundsMin = toGpu(Bounds{}.min), .boundsMax = toGpu(Bounds{}.max), .primitiveCount = 0}}});
      tree_.sahCost = costs_.node + costs_.primitive;
      return std::move(tree_);
    }
    const float rootArea = root.bounds.halfArea();
    const float rootCost = rootArea * costs_.node + cost_[BinaryBvh::leftChild(0)] + cost_[root.rightChild];
    tree_.sahCost = rootArea > 0 ? rootCost / rootArea : 0;
    emitNode(0);
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
  }

  gpu::Bvh2Child leafChild(uint32_t n) {
    const BinaryBvhNode& node = binary_.nodes[n];
    const auto first = binary_.primitiveOrder.begin() + node.firstPrimitive;
    const gpu::Bvh2Child child{.boundsMin = toGpu(node.bounds.min),
                               .index = static_cast<uint32_t>(tree_.primitiveOrder.size()),
                               .boundsMax = toGpu(node.bounds.max),
                               .primitiveCount = node.primitiveCount};
    tree_.primitiveOrder.insert(tree_.primitiveOrder.end(), first, first + node.primitiveCount);
    ++tree_.leafCount;
    return child;
  }

  // Depth first, the left subtree first; returns the node's index.
  uint32_t emitNode(uint32_t n) {
    const auto index = static_cast<uint32_t>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    const uint32_t children[2] = {BinaryBvh::leftChild(n), binary_.nodes[n].rightChild};
    gpu::Bvh2Node node{};
    for (int i = 0; i < 2; ++i) {
      const uint32_t c = children[i];
      const Bounds& bounds = binary_.nodes[c].bounds;
      node.children[i] = makesLeaf_[c] ? leafChild(c)
                                       : gpu::Bvh2Child{.boundsMin = toGpu(bounds.min),
                                                        .index = emitNode(c),
                                                        .boundsMax = toGpu(bounds.max),
                                                        .primitiveCount = gpu::BVH2_INNER_CHILD};
    }
    tree_.nodes[index] = node;
    return index;
  }

  const BinaryBvh& binary_;
  const SahCosts& costs_;
  std::span<float> cost_;  // the subtree's least SAH cost, unnormalised (area-weighted)
  std::span<uint8_t> makesLeaf_;
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
