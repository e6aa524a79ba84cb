#version 460
#extension GL_GOOGLE_include_directive : require
// generate: camera rays for new paths. A path's (pixel, sample) comes from the frame's job
// counter (job j: sample j / pixels of the (j % pixels)-th pixel in tile order), so a pool
// smaller than the frame still renders all of it, and a job renders the same path as the
// megakernel's thread for that pixel and sample (DESIGN.md, fairness rule 2).
#define WAVEFRONT
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

// The pixel of the k-th job of a sample: pixels in 8x4 tiles, a tile a subgroup of 32, so
// that a subgroup's camera rays are as coherent as those of a 2-D megakernel launch (a 1-D
// scanline order gives 32x1 strips). Pixels outside whole tiles follow: the right strip,
// then the bottom one. A bijection of [0, width x height): only the order of jobs changes.
uint tiledPixel(uint k) {
  uint width = FRAME.width, height = FRAME.height;
  uint tiledWidth = width - width % 8u, tiledHeight = height - height % 4u;
  uvec2 p;
  if (k < tiledWidth * tiledHeight) {
    uint tile = k / 32u, within = k % 32u, tilesX = tiledWidth / 8u;
    p = uvec2((tile % tilesX) * 8u + within % 8u, (tile / tilesX) * 4u + within / 8u);
  } else {
    k -= tiledWidth * tiledHeight;
    uint rightWidth = width - tiledWidth;
    if (k < rightWidth * tiledHeight) {
      p = uvec2(tiledWidth + k % rightWidth, k / rightWidth);
    } else {
      k -= rightWidth * tiledHeight;
      p = uvec2(k % width, tiledHeight + k / width);
    }
  }
  return p.y * width + p.x;
}

void main() {
  uint index = kernelIndex();
  bool fresh = push.phase == PREPARE_GENERATE_FRESH;
  uint slot;
  uint taken;  // the how-manieth job of this launch
  if (COMPACTION) {
    if (index >= LaunchRecords(WAVEFRONT_PARAMS.launches).r[LAUNCH_GENERATE].count) return;
    slot = fresh ? index : queueItem(QUEUE_FINISHED, index);
    taken = index;
  } else {
    if (index >= WAVEFRONT_PARAMS.poolSize) return;
    slot = index;
    if (fresh) {
      taken = index;
    } else {
      if ((UintBuffer(PATHS.membership).u[slot] & MEMBER_FREE) == 0u) return;
      taken = atomicAdd(COUNTERS.generateTaken, 1u);
    }
    if (taken >= COUNTERS.generateCount) return;
  }
  uint64_t job = COUNTERS.generateFirstJob + uint64_t(taken);
  uint64_t pixels = uint64_t(FRAME.width) * uint64_t(FRAME.height);
  storePath(slot, startPath(tiledPixel(uint(job % pixels)), uint(job / pixels)));
  queuePush(currentExtensionQueue(), slot, MEMBER_FREE);
}
