#version 460
#extension GL_GOOGLE_include_directive : require
// classify (material_queues only): sorts the extension queue's hits into one shading queue
// per material class, so that each shade kernel's threads run the same code.
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

uint materialClass(HitRecord hit) {
  return hit.t < 0.0 ? MATERIAL_CLASS_ESCAPED : materialClassOfHit(hit.instance, hit.geometry);
}

void main() {
  uint index;
  uint queue = currentExtensionQueue();
  if (!claimItem(currentExtendLaunch(), queue, index)) return;
  materialQueuePush(QUEUE_MATERIAL_FIRST + materialClass(HitBuffer(WAVEFRONT_PARAMS.hits).h[index]), index,
                    1u << queue);
}
