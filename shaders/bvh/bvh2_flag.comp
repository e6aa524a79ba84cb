#version 460
#extension GL_GOOGLE_include_directive : require
// The BVH2 collapse's first pass: which binary nodes become Bvh2Nodes. bvh2.cpp's emission
// descends from the root into every child that does not make a leaf; so a node is emitted when
// it is the root, or inner, not a leaf by its own choice and below no ancestor (but the root,
// always a node) that made one. Flags are written in depth-first order: their exclusive prefix
// sum numbers the Bvh2Nodes in the order the CPU's depth-first emission gives them.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { Bvh2CollapsePush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

bool makesLeaf(uint node) {
  const uint innerCount = push.count - 1;
  if (node >= innerCount) return true;
  const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[node];
  FloatArray costs = FloatArray(push.costs);
  return chooseBvh2Leaf(BoundsArray(push.nodeBounds).bounds[node], inner.last - inner.first + 1, true,
                        costs.values[inner.left], costs.values[inner.right], push.nodeCost, push.primitiveCost)
      .makesLeaf;
}

void main() {
  FOR_EACH_ELEMENT(node, 2 * push.count - 1) {
    bool emitted = node == 0 || !makesLeaf(node);
    for (uint parent = UintArray(push.parents).values[node]; emitted && parent != LBVH_NO_PARENT && parent != 0;
         parent = UintArray(push.parents).values[parent])
      emitted = !makesLeaf(parent);
    UintArray(push.nodeIndices).values[UintArray(push.places).values[node]] = emitted ? 1 : 0;
  }
}
