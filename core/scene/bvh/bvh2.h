// The two-wide layout (shared/bvh.h, Bvh2Node) collapsed from a binary BVH.
#pragma once
#include "core/scene/bvh/binary_bvh.h"
#include "core/scene/bvh/bvh_tree.h"
#include "shared/bvh.h"

namespace ptbench {

// A subtree of at most BVH2_MAX_LEAF_SIZE primitives becomes a leaf where that lowers the SAH
// cost (bottom-up, so the choice is optimal for the binary tree's topology). The root is
// always a node: a tree of one primitive has one leaf and one empty child.
// The costs are found, and the nodes written, on the threads `budget` spares.
BvhTree<gpu::Bvh2Node> collapseToBvh2(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget);
// The same tree, its tables in `scratch`.
BvhTree<gpu::Bvh2Node> collapseToBvh2(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget,
                                      CollapseScratch& scratch);

}  // namespace ptbench
