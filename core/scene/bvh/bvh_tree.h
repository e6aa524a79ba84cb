// One tree in one of the software layouts, before it joins the scene's arrays (software_bvh.h).
#pragma once
#include <cstdint>
#include <vector>

namespace ptbench {

template <typename Node>
struct BvhTree {
  std::vector<Node> nodes;               // the root first; node and primitive indices start at 0
  std::vector<uint32_t> primitiveOrder;  // the binary tree's primitives, in the order the leaves reference them
  uint64_t leafCount = 0;
  double sahCost = 0;  // SahCosts units per ray entering the root, with the exact boxes
};

}  // namespace ptbench
