#version 460
#extension GL_GOOGLE_include_directive : require
// The BVH2 collapse's second pass: every emitted binary node writes its Bvh2Node at the index the
// scan gave it, each child either a leaf over the child's primitives (contiguous in the sorted
// order, which is the leaves' order: a leaf's first primitive is its index) or the child's
// node. An inner node's depth-first successor is its left child, so the scan's step from its
// place to the next says whether it was flagged.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { Bvh2CollapsePush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

KarrasNode karrasNode(uint node) {
  const uint innerCount = push.count - 1;
  if (node < innerCount) return KarrasNodeArray(push.karrasNodes).nodes[node];
  return KarrasNode(0, 0, node - innerCount, node - innerCount);
}

Bvh2Choice choice(uint node) {
  const KarrasNode range = karrasNode(node);
  const bool inner = node < push.count - 1;
  FloatArray costs = FloatArray(push.costs);
  return chooseBvh2Leaf(BoundsArray(push.nodeBounds).bounds[node], range.last - range.first + 1, inner,
                        inner ? costs.values[range.left] : 0, inner ? costs.values[range.right] : 0, push.nodeCost,
                        push.primitiveCost);
}

void main() {
  UintArray indices = UintArray(push.nodeIndices);
  UintArray places = UintArray(push.places);
  FOR_EACH_ELEMENT(node, push.count - 1) {
    const uint place = places.values[node];
    const uint index = indices.values[place];
    if (indices.values[place + 1] == index) continue;
    const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[node];
    Bvh2Node out_;
    for (uint i = 0; i < 2; ++i) {
      const uint child = i == 0 ? inner.left : inner.right;
      const BuildBounds box = BoundsArray(push.nodeBounds).bounds[child];
      out_.children[i].boundsMin = box.min;
      out_.children[i].boundsMax = box.max;
      if (choice(child).makesLeaf) {
        const KarrasNode range = karrasNode(child);
        out_.children[i].index = range.first;
        out_.children[i].primitiveCount = range.last - range.first + 1;
      } else {
        out_.children[i].index = indices.values[places.values[child]];
        out_.children[i].primitiveCount = BVH2_INNER_CHILD;
      }
    }
    Bvh2NodeArray(push.bvh2Nodes).nodes[index] = out_;
    if (node == 0) {
      // The last depth-first node is the rightmost leaf, never emitted: its scanned value is the
      // total. The root is a node whatever its choice, so its cost is the inner one.
      FloatArray costs = FloatArray(push.costs);
      const precise float area = halfArea(BoundsArray(push.nodeBounds).bounds[0]);
      const precise float rootCost = area * push.nodeCost + costs.values[inner.left] + costs.values[inner.right];
      Bvh2CollapseSummaryRef(push.summary).summary =
          Bvh2CollapseSummary(indices.values[2 * push.count - 2], rootCost, area);
    }
  }
}
