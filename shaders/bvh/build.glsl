// What the BVH builder's kernels share: the buffer types their push constants point to.
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "shared/bvh.h"
#include "shared/bvh_build.h"

layout(buffer_reference, scalar) buffer UintArray { uint values[]; };
layout(buffer_reference, scalar) buffer BoundsArray { BuildBounds bounds[]; };
layout(buffer_reference, scalar) buffer KarrasNodeArray { KarrasNode nodes[]; };
layout(buffer_reference, scalar) buffer BuildNodeArray { BuildNode nodes[]; };
layout(buffer_reference, scalar) buffer FloatArray { float values[]; };
layout(buffer_reference, scalar) buffer Bvh2NodeArray { Bvh2Node nodes[]; };
layout(buffer_reference, scalar) buffer Bvh2CollapseSummaryRef { Bvh2CollapseSummary summary; };
// For the bottom-up climbs (lbvh_fit.comp, lbvh_treelets.comp): what one invocation
// writes below a node is read by the one that arrives there second.
layout(buffer_reference, scalar) coherent buffer CoherentBoundsArray { BuildBounds bounds[]; };
layout(buffer_reference, scalar) coherent buffer CoherentUintArray { uint values[]; };
layout(buffer_reference, scalar) coherent buffer CoherentFloatArray { float values[]; };
layout(buffer_reference, scalar) coherent buffer CoherentKarrasNodeArray { KarrasNode nodes[]; };

// Every element of a per-element kernel, however many workgroups were launched.
#define FOR_EACH_ELEMENT(index, count) \
  for (uint index = gl_GlobalInvocationID.x; index < (count); index += gl_NumWorkGroups.x * gl_WorkGroupSize.x)

BuildBounds unite(BuildBounds a, BuildBounds b) {
  return BuildBounds(min(a.min, b.min), max(a.max, b.max));
}

// BVH2's choice of leaves, core/scene/bvh/bvh2.cpp's chooseLeaves operation for operation
// (`precise`: no fused multiply-adds), so that the GPU's collapse of a binary tree is the CPU's.
float halfArea(BuildBounds box) {
  if (box.min.x > box.max.x) return 0;
  const precise vec3 d = box.max - box.min;
  const precise float area = d.x * d.y + d.y * d.z + d.z * d.x;
  return area;
}

struct Bvh2Choice {
  float cost;  // the subtree's least cost, area-weighted
  bool makesLeaf;
};

// A node over `primitives` with box `box`; an inner node's children cost `left` and `right`.
Bvh2Choice chooseBvh2Leaf(BuildBounds box, uint primitives, bool inner, float left, float right, float nodeCost,
                          float primitiveCost) {
  const float infinity = uintBitsToFloat(0x7f800000u);
  const precise float area = halfArea(box);
  const precise float leafCost =
      primitives <= BVH2_MAX_LEAF_SIZE ? area * float(primitives) * primitiveCost : infinity;
  const precise float innerCost = inner ? area * nodeCost + left + right : infinity;
  return Bvh2Choice(min(leafCost, innerCost), leafCost <= innerCost);
}

// A node's least BVH2 cost in the treelet rounds (lbvh_treelets.comp):
// chooseBvh2Leaf's, but with the children's costs summed first, as the treelets' programme sums a
// split's two parts, so that the programme's cost of a treelet's present arrangement is the
// node's to the bit and "cheaper" means cheaper. The fit recomputes every cost afterwards with
// chooseBvh2Leaf, so the collapses still see the CPU's operations.
float treeletCost(float area, uint primitives, float children, float nodeCost, float primitiveCost) {
  const float infinity = uintBitsToFloat(0x7f800000u);
  const precise float leafCost = primitives <= BVH2_MAX_LEAF_SIZE ? area * float(primitives) * primitiveCost : infinity;
  const precise float innerCost = area * nodeCost + children;
  return min(leafCost, innerCost);
}

layout(buffer_reference, scalar) buffer CwbvhChoiceArray { CwbvhChoice choices[]; };
layout(buffer_reference, scalar) buffer CwbvhNodeArray { CwbvhNode nodes[]; };
layout(buffer_reference, scalar) buffer CwbvhCollapseSummaryRef { CwbvhCollapseSummary summary; };

// Nibble i of a CwbvhChoice's splits.
uint cwbvhSplit(CwbvhChoice choice, uint i) {
  return (choice.splits >> (4 * i)) & 0xfu;
}
