#version 460
#extension GL_GOOGLE_include_directive : require
// generate: camera rays for new paths. A path's (pixel, sample) comes from the frame's job
// counter (job j: sample j / pixels of the (j % pixels)-th pixel in tile order), so a pool
// smaller than the frame still renders all of it, and a job renders the same path as the
// megakernel's thread for that pixel and sample (DESIGN.md, fairness rule 2). With compaction
// the new paths follow the continuing ones in the current extension queue; without, they take
// the free slots.
#include "wavefront/state.glsl"
#include "common/pixel_order.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint index = kernelIndex();
  uint at;     // where the path goes: its queue position, or its slot
  uint taken;  // the how-manieth job of this launch
  if (COMPACTION) {
    if (index >= LaunchRecords(WAVEFRONT_PARAMS.launches).r[LAUNCH_GENERATE].count) return;
    at = COUNTERS.generateBase + index;
    taken = index;
  } else {
    if (index >= WAVEFRONT_PARAMS.poolSize) return;
    at = index;
    if (push.phase == PREPARE_GENERATE_FRESH) {
      taken = index;
    } else {
      if ((UintBuffer(WAVEFRONT_PARAMS.membership).u[at] & MEMBER_FREE) == 0u) return;
      taken = atomicAdd(COUNTERS.generateTaken, 1u);
    }
    if (taken >= COUNTERS.generateCount) return;
    // prepare counted it into the queue already.
    setMembership(at, 1u << currentExtensionQueue(), MEMBER_FREE);
  }
  uint64_t job = COUNTERS.generateFirstJob + uint64_t(taken);
  uint64_t pixels = uint64_t(FRAME.width) * uint64_t(FRAME.height);
  PathState path = startPath(tiledPixel(uint(job % pixels)), uint(job / pixels));
  storePath(currentPathArrays(), at, path);
  if (RESTIR != RESTIR_OFF) restirNoSurface(path.pixel, path.sampleIndex);
}
