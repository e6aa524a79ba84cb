#version 460
#extension GL_GOOGLE_include_directive : require
// The Karras tree in binary_bvh.h's depth-first order. A node over sorted primitives from
// `first` has before it, in that order, its ancestors and the subtrees wholly left of it: those
// subtrees cover the `first` primitives before it in 2 nodes each less one per subtree, and
// there is one subtree per ancestor it descends right from; so its place is 2 first plus the
// number of ancestors it descends left from. A right child comes after its parent and the
// left subtree's 2 m - 1 nodes.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { LbvhPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  const uint innerCount = push.count - 1;
  KarrasNodeArray karras = KarrasNodeArray(push.karrasNodes);
  FOR_EACH_ELEMENT(node, 2 * push.count - 1) {
    uint leftTurns = 0;
    for (uint child = node, parent = UintArray(push.parents).values[child]; parent != LBVH_NO_PARENT;
         child = parent, parent = UintArray(push.parents).values[child])
      if (karras.nodes[parent].left == child) ++leftTurns;

    BuildNode out_ = BuildNode(BoundsArray(push.nodeBounds).bounds[node], 0, 1, 0);
    if (node < innerCount) {
      const KarrasNode inner = karras.nodes[node];
      const uint leftLast = inner.left < innerCount ? karras.nodes[inner.left].last : inner.left - innerCount;
      out_.firstPrimitive = inner.first;
      out_.primitiveCount = inner.last - inner.first + 1;
      out_.rightChild = 2 * inner.first + leftTurns + 2 * (leftLast - inner.first + 1);
    } else {
      out_.firstPrimitive = node - innerCount;
    }
    const uint place = 2 * out_.firstPrimitive + leftTurns;
    BuildNodeArray(push.nodes).nodes[place] = out_;
    UintArray(push.places).values[node] = place;
  }
}
