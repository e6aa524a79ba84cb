#version 460
#extension GL_GOOGLE_include_directive : require
// The CWBVH collapse's top-down step for one level of wide nodes (cwbvh.cpp's emit): each wide
// node's children are the roots its dynamic programme chose (collectRoots), placed in slots by
// octant as assignSlots places them; it counts its inner children (the next level's nodes) and
// its leaves' primitives, which prefix sums turn into offsets.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { CwbvhCollapsePush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

uint rightChild(uint node) {
  return KarrasNodeArray(push.karrasNodes).nodes[node].right;
}
uint leftChild(uint node) {
  return KarrasNodeArray(push.karrasNodes).nodes[node].left;
}
bool isBinaryLeaf(uint node) {
  return node >= push.count - 1;
}
uint primitiveCount(uint node) {
  if (isBinaryLeaf(node)) return 1;
  const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[node];
  return inner.last - inner.first + 1;
}
vec3 centre(BuildBounds box) {
  const precise vec3 c = (box.min + box.max) * 0.5;
  return c;
}

void main() {
  CwbvhChoiceArray choices = CwbvhChoiceArray(push.choices);
  FOR_EACH_ELEMENT(element, push.levelEnd - push.levelBegin) {
    const uint wide = push.levelBegin + element;
    const uint n = UintArray(push.wideRoots).values[wide];
    // collectRoots(left, k) then collectRoots(right, 8 - k), depth first with a stack of
    // (node, roots); at most 8 roots, so at most 8 pending entries.
    uint roots[CWBVH_WIDTH];
    uint rootCount = 0;
    uint stackNodes[CWBVH_WIDTH], stackRoots[CWBVH_WIDTH];
    uint stackSize = 0;
    const uint k = cwbvhSplit(choices.choices[n], 0);
    stackNodes[0] = rightChild(n);
    stackRoots[0] = CWBVH_WIDTH - k;
    stackNodes[1] = leftChild(n);
    stackRoots[1] = k;
    stackSize = 2;
    while (stackSize > 0) {
      --stackSize;
      const uint node = stackNodes[stackSize];
      uint i = stackRoots[stackSize];
      const CwbvhChoice choice = choices.choices[node];
      while (i > 1 && cwbvhSplit(choice, i) == 0) --i;
      if (i == 1) {
        roots[rootCount++] = node | (cwbvhSplit(choice, 1) != 0 ? CWBVH_SLOT_LEAF : 0u);
        continue;
      }
      const uint left = cwbvhSplit(choice, i);
      stackNodes[stackSize] = rightChild(node);
      stackRoots[stackSize] = i - left;
      stackNodes[stackSize + 1] = leftChild(node);
      stackRoots[stackSize + 1] = left;
      stackSize += 2;
    }

    // assignSlots: the (child, slot) pair whose centre lies farthest towards the slot's corner
    // first, ties to the first child, then the first slot.
    BoundsArray bounds = BoundsArray(push.nodeBounds);
    const vec3 nodeCentre = centre(bounds.bounds[n]);
    float score[CWBVH_WIDTH][CWBVH_WIDTH];
    for (uint c = 0; c < rootCount; ++c) {
      const precise vec3 offset = centre(bounds.bounds[roots[c] & ~CWBVH_SLOT_LEAF]) - nodeCentre;
      for (uint s = 0; s < CWBVH_WIDTH; ++s) {
        const vec3 corner = vec3((s & 1) != 0 ? 1.0 : -1.0, (s & 2) != 0 ? 1.0 : -1.0, (s & 4) != 0 ? 1.0 : -1.0);
        const precise float d = offset.x * corner.x + offset.y * corner.y + offset.z * corner.z;
        score[c][s] = d;
      }
    }
    uint slots[CWBVH_WIDTH];
    for (uint s = 0; s < CWBVH_WIDTH; ++s) slots[s] = CWBVH_SLOT_EMPTY;
    uint placed = 0;
    for (uint round = 0; round < rootCount; ++round) {
      float best = 0;
      int bestChild = -1, bestSlot = -1;
      for (uint c = 0; c < rootCount; ++c) {
        if ((placed & (1u << c)) != 0) continue;
        for (uint s = 0; s < CWBVH_WIDTH; ++s)
          if (slots[s] == CWBVH_SLOT_EMPTY && (bestChild < 0 || score[c][s] > best)) {
            best = score[c][s];
            bestChild = int(c);
            bestSlot = int(s);
          }
      }
      slots[bestSlot] = uint(bestChild);
      placed |= 1u << bestChild;
    }

    uint innerCount = 0, leafPrimitives = 0;
    for (uint s = 0; s < CWBVH_WIDTH; ++s) {
      uint entry = CWBVH_SLOT_EMPTY;
      if (slots[s] != CWBVH_SLOT_EMPTY) {
        entry = roots[slots[s]];
        if ((entry & CWBVH_SLOT_LEAF) != 0)
          leafPrimitives += primitiveCount(entry & ~CWBVH_SLOT_LEAF);
        else
          ++innerCount;
      }
      UintArray(push.wideSlots).values[CWBVH_WIDTH * wide + s] = entry;
    }
    UintArray(push.innerCounts).values[wide] = innerCount;
    UintArray(push.leafCounts).values[wide] = leafPrimitives;

    if (wide == 0) {
      // The root is a wide node whatever its choice (cwbvh.cpp's run).
      const precise float area = halfArea(bounds.bounds[0]);
      const precise float rootCost = area * push.nodeCost + choices.choices[leftChild(0)].cost[k - 1] +
                                     choices.choices[rightChild(0)].cost[CWBVH_WIDTH - k - 1];
      CwbvhCollapseSummaryRef(push.summary).summary.rootCost = rootCost;
      CwbvhCollapseSummaryRef(push.summary).summary.rootArea = area;
    }
  }
}
