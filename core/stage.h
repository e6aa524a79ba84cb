// The named stages every report uses. Megakernel and wavefront share a name where they mean
// the same work.
#pragma once
#include <string_view>

namespace ptbench {

// Each stage: its enumerator and the name reports, summaries and plots give it (one list, which
// the enum and stageName expand).
#define PTBENCH_STAGES(STAGE)                                                                               \
  STAGE(Selftest, "selftest")      /* the self-test kernel of `ptbench devices --selftest` and the tests */ \
  STAGE(TraceShade, "trace_shade") /* the megakernel: camera ray to path end in one thread */               \
  /* The wavefront's stages (DESIGN.md, "Wavefront stages"), each a kernel wavefront_<name>. */             \
  STAGE(Generate, "generate")     /* camera rays for new paths */                                           \
  STAGE(Extend, "extend")         /* closest hit for the extension queue */                                 \
  STAGE(Classify, "classify")     /* hits sorted into per-material shading queues (material_queues) */      \
  STAGE(Shade, "shade")           /* one path vertex: emission, light sample, BSDF sample, roulette */      \
  STAGE(Shadow, "shadow")         /* any-hit visibility of the light samples */                             \
  STAGE(Accumulate, "accumulate") /* finished paths into the film */                                        \
  STAGE(Prepare, "prepare")       /* queue counts into indirect launch records */                           \
  /* The raycast's own (it also runs generate, extend, prepare and accumulate). */                          \
  STAGE(Spawn, "spawn")          /* diffuse or shadow rays from the camera rays' hits */                    \
  STAGE(Trace, "trace")          /* the measured stage: the rays traced, nothing else */                    \
  STAGE(BuildBlas, "build_blas") /* scene setup, reported apart from frames */                              \
  STAGE(CompactBlas, "compact_blas")                                                                        \
  STAGE(BuildTlas, "build_tlas")                                                                            \
  /* The software backend's GPU builder (core/scene/bvh/gpu_binary_bvh.h), scene setup too. */              \
  STAGE(BvhMortonCodes, "bvh_morton_codes")                                                                 \
  STAGE(BvhSort, "bvh_sort")                                                                                \
  STAGE(BvhHierarchy, "bvh_hierarchy")                                                                      \
  STAGE(BvhTreelets, "bvh_treelets") /* treelet restructuring, a round at a time */                         \
  STAGE(BvhRenumber, "bvh_renumber") /* the leaves renumbered in depth-first order after the treelets */    \
  STAGE(BvhFit, "bvh_fit")                                                                                  \
  STAGE(BvhEmit, "bvh_emit")                                                                                \
  STAGE(BvhCollapse, "bvh_collapse") /* the binary tree into BVH2, on the GPU */                            \
  /* ReSTIR's passes (core/integrators/restir.h), after the path tracer's own stages. */                    \
  STAGE(RestirTemporal, "restir_temporal") /* temporal reuse of the reservoirs */                           \
  STAGE(RestirSpatial, "restir_spatial")   /* spatial reuse */                                              \
  STAGE(RestirShade, "restir_shade")       /* the primary vertex's direct light from the final reservoir */

enum class Stage {
#define PTBENCH_STAGE_ENUMERATOR(enumerator, name) enumerator,
  PTBENCH_STAGES(PTBENCH_STAGE_ENUMERATOR)
#undef PTBENCH_STAGE_ENUMERATOR
};

constexpr std::string_view stageName(Stage stage) {
  switch (stage) {
#define PTBENCH_STAGE_NAME(enumerator, name) \
  case Stage::enumerator:                    \
    return name;
    PTBENCH_STAGES(PTBENCH_STAGE_NAME)
#undef PTBENCH_STAGE_NAME
  }
  return "?";
}

}  // namespace ptbench
