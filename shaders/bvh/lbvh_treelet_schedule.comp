#version 460
#extension GL_GOOGLE_include_directive : require
// A treelet round's schedule (bvh_build.h), one workgroup of one invocation per height: each
// height's place in the list of nodes by height (an exclusive prefix sum of the climb's counts)
// and its dispatch; the climb's counts and height zeroed for the next round's.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = TREELET_MAX_HEIGHT) in;

shared uint counts[TREELET_MAX_HEIGHT];

void main() {
  TreeletScheduleRef schedule = TreeletScheduleRef(push.schedule);
  const uint height = gl_LocalInvocationIndex;
  const uint count = schedule.schedule.counts[height];
  counts[height] = count;
  schedule.schedule.counts[height] = 0;
  schedule.schedule.sizes[height] = count;
  schedule.schedule.cursors[height] = 0;
  // A workgroup per node, under every device's workgroup count limit; lbvh_treelets.comp loops
  // over the rest.
  schedule.schedule.dispatches[height] = TreeletDispatch(min(count, BVH_BUILD_MAX_WORKGROUPS), 1, 1);
  barrier();
  if (height == 0) {
    uint offset = 0;
    for (uint h = 0; h < TREELET_MAX_HEIGHT; ++h) {
      schedule.schedule.offsets[h] = offset;
      offset += counts[h];
    }
    schedule.schedule.roundHeight = schedule.schedule.maxHeight;
    schedule.schedule.maxHeight = 0;
  }
}
