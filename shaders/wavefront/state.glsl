// What every wavefront kernel shares: its parameters, the path state's accessors, the queues
// (a count and an array of slots; a push is one atomicAdd per subgroup) and the kernel index.
// Compile with WAVEFRONT defined, so that common/frame.glsl takes the wavefront's push block.
#ifndef PTBENCH_WAVEFRONT_STATE_GLSL
#define PTBENCH_WAVEFRONT_STATE_GLSL
#ifndef RAY_GENERATION
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "common/frame.glsl"

layout(constant_id = SPEC_COMPACTION) const bool COMPACTION = true;
layout(constant_id = SPEC_MATERIAL_QUEUES) const bool MATERIAL_QUEUES = false;
layout(constant_id = SPEC_MATERIAL_CLASS) const uint MATERIAL_CLASS = MATERIAL_CLASS_ALL;
// A shade kernel of one material class compiles without the code of the classes above it.
#define SHADED_CLASS_LIMIT (MATERIAL_QUEUES && MATERIAL_CLASS != MATERIAL_CLASS_ALL ? MATERIAL_CLASS : SCENE_CLASS_LIMIT)

#include "common/sampling.glsl"
#include "common/camera.glsl"
#include "common/surface.glsl"
#include "common/bsdf.glsl"
#include "common/lights.glsl"
#include "common/path.glsl"
#include "common/film.glsl"
#include "common/launch.glsl"
#include "common/simt_counters.glsl"

layout(buffer_reference, scalar) readonly buffer WavefrontParamsRef { WavefrontParams p; };
layout(buffer_reference, scalar) buffer CountersRef { WavefrontCounters c; };
layout(buffer_reference, scalar) buffer LaunchRecords { LaunchRecord r[]; };
layout(buffer_reference, scalar) buffer StepCountersRef { StepCounters s[]; };
layout(buffer_reference, scalar) buffer Vec3Buffer { vec3 v[]; };
layout(buffer_reference, scalar) buffer FloatBuffer { float f[]; };
layout(buffer_reference, scalar) buffer UintBuffer { uint u[]; };
layout(buffer_reference, scalar) buffer HitBuffer { HitRecord h[]; };

#define WAVEFRONT_PARAMS (WavefrontParamsRef(push.wavefront).p)
#define PATHS (WAVEFRONT_PARAMS.paths)
#define COUNTERS (CountersRef(WAVEFRONT_PARAMS.counters).c)

uint currentExtensionQueue() { return QUEUE_EXTENSION_0 + (push.iteration & 1u); }
uint nextExtensionQueue() { return QUEUE_EXTENSION_0 + ((push.iteration + 1u) & 1u); }

// ---- path state, one array per field ----

PathState loadPath(uint slot) {
  PathState path;
  path.origin = Vec3Buffer(PATHS.rayOrigin).v[slot];
  path.direction = Vec3Buffer(PATHS.rayDirection).v[slot];
  path.throughput = Vec3Buffer(PATHS.throughput).v[slot];
  path.radiance = Vec3Buffer(PATHS.radiance).v[slot];
  path.pixel = UintBuffer(PATHS.pixel).u[slot];
  path.sampleIndex = UintBuffer(PATHS.sampleIndex).u[slot];
  path.depth = UintBuffer(PATHS.depth).u[slot];
  path.bsdfPdf = FloatBuffer(PATHS.bsdfPdf).f[slot];
  return path;
}

void storePath(uint slot, PathState path) {
  Vec3Buffer(PATHS.rayOrigin).v[slot] = path.origin;
  Vec3Buffer(PATHS.rayDirection).v[slot] = path.direction;
  Vec3Buffer(PATHS.throughput).v[slot] = path.throughput;
  Vec3Buffer(PATHS.radiance).v[slot] = path.radiance;
  UintBuffer(PATHS.pixel).u[slot] = path.pixel;
  UintBuffer(PATHS.sampleIndex).u[slot] = path.sampleIndex;
  UintBuffer(PATHS.depth).u[slot] = path.depth;
  FloatBuffer(PATHS.bsdfPdf).f[slot] = path.bsdfPdf;
}

// ---- queues ----
// Pushes happen in compute kernels only: some devices (lavapipe) have no subgroup operations in
// ray-generation shaders, and the tracing stages need none.

void setMembership(uint slot, uint set, uint clear) {
  UintBuffer membership = UintBuffer(PATHS.membership);
  membership.u[slot] = (membership.u[slot] & ~clear) | set;
}

uint queueItem(uint queue, uint position) { return UintBuffer(WAVEFRONT_PARAMS.queues).u[queue * WAVEFRONT_PARAMS.poolSize + position]; }

#ifndef RAY_GENERATION
// A place in the queue for this invocation: one atomicAdd per subgroup (ballot, one elected
// add, broadcast, exclusive bit count). The wavefront requires subgroup ballot in compute.
// Invocations of one subgroup may push to different queues in the same call: each pass of the
// loop serves the queue of the first active invocation and those that share it.
uint queueReserve(uint queue) {
  while (true) {
    if (subgroupBroadcastFirst(queue) == queue) {
      uvec4 ballot = subgroupBallot(true);
      uint base = 0u;
      if (subgroupElect()) base = atomicAdd(COUNTERS.queueCount[queue], subgroupBallotBitCount(ballot));
      return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
    }
  }
  return 0u;  // not reached
}

// Counts the slot into the queue; with compaction it is written to the queue's array, without
// it the slot's membership bit is set (and `consumed`, the queue it came from, cleared).
void queuePush(uint queue, uint slot, uint consumed) {
  uint position = queueReserve(queue);
  if (COMPACTION)
    UintBuffer(WAVEFRONT_PARAMS.queues).u[queue * WAVEFRONT_PARAMS.poolSize + position] = slot;
  else
    setMembership(slot, 1u << queue, consumed);
}
#endif

// ---- launches ----

// The slot this invocation works on, if any. With compaction the launch covers the queue
// (rounded up); without, it covers the whole pool and a slot outside the queue returns at once.
bool claimSlot(uint launch, uint queue, out uint slot) {
  uint index = kernelIndex();
  if (COMPACTION) {
    if (index >= LaunchRecords(WAVEFRONT_PARAMS.launches).r[launch].count) return false;
    slot = queueItem(queue, index);
    return true;
  }
  slot = index;
  return index < WAVEFRONT_PARAMS.poolSize && (UintBuffer(PATHS.membership).u[slot] & (1u << queue)) != 0u;
}

#endif
