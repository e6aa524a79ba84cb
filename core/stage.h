// The named stages every report uses. Megakernel and wavefront share a name where they mean
// the same work.
#pragma once
#include <string_view>

namespace ptbench {

enum class Stage {
  Selftest,    // the self-test kernel of `ptbench devices --selftest` and the tests
  TraceShade,  // the megakernel: camera ray to path end in one thread
  BuildBlas,   // scene setup, reported apart from frames
  CompactBlas,
  BuildTlas,
};

constexpr std::string_view stageName(Stage stage) {
  switch (stage) {
    case Stage::Selftest:
      return "selftest";
    case Stage::TraceShade:
      return "trace_shade";
    case Stage::BuildBlas:
      return "build_blas";
    case Stage::CompactBlas:
      return "compact_blas";
    case Stage::BuildTlas:
      return "build_tlas";
  }
  return "?";
}

}  // namespace ptbench
