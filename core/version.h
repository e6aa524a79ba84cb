#pragma once
#include <string_view>

namespace ptbench {
// Set by CMake from project(VERSION) and `git describe` at configure time.
extern const std::string_view version;
extern const std::string_view gitRevision;
extern const bool gitDirty;
extern const std::string_view buildType;
}  // namespace ptbench
