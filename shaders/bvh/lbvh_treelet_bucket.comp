#version 460
#extension GL_GOOGLE_include_directive : require
// A treelet round's list of inner nodes by height (bvh_build.h). Within a height the order is
// the scheduling's, which changes nothing: those nodes' treelets are disjoint.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  TreeletScheduleRef schedule = TreeletScheduleRef(push.schedule);
  FOR_EACH_ELEMENT(node, push.count - 1) {
    const uint height = UintArray(push.heights).values[node];
    if (height >= TREELET_MAX_HEIGHT) continue;
    const uint place = schedule.schedule.offsets[height] + atomicAdd(schedule.schedule.cursors[height], 1);
    UintArray(push.nodesByHeight).values[place] = node;
  }
}
