// What every wavefront kernel shares: its parameters, the path state's accessors, the queues
// (a count and the items' data; a push is one atomicAdd per subgroup) and the kernel index.
#ifndef PTBENCH_WAVEFRONT_STATE_GLSL
#define PTBENCH_WAVEFRONT_STATE_GLSL
#ifndef RAY_GENERATION
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "common/frame.glsl"
#include "shared/wavefront.h"
layout(push_constant, scalar) uniform PushBlock { WavefrontPush push; };

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
#define COUNTERS (CountersRef(WAVEFRONT_PARAMS.counters).c)
#define SHADOW_ARRAYS (WAVEFRONT_PARAMS.shadow)
#define FINISHED_ARRAYS (WAVEFRONT_PARAMS.finished)

uint currentExtensionQueue() { return QUEUE_EXTENSION_0 + (push.iteration & 1u); }
uint nextExtensionQueue() { return QUEUE_EXTENSION_0 + ((push.iteration + 1u) & 1u); }
uint currentExtendLaunch() { return LAUNCH_EXTEND_0 + (push.iteration & 1u); }
uint nextExtendLaunch() { return LAUNCH_EXTEND_0 + ((push.iteration + 1u) & 1u); }
// The path arrays the current extension queue's paths are in, and those shade writes the next
// queue's to. Without compaction a path stays in its slot: one set of arrays.
uint currentPathArrays() { return COMPACTION ? push.iteration & 1u : 0u; }
uint nextPathArrays() { return COMPACTION ? (push.iteration + 1u) & 1u : 0u; }
#define PATHS(set) (WAVEFRONT_PARAMS.paths[set])

// ---- path state, one array per field (PTBENCH_PATH_FIELDS) ----

// The buffer reference a field's array is read and written through, by the field's type.
#define PATH_ARRAY_vec3(address) Vec3Buffer(address).v
#define PATH_ARRAY_uint(address) UintBuffer(address).u
#define PATH_ARRAY_float(address) FloatBuffer(address).f
#define PATH_ARRAY(type, address) PATH_ARRAY_##type(address)

PathState loadPath(uint set, uint index) {
  PathState path;
#define LOAD_PATH_FIELD(type, name) path.name = PATH_ARRAY(type, PATHS(set).name)[index];
  PTBENCH_PATH_FIELDS(LOAD_PATH_FIELD)
#undef LOAD_PATH_FIELD
  return path;
}

void storePath(uint set, uint index, PathState path) {
#define STORE_PATH_FIELD(type, name) PATH_ARRAY(type, PATHS(set).name)[index] = path.name;
  PTBENCH_PATH_FIELDS(STORE_PATH_FIELD)
#undef STORE_PATH_FIELD
}

// A path's sample into its pixel, where the path's radiance is final (shade, or shadow after the
// path's last light sample), as the megakernel's thread does (common/film.glsl): with atomics,
// unless no other path of the pixel can be in flight (WavefrontParams::pixelsOwned).
void commitPathSample(vec3 radiance, uint pixel) {
  // With ReSTIR the sample is whole once the final shading adds the primary vertex's direct
  // light; a pass then owns its pixels.
  if (RESTIR != RESTIR_OFF) {
    RestirRadiance(RESTIR_FRAME.pathRadiance).v[pixel] = radiance;
    return;
  }
  FilmSample film = filmSample();
  filmAdd(film, radiance);
  if (WAVEFRONT_PARAMS.pixelsOwned != 0u)
    filmCommitOwned(film, pixel);
  else
    filmCommit(film, pixel);
}

// ---- queues ----
// Pushes happen in compute kernels only: some devices (lavapipe) have no subgroup operations in
// ray-generation shaders, and the tracing stages need none.

void setMembership(uint slot, uint set, uint clear) {
  UintBuffer membership = UintBuffer(WAVEFRONT_PARAMS.membership);
  membership.u[slot] = (membership.u[slot] & ~clear) | set;
}

// The material queues' arrays of positions in the current extension queue, one after another.
uint materialQueueEntry(uint queue, uint position) {
  return (queue - QUEUE_MATERIAL_FIRST) * WAVEFRONT_PARAMS.poolSize + position;
}

uint materialQueueItem(uint queue, uint position) {
  return UintBuffer(WAVEFRONT_PARAMS.queues).u[materialQueueEntry(queue, position)];
}

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

// Counts the item into the queue and returns where its data goes: with compaction, its
// position in the queue; without, its slot, whose membership bit is set (and `consumed`, the
// queue it came from, cleared).
uint queuePush(uint queue, uint slot, uint consumed) {
  uint position = queueReserve(queue);
  if (!COMPACTION) {
    setMembership(slot, 1u << queue, consumed);
    return slot;
  }
  return position;
}

// A material queue holds positions in the current extension queue rather than data.
void materialQueuePush(uint queue, uint index, uint consumed) {
  uint position = queuePush(queue, index, consumed);
  if (COMPACTION) UintBuffer(WAVEFRONT_PARAMS.queues).u[materialQueueEntry(queue, position)] = index;
}
#endif

// ---- launches ----

// The item this invocation works on, if any: with compaction the launch covers the queue
// (rounded up) and the item is the invocation's position in it; without, it covers the whole
// pool and a slot outside the queue returns at once.
bool claimItem(uint launch, uint queue, out uint index) {
  index = kernelIndex();
  if (COMPACTION) return index < LaunchRecords(WAVEFRONT_PARAMS.launches).r[launch].count;
  return index < WAVEFRONT_PARAMS.poolSize && (UintBuffer(WAVEFRONT_PARAMS.membership).u[index] & (1u << queue)) != 0u;
}

// As claimItem, for a material queue: the item is a position in the current extension queue.
bool claimMaterialItem(uint launch, uint queue, out uint index) {
  if (!claimItem(launch, queue, index)) return false;
  if (COMPACTION) index = materialQueueItem(queue, index);
  return true;
}

#endif
