// The named stages every report uses. Megakernel and wavefront share a name where they mean
// the same work.
#pragma once
#include <string_view>

namespace ptbench {

enum class Stage {
  Selftest,    // the self-test kernel of `ptbench devices --selftest` and the tests
  TraceShade,  // the megakernel: camera ray to path end in one thread
  // The wavefront's stages (DESIGN.md, "Wavefront stages"), each a kernel wavefront_<name>.
  Generate,    // camera rays for new paths
  Extend,      // closest hit for the extension queue
  Classify,    // hits sorted into per-material shading queues (material_queues only)
  Shade,       // one path vertex: emission, light sample, BSDF sample, roulette
  Shadow,      // any-hit visibility of the light samples
  Accumulate,  // finished paths into the film
  Prepare,     // queue counts into indirect launch records
  // The raycast's own (it also runs generate, extend, prepare and accumulate).
  Spawn,      // diffuse or shadow rays from the camera rays' hits
  Trace,      // the measured stage: the rays traced, nothing else
  BuildBlas,  // scene setup, reported apart from frames
  CompactBlas,
  BuildTlas,
  // The software backend's GPU builder (core/scene/bvh/gpu_binary_bvh.h), scene setup too.
  BvhMortonCodes,
  BvhSort,
  BvhHierarchy,
  BvhTreelets,  // treelet restructuring, a round at a time
  BvhRenumber,  // the leaves renumbered in depth-first order after the treelets
  BvhFit,
  BvhEmit,
  BvhCollapse,  // the binary tree into BVH2, on the GPU
  // ReSTIR's passes (core/integrators/restir.h), after the path tracer's own stages.
  RestirTemporal,  // temporal reuse of the reservoirs
  RestirSpatial,   // spatial reuse
  RestirShade,     // the primary vertex's direct light from the final reservoir, into the film
};

constexpr std::string_view stageName(Stage stage) {
  switch (stage) {
    case Stage::Selftest:
      return "selftest";
    case Stage::TraceShade:
      return "trace_shade";
    case Stage::Generate:
      return "generate";
    case Stage::Extend:
      return "extend";
    case Stage::Classify:
      return "classify";
    case Stage::Shade:
      return "shade";
    case Stage::Shadow:
      return "shadow";
    case Stage::Accumulate:
      return "accumulate";
    case Stage::Prepare:
      return "prepare";
    case Stage::Spawn:
      return "spawn";
    case Stage::Trace:
      return "trace";
    case Stage::RestirTemporal:
      return "restir_temporal";
    case Stage::RestirSpatial:
      return "restir_spatial";
    case Stage::RestirShade:
      return "restir_shade";
    case Stage::BuildBlas:
      return "build_blas";
    case Stage::CompactBlas:
      return "compact_blas";
    case Stage::BuildTlas:
      return "build_tlas";
    case Stage::BvhMortonCodes:
      return "bvh_morton_codes";
    case Stage::BvhSort:
      return "bvh_sort";
    case Stage::BvhHierarchy:
      return "bvh_hierarchy";
    case Stage::BvhTreelets:
      return "bvh_treelets";
    case Stage::BvhRenumber:
      return "bvh_renumber";
    case Stage::BvhFit:
      return "bvh_fit";
    case Stage::BvhEmit:
      return "bvh_emit";
    case Stage::BvhCollapse:
      return "bvh_collapse";
  }
  return "?";
}

}  // namespace ptbench
