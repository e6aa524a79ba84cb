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

}  // namespace ptbench
