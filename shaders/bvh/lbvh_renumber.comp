#version 460
#extension GL_GOOGLE_include_directive : require
// The leaves renumbered in the restructured tree's depth-first order (lbvh_leaf_order.comp): each
// inner node takes its range of them, and renumbers its leaf children, so that the leaf at place
// p is node count - 1 + p again and primitive renumberedOrder[p], as the hierarchy left them in
// the sorted order. Each leaf has one parent, so each is written once.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  const uint innerCount = push.count - 1;
  KarrasNodeArray tree = KarrasNodeArray(push.karrasNodes);
  UintArray primitiveCounts = UintArray(push.primitiveCounts);
  FOR_EACH_ELEMENT(node, innerCount) {
    KarrasNode inner = tree.nodes[node];
    inner.first = UintArray(push.firstLeaves).values[node];
    inner.last = inner.first + primitiveCounts.values[node] - 1;
    const uint children[2] = uint[2](inner.left, inner.right);
    const uint places[2] = uint[2](inner.first, inner.first + primitiveCounts.values[inner.left]);
    uint renumbered[2];
    for (uint c = 0; c < 2; ++c) {
      renumbered[c] = children[c];
      if (children[c] < innerCount) continue;
      renumbered[c] = innerCount + places[c];
      UintArray(push.renumberedOrder).values[places[c]] =
          UintArray(push.order).values[children[c] - innerCount];
      UintArray(push.parents).values[renumbered[c]] = node;
    }
    inner.left = renumbered[0];
    inner.right = renumbered[1];
    tree.nodes[node] = inner;
  }
}
