#version 460
#extension GL_GOOGLE_include_directive : require
// The nodes' boxes, bottom up (Karras 2012, section 4): one invocation per leaf climbs towards
// the root; at each inner node the first child's invocation to arrive stops and the second,
// which then knows both children's boxes written, goes on. Nothing waits on another invocation,
// so it needs no forward progress between workgroups. The second arrival also has both
// children's BVH2 costs and CWBVH cost tables, so both collapses' bottom-up passes (bvh2.cpp's
// chooseLeaves, cwbvh.cpp's solve) ride along, with the CPU's float operations in its order.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { LbvhPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

layout(buffer_reference, scalar) coherent buffer CoherentCwbvhChoiceArray { CwbvhChoice choices[]; };

// cwbvh.cpp's solve: node's cost as at most i roots from its children's tables.
void solveCwbvh(uint node, BuildBounds box, uint primitives, bool inner, uint left, uint right) {
  CoherentCwbvhChoiceArray choices = CoherentCwbvhChoiceArray(push.cwbvhChoices);
  const float infinity = uintBitsToFloat(0x7f800000u);
  const precise float area = halfArea(box);
  const precise float leafCost =
      primitives <= CWBVH_MAX_LEAF_SIZE ? area * float(primitives) * push.primitiveCost : infinity;
  CwbvhChoice choice;
  if (!inner) {
    for (uint i = 0; i < 7; ++i) choice.cost[i] = leafCost;
    choice.splits = 1u << 4;
    choices.choices[node] = choice;
    return;
  }
  const CwbvhChoice l = choices.choices[left], r = choices.choices[right];
  // Distributing j roots between the two children, for j = 2..8; the first split whatever its
  // cost, so that infinite or NaN costs still name one (cwbvh.cpp's solve).
  float distribute[CWBVH_WIDTH + 1];
  uint distributeSplit[CWBVH_WIDTH + 1];
  for (uint j = 2; j <= CWBVH_WIDTH; ++j) {
    distribute[j] = infinity;
    distributeSplit[j] = 0;
    for (uint k = 1; k < j; ++k) {
      const precise float c = l.cost[k - 1] + r.cost[j - k - 1];
      if (k == 1 || c < distribute[j]) {
        distribute[j] = c;
        distributeSplit[j] = k;
      }
    }
  }
  const precise float innerCost = area * push.nodeCost + distribute[CWBVH_WIDTH];
  // A leaf never holds more than a CWBVH leaf can, even where both costs are infinite.
  const bool leaf = primitives <= CWBVH_MAX_LEAF_SIZE && leafCost <= innerCost;
  choice.splits = distributeSplit[CWBVH_WIDTH] | (leaf ? 1u << 4 : 0u);
  choice.cost[0] = min(leafCost, innerCost);
  for (uint i = 2; i < CWBVH_WIDTH; ++i) {
    const bool distributes = distribute[i] < choice.cost[i - 2];
    choice.cost[i - 1] = distributes ? distribute[i] : choice.cost[i - 2];
    choice.splits |= (distributes ? distributeSplit[i] : 0u) << (4 * i);
  }
  choices.choices[node] = choice;
}

void main() {
  const uint innerCount = push.count - 1;
  CoherentBoundsArray boxes = CoherentBoundsArray(push.nodeBounds);
  CoherentFloatArray costs = CoherentFloatArray(push.costs);
  FOR_EACH_ELEMENT(leaf, push.count) {
    uint node = innerCount + leaf;
    BuildBounds box = BoundsArray(push.primitives).bounds[UintArray(push.order).values[leaf]];
    boxes.bounds[node] = box;
    costs.values[node] = chooseBvh2Leaf(box, 1, false, 0, 0, push.nodeCost, push.primitiveCost).cost;
    if (push.cwbvhChoices != 0) solveCwbvh(node, box, 1, false, 0, 0);
    for (uint parent = UintArray(push.parents).values[node]; parent != LBVH_NO_PARENT;
         parent = UintArray(push.parents).values[node]) {
      // Release this child's box before the arrival count, acquire the sibling's after it.
      memoryBarrierBuffer();
      if (atomicAdd(CoherentUintArray(push.visits).values[parent], 1) == 0) break;
      memoryBarrierBuffer();
      const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[parent];
      const BuildBounds sibling = boxes.bounds[inner.left == node ? inner.right : inner.left];
      box = unite(box, sibling);
      boxes.bounds[parent] = box;
      costs.values[parent] = chooseBvh2Leaf(box, inner.last - inner.first + 1, true, costs.values[inner.left],
                                            costs.values[inner.right], push.nodeCost, push.primitiveCost)
                                 .cost;
      if (push.cwbvhChoices != 0)
        solveCwbvh(parent, box, inner.last - inner.first + 1, true, inner.left, inner.right);
      node = parent;
    }
  }
}
