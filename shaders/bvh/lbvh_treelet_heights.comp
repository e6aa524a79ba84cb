#version 460
#extension GL_GOOGLE_include_directive : require
// A treelet round's first step (bvh_build.h): one invocation per leaf climbs as the fit does
// (lbvh_fit.comp: the second child's invocation to arrive goes on), refitting each inner node
// (box, primitives, BVH2 cost) and giving it its height, one more than its taller child's, which
// it counts for the schedule (lbvh_treelet_schedule.comp).
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  const uint innerCount = push.count - 1;
  KarrasNodeArray tree = KarrasNodeArray(push.karrasNodes);
  CoherentBoundsArray boxes = CoherentBoundsArray(push.nodeBounds);
  CoherentFloatArray costs = CoherentFloatArray(push.costs);
  CoherentUintArray primitiveCounts = CoherentUintArray(push.primitiveCounts);
  CoherentUintArray heights = CoherentUintArray(push.heights);
  CoherentUintArray visits = CoherentUintArray(push.visits);
  TreeletScheduleRef schedule = TreeletScheduleRef(push.schedule);
  FOR_EACH_ELEMENT(leaf, push.count) {
    uint node = innerCount + leaf;
    const BuildBounds leafBox = BoundsArray(push.primitives).bounds[UintArray(push.order).values[leaf]];
    boxes.bounds[node] = leafBox;
    primitiveCounts.values[node] = 1;
    const float noChildren = uintBitsToFloat(0x7f800000u);
    costs.values[node] = treeletCost(halfArea(leafBox), 1, noChildren, push.nodeCost, push.primitiveCost);
    for (uint parent = UintArray(push.parents).values[node]; parent != LBVH_NO_PARENT;
         parent = UintArray(push.parents).values[node]) {
      // Release this subtree's writes before the arrival count, acquire the sibling's after it.
      memoryBarrierBuffer();
      if (atomicAdd(visits.values[parent], 1) == 0) break;
      memoryBarrierBuffer();
      // The last arrival: the count is free for the next climb to start from zero.
      visits.values[parent] = 0;
      node = parent;
      const uint left = tree.nodes[node].left, right = tree.nodes[node].right;
      const BuildBounds box = unite(boxes.bounds[left], boxes.bounds[right]);
      const uint primitives = primitiveCounts.values[left] + primitiveCounts.values[right];
      boxes.bounds[node] = box;
      primitiveCounts.values[node] = primitives;
      const precise float children = costs.values[left] + costs.values[right];
      costs.values[node] = treeletCost(halfArea(box), primitives, children, push.nodeCost, push.primitiveCost);
      const uint height =
          max(left < innerCount ? heights.values[left] : 0, right < innerCount ? heights.values[right] : 0) + 1;
      heights.values[node] = height;
      if (height < TREELET_MAX_HEIGHT) atomicAdd(schedule.schedule.counts[height], 1);
      atomicMax(schedule.schedule.maxHeight, height);
    }
  }
}
