#version 460
#extension GL_GOOGLE_include_directive : require
// The nodes' boxes, bottom up (Karras 2012, section 4): one invocation per leaf climbs towards
// the root; at each inner node the first child's invocation to arrive stops and the second,
// which then knows both children's boxes written, goes on. Nothing waits on another invocation,
// so it needs no forward progress between workgroups. The second arrival also has both
// children's BVH2 costs, so the collapse's bottom-up pass (bvh2.cpp's chooseLeaves) rides along.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { LbvhPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

// Coherent: a box written by one invocation is read by the one that arrives second.
layout(buffer_reference, scalar) coherent buffer CoherentBoundsArray { BuildBounds bounds[]; };
layout(buffer_reference, scalar) coherent buffer CoherentUintArray { uint values[]; };
layout(buffer_reference, scalar) coherent buffer CoherentFloatArray { float values[]; };

void main() {
  const uint innerCount = push.count - 1;
  CoherentBoundsArray boxes = CoherentBoundsArray(push.nodeBounds);
  CoherentFloatArray costs = CoherentFloatArray(push.costs);
  FOR_EACH_ELEMENT(leaf, push.count) {
    uint node = innerCount + leaf;
    BuildBounds box = BoundsArray(push.primitives).bounds[UintArray(push.order).values[leaf]];
    boxes.bounds[node] = box;
    costs.values[node] = chooseBvh2Leaf(box, 1, false, 0, 0, push.nodeCost, push.primitiveCost).cost;
    for (uint parent = UintArray(push.parents).values[node]; parent != LBVH_NO_PARENT;
         parent = UintArray(push.parents).values[node]) {
      // Release this child's box before the arrival count, acquire the sibling's after it.
      memoryBarrierBuffer();
      if (atomicAdd(CoherentUintArray(push.visits).values[parent], 1) == 0) break;
      memoryBarrierBuffer();
      const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[parent];
      const BuildBounds sibling = boxes.bounds[inner.left == node ? inner.right : inner.left];
      box = BuildBounds(min(box.min, sibling.min), max(box.max, sibling.max));
      boxes.bounds[parent] = box;
      costs.values[parent] = chooseBvh2Leaf(box, inner.last - inner.first + 1, true, costs.values[inner.left],
                                            costs.values[inner.right], push.nodeCost, push.primitiveCost)
                                 .cost;
      node = parent;
    }
  }
}
