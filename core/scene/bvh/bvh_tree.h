// One tree in one of the software layouts, before it joins the scene's arrays (software_bvh.h).
#pragma once
#include <cstdint>
#include <vector>

#include "core/scene/huge_pages.h"

namespace ptbench {

template <typename Node>
struct BvhTree {
  std::vector<Node> nodes;               // the root first; node and primitive indices start at 0
  std::vector<uint32_t> primitiveOrder;  // the binary tree's primitives, in the order the leaves reference them
  uint64_t leafCount = 0;
  double sahCost = 0;  // SahCosts units per ray entering the root, with the exact boxes
};

// The tables a collapse's dynamic programme fills, a few bytes per binary node: kept by the
// thread that builds several meshes, so that each reuses the memory the one before faulted in.
// Every entry the programme reads it has written first, whatever the arrays held before.
struct CollapseScratch {
  ScratchMemory cost;  // in a LevelScratch's CWBVH tables, also the binary build's refs
  UninitialisedArray<uint8_t> split;
  UninitialisedArray<uint8_t> makesLeaf;
  UninitialisedArray<uint32_t> subtreeNodes;  // BVH2's: the nodes each subtree emits
  UninitialisedArray<uint32_t> levels;        // CWBVH's emission, a level at a time: two levels' binary nodes
};

}  // namespace ptbench
