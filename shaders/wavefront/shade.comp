#version 460
#extension GL_GOOGLE_include_directive : require
// shade: what the megakernel does at a vertex, by the same functions (common/path.glsl):
// escaped rays take the environment; hits take emission with MIS, a light sample (pushed to
// the shadow queue), a BSDF sample and Russian roulette. Continuing paths go to the next
// extension queue; ended ones go to the film (where the pass owns its pixels) or to the finished
// queue.
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  CLOCKS_START();
  uint queue = MATERIAL_QUEUES ? QUEUE_MATERIAL_FIRST + MATERIAL_CLASS : currentExtensionQueue();
  uint index;
  if (MATERIAL_QUEUES ? !claimMaterialItem(LAUNCH_SHADE_FIRST + MATERIAL_CLASS, queue, index)
                      : !claimItem(currentExtendLaunch(), queue, index))
    return;
  PathState path = loadPath(currentPathArrays(), index);
  HitRecord record = HitBuffer(WAVEFRONT_PARAMS.hits).h[index];
  // A class kernel knows what it holds: the escaped kernel compiles without the surface code.
  bool escaped = MATERIAL_QUEUES ? MATERIAL_CLASS == MATERIAL_CLASS_ESCAPED : record.t < 0.0;
#ifdef SIMT_COUNTERS
  countShadingPoint(path.depth, MATERIAL_QUEUES ? MATERIAL_CLASS
                                : escaped       ? MATERIAL_CLASS_ESCAPED
                                                : materialClassOfHit(record.instance, record.geometry));
#endif
  bool alive = false;
  ShadowRay shadow;
  shadow.requested = false;
  if (escaped) {
    pathEscaped(path);
  } else {
    alive = pathHit(path, SurfaceHit(record.t, record.instance, record.geometry, record.primitive, record.barycentrics),
                    shadow);
  }
  CLOCK_PHASE(CLOCK_PHASE_REST);
  // The path moves to the next extension queue (or stays in its slot). An ended path's sample
  // goes into the film where its radiance is final, with plain stores, where the pass owns its
  // pixels: here, or in shadow after its last light sample. Where the film needs atomics they wait
  // for accumulate, which runs them coherently (inline in shade they doubled its time on the
  // Cornell boxes: docs/DESIGN.md); the path waits in the finished queue.
  bool commitHere = WAVEFRONT_PARAMS.pixelsOwned != 0u;
  bool pending = !alive && (shadow.requested || !commitHere);
  uint target = 0u;
  if (alive || pending) target = queuePush(alive ? nextExtensionQueue() : QUEUE_FINISHED, index, 1u << queue);
  if (alive) {
    storePath(nextPathArrays(), target, path);
  } else if (pending) {
    Vec3Buffer(FINISHED_ARRAYS.radiance).v[target] = path.radiance;
    UintBuffer(FINISHED_ARRAYS.pixel).u[target] = path.pixel;
    target |= SHADOW_TARGET_FINISHED;
  } else {
    commitPathSample(path.radiance, path.pixel);
    if (!COMPACTION) setMembership(index, MEMBER_FREE, 1u << queue);
  }
  if (shadow.requested) {
    uint at = queuePush(QUEUE_SHADOW, index, 0u);
    Vec3Buffer(SHADOW_ARRAYS.origin).v[at] = shadow.origin;
    Vec3Buffer(SHADOW_ARRAYS.direction).v[at] = shadow.direction;
    FloatBuffer(SHADOW_ARRAYS.tMax).f[at] = shadow.tMax;
    Vec3Buffer(SHADOW_ARRAYS.contribution).v[at] = shadow.contribution;
    UintBuffer(SHADOW_ARRAYS.target).u[at] = target;
  }
  CLOCKS_COMMIT(CLOCK_BIN_SHADE);
}
