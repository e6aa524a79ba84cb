#version 460
#extension GL_GOOGLE_include_directive : require
// shade: what the megakernel does at a vertex, by the same functions (common/path.glsl):
// escaped rays take the environment; hits take emission with MIS, a light sample (pushed to
// the shadow queue), a BSDF sample and Russian roulette. Continuing paths go to the next
// extension queue, ended ones to the finished queue.
#define WAVEFRONT
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint queue = MATERIAL_QUEUES ? QUEUE_MATERIAL_FIRST + MATERIAL_CLASS : currentExtensionQueue();
  uint launch = MATERIAL_QUEUES ? LAUNCH_SHADE_FIRST + MATERIAL_CLASS : LAUNCH_EXTEND;
  uint slot;
  if (!claimSlot(launch, queue, slot)) return;
  PathState path = loadPath(slot);
  HitRecord record = HitBuffer(PATHS.hit).h[slot];
  // A class kernel knows what it holds: the escaped kernel compiles without the surface code.
  bool escaped = MATERIAL_QUEUES ? MATERIAL_CLASS == MATERIAL_CLASS_ESCAPED : record.t < 0.0;
#ifdef SIMT_COUNTERS
  countShadingPoint(path.depth, MATERIAL_QUEUES ? MATERIAL_CLASS
                                : escaped       ? MATERIAL_CLASS_ESCAPED
                                                : materialClassOfHit(record.instance, record.geometry));
#endif
  bool alive = false;
  if (escaped) {
    pathEscaped(path);
  } else {
    ShadowRay shadow;
    alive = pathHit(path, SurfaceHit(record.t, record.instance, record.geometry, record.primitive, record.barycentrics),
                    shadow);
    if (shadow.requested) {
      Vec3Buffer(PATHS.shadowOrigin).v[slot] = shadow.origin;
      Vec3Buffer(PATHS.shadowDirection).v[slot] = shadow.direction;
      FloatBuffer(PATHS.shadowTMax).f[slot] = shadow.tMax;
      Vec3Buffer(PATHS.shadowContribution).v[slot] = shadow.contribution;
      queuePush(QUEUE_SHADOW, slot, 0u);
    }
  }
  storePath(slot, path);
  queuePush(alive ? nextExtensionQueue() : QUEUE_FINISHED, slot, 1u << queue);
}
