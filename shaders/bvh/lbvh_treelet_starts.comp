#version 460
#extension GL_GOOGLE_include_directive : require
// Where a treelet round after the first climbs from (lbvh_treelets.comp): the nodes below the
// round's size whose parent is not, a bit per node, 32 nodes an invocation. Found before the
// round restructures anything, because a rebuild moves the nodes inside its treelet.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  const uint nodes = 2 * push.count - 1;
  UintArray primitiveCounts = UintArray(push.primitiveCounts);
  FOR_EACH_ELEMENT(word, (nodes + 31) / 32) {
    uint starts = 0;
    for (uint bit = 0; bit < 32; ++bit) {
      const uint node = 32 * word + bit;
      if (node >= nodes || primitiveCounts.values[node] >= push.minPrimitives) continue;
      const uint parent = UintArray(push.parents).values[node];
      if (parent != LBVH_NO_PARENT && primitiveCounts.values[parent] >= push.minPrimitives) starts |= 1u << bit;
    }
    UintArray(push.startFlags).values[word] = starts;
  }
}
