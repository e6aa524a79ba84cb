// The ways a kernel can trace rays (DESIGN.md, "Trace backends").
#pragma once
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "core/named_values.h"

namespace ptbench {

// The backends, one value per line of core/backends.def, in its order (the order `auto`
// prefers them in); each is described in its descriptor (core/trace/<name>.cpp: device needs,
// scene needs, options).
enum class Backend {
#define PTBENCH_TRACE_BACKEND(enumerator, name, shaderDefine, stage) enumerator,
#include "core/backends.def"
};

inline constexpr std::array allBackends = {
#define PTBENCH_TRACE_BACKEND(enumerator, name, shaderDefine, stage) Backend::enumerator,
#include "core/backends.def"
};

// The descriptor's name, and the backend a name stands for (core/trace/registry.cpp).
std::string_view backendName(Backend backend);
std::optional<Backend> parseBackend(std::string_view name);

// The node layout the software backend traverses (option software_bvh; shared/bvh.h).
enum class BvhLayout { Cwbvh, Bvh2 };

inline constexpr NamedValues<BvhLayout, 2> bvhLayoutNames{{{{BvhLayout::Cwbvh, "cwbvh"}, {BvhLayout::Bvh2, "bvh2"}}}};
inline constexpr std::array<BvhLayout, 2> allBvhLayouts = bvhLayoutNames.values();

constexpr std::string_view bvhLayoutName(BvhLayout layout) {
  return bvhLayoutNames.name(layout);
}

// Whether a list of layouts (a build's, a level's) has `layout`.
constexpr bool hasLayout(std::span<const BvhLayout> layouts, BvhLayout layout) {
  return std::find(layouts.begin(), layouts.end(), layout) != layouts.end();
}

constexpr std::optional<BvhLayout> parseBvhLayout(std::string_view name) {
  return bvhLayoutNames.parse(name);
}

// Where the software backend's binary tree is built (option software_builder): binned SAH on the
// CPU's threads, or a linear BVH by compute shaders (core/scene/bvh/gpu_binary_bvh.h). Both are
// collapsed into the same layouts.
enum class BvhBuilder { Cpu, Gpu };

inline constexpr NamedValues<BvhBuilder, 2> bvhBuilderNames{{{{BvhBuilder::Cpu, "cpu"}, {BvhBuilder::Gpu, "gpu"}}}};
inline constexpr std::array<BvhBuilder, 2> allBvhBuilders = bvhBuilderNames.values();

constexpr std::string_view bvhBuilderName(BvhBuilder builder) {
  return bvhBuilderNames.name(builder);
}

constexpr std::optional<BvhBuilder> parseBvhBuilder(std::string_view name) {
  return bvhBuilderNames.parse(name);
}

// What a tracing kernel is compiled and specialised for: the backend and, on the software
// backend, the BVH layout it reads and the builder of the tree it reads (the scene's, not the
// kernel's: kernels are the same for both builders).
struct TraceTarget {
  TraceTarget(Backend traced, BvhLayout layout = BvhLayout::Cwbvh, BvhBuilder builder = BvhBuilder::Cpu)
      : backend(traced), softwareBvh(layout), softwareBuilder(builder) {}
  Backend backend;
  BvhLayout softwareBvh;
  BvhBuilder softwareBuilder;
};

}  // namespace ptbench
