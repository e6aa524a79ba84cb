#version 460
#extension GL_GOOGLE_include_directive : require
// After the treelet rounds, a node's leaves are no longer a range of the sorted order. In the
// restructured tree's depth-first order, an inner node's first leaf is the number of leaves in
// the subtrees wholly left of it: the left sibling's subtree at each ancestor it descends right
// from, found by walking up the parent links (depth steps per node, as lbvh_emit.comp walks).
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  FOR_EACH_ELEMENT(node, push.count - 1) {
    uint first = 0;
    for (uint child = node, parent = UintArray(push.parents).values[child]; parent != LBVH_NO_PARENT;
         child = parent, parent = UintArray(push.parents).values[child]) {
      const uint left = KarrasNodeArray(push.karrasNodes).nodes[parent].left;
      if (left != child) first += UintArray(push.primitiveCounts).values[left];
    }
    UintArray(push.firstLeaves).values[node] = first;
  }
}
