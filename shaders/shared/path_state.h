// What a path carries from one vertex to the next: the one declaration of PathState, which the
// megakernels keep in registers (common/path.glsl declares the struct from this list) and the
// wavefront keeps in device memory between its stages, one array per field (shared/wavefront.h:
// PathArrays, the allocation, stateBytes, the traffic model, loadPath and storePath expand it, as
// Cycles expands kernel/integrator/state_template.h). A field added here is added everywhere.
// Rays lead, so that the wavefront's extend reads nothing else.
#ifndef PTBENCH_PATH_STATE_H
#define PTBENCH_PATH_STATE_H

// PTBENCH_PATH_FIELD(type, name); type is one of vec3, uint, float (wavefront/state.glsl reads
// and writes each through a buffer reference of its type).
#define PTBENCH_PATH_FIELDS(PTBENCH_PATH_FIELD)                                                          \
  PTBENCH_PATH_FIELD(vec3, origin)                                                                       \
  PTBENCH_PATH_FIELD(vec3, direction)                                                                    \
  PTBENCH_PATH_FIELD(vec3, throughput)                                                                   \
  PTBENCH_PATH_FIELD(vec3, radiance)                                                                     \
  PTBENCH_PATH_FIELD(uint, pixel)                                                                        \
  PTBENCH_PATH_FIELD(uint, sampleIndex)                                                                  \
  PTBENCH_PATH_FIELD(uint, depth)        /* segments traced so far */                                    \
  PTBENCH_PATH_FIELD(float, bsdfPdf)     /* the sampled direction's, for MIS; < 0: ReSTIR's candidate */ \
  PTBENCH_PATH_FIELD(float, misDistance) /* from where bsdfPdf was sampled to origin: thin walls */      \
  PTBENCH_PATH_FIELD(float, etaScale)    /* eta^2 over the refractions so far: what roulette undoes */

#endif
