#version 460
#extension GL_GOOGLE_include_directive : require
// After the scan of a level's inner-child counts: each wide node's inner children become the
// next level's wide nodes, contiguous from its childBase in slot order, the levels' nodes in
// their parents' order: cwbvh.cpp's breadth-first numbering, from prefix sums rather than
// atomics. The level's last node tells the host where the next level ends.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { CwbvhCollapsePush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  UintArray innerCounts = UintArray(push.innerCounts);
  FOR_EACH_ELEMENT(element, push.levelEnd - push.levelBegin) {
    const uint wide = push.levelBegin + element;
    const uint childBase = push.levelEnd + innerCounts.values[wide];
    uint next = childBase;
    for (uint s = 0; s < CWBVH_WIDTH; ++s) {
      const uint entry = UintArray(push.wideSlots).values[CWBVH_WIDTH * wide + s];
      if (entry != CWBVH_SLOT_EMPTY && (entry & CWBVH_SLOT_LEAF) == 0) UintArray(push.wideRoots).values[next++] = entry;
    }
    innerCounts.values[wide] = childBase;
    if (wide == push.levelEnd - 1) CwbvhCollapseSummaryRef(push.summary).summary.nextLevelEnd = next;
  }
}
