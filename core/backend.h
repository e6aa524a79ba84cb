// The ways a kernel can trace rays (DESIGN.md, "Trace backends").
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace ptbench {

enum class Backend { RayQuery, Pipeline, Software };

inline constexpr std::array<Backend, 3> allBackends = {Backend::RayQuery, Backend::Pipeline, Backend::Software};

constexpr std::string_view backendName(Backend backend) {
  switch (backend) {
    case Backend::RayQuery:
      return "rayquery";
    case Backend::Pipeline:
      return "pipeline";
    case Backend::Software:
      return "software";
  }
  return "?";
}

constexpr std::optional<Backend> parseBackend(std::string_view name) {
  for (Backend backend : allBackends)
    if (backendName(backend) == name) return backend;
  return std::nullopt;
}

// The node layout the software backend traverses (option software_bvh; shared/bvh.h).
enum class BvhLayout { Cwbvh, Bvh2 };

inline constexpr std::array<BvhLayout, 2> allBvhLayouts = {BvhLayout::Cwbvh, BvhLayout::Bvh2};

constexpr std::string_view bvhLayoutName(BvhLayout layout) {
  return layout == BvhLayout::Bvh2 ? "bvh2" : "cwbvh";
}

constexpr std::optional<BvhLayout> parseBvhLayout(std::string_view name) {
  for (BvhLayout layout : allBvhLayouts)
    if (bvhLayoutName(layout) == name) return layout;
  return std::nullopt;
}

// What a tracing kernel is compiled and specialised for: the backend and, on the software
// backend, the BVH layout it reads.
struct TraceTarget {
  TraceTarget(Backend traced, BvhLayout layout = BvhLayout::Cwbvh) : backend(traced), softwareBvh(layout) {}
  Backend backend;
  BvhLayout softwareBvh;
};

}  // namespace ptbench
