// Divergence counters (counters: simt; shared/render.h, SimtBounce): at a path tracer's shading
// point, each subgroup records how many of its lanes are active and how many distinct material
// classes they hold. Compiled only into the kernels built with SIMT_COUNTERS: the atomics
// perturb the timing, so runs without the counters carry none of this code.
#ifndef PTBENCH_SIMT_COUNTERS_GLSL
#define PTBENCH_SIMT_COUNTERS_GLSL
#ifdef SIMT_COUNTERS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(buffer_reference, scalar) buffer SimtCountersRef {
  SimtCountersHeader header;
  SimtBounce bounces[];
};

// Called by every lane at its shading point, with its path's bounce (0: the camera ray's hit)
// and the class of what it hit (MATERIAL_CLASS_ESCAPED for a miss).
void countShadingPoint(uint bounce, uint materialClass) {
  // What runs together here: the lanes active at this point, whatever the compiler did.
  uint activeLanes = subgroupBallotBitCount(subgroupBallot(true));
  uint classes = bitCount(subgroupOr(1u << materialClass));
  SimtCountersRef counters = SimtCountersRef(FRAME.simtCounters);
  if (subgroupElect()) atomicMax(counters.header.subgroupSize, gl_SubgroupSize);
  uint bin = min(bounce, SIMT_MAX_BOUNCES - 1u);
  // One pass per distinct bounce among the active lanes (one, except where a subgroup holds
  // paths of several depths): each bounce takes its lanes' share of the subgroup's event.
  while (true) {
    uint first = subgroupBroadcastFirst(bin);
    if (bin == first) {
      uint lanes = subgroupBallotBitCount(subgroupBallot(true));
      if (subgroupElect()) {
        atomicAdd(counters.bounces[bin].subgroupShare, uint64_t(lanes * SIMT_SHARE_SCALE / activeLanes));
        atomicAdd(counters.bounces[bin].lanes, uint64_t(lanes));
        atomicAdd(counters.bounces[bin].classShare, uint64_t(lanes * classes * SIMT_SHARE_SCALE / activeLanes));
      }
      break;
    }
  }
}

#endif
#endif
