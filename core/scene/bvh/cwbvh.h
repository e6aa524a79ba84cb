// The compressed 8-wide layout of Ylitie, Karras & Laine 2017 (shared/bvh.h, CwbvhNode),
// collapsed from a binary BVH, and the decoding the reference traversal and the tests share.
#pragma once
#include <optional>

#include "core/scene/bvh/binary_bvh.h"
#include "core/scene/bvh/bvh_tree.h"
#include "shared/bvh.h"

namespace ptbench {

// The paper's SAH-optimal collapse: a dynamic programme over the binary tree finds, for every
// binary node and every i up to 7, the cheapest way to represent its subtree as at most i
// wide-tree roots (each a leaf of at most CWBVH_MAX_LEAF_SIZE primitives or a wide node), and
// each wide node takes the cheapest split of its binary subtree into at most 8 such roots. The
// greedy alternative (open the child of largest surface area until 8 are open) is simpler but
// cannot trade a wide node's fan-out against leaf sizes, and leaves here are capped at 3
// primitives by the meta byte, where that trade matters most. Child slots are then assigned by
// octant (shared/bvh.h), greedily: the (child, slot) pair whose centre lies farthest towards the
// slot's corner is placed first.
// The programme and the emission run on the threads `budget` spares.
BvhTree<gpu::CwbvhNode> collapseToCwbvh(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget);
// The same tree, its tables in `scratch`.
BvhTree<gpu::CwbvhNode> collapseToCwbvh(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget,
                                        CollapseScratch& scratch);

struct CwbvhChild {
  bool inner = false;
  uint32_t index = 0;           // an inner child's node; a leaf's first primitive
  uint32_t primitiveCount = 0;  // a leaf's
  Bounds bounds;                // decoded in float: it contains the exact box
};

// The child in a slot, or none for an empty slot.
std::optional<CwbvhChild> cwbvhChild(const gpu::CwbvhNode& node, uint32_t slot);

}  // namespace ptbench
