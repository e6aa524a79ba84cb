#pragma once
#include <cstdint>
#include <filesystem>

#include "core/scene/scene_data.h"

namespace ptbench {

// The largest texture image ptbench decodes, in pixels a side: a PNG or JPEG whose header
// declares more is refused before it is decoded.
inline constexpr uint32_t maxTextureSide = 16384;

// Loads a .gltf (with its .bin and images) or .glb, its meshes on `threads` threads (0: every
// hardware thread; the scene is the same for any count). Throws UserError naming the file and
// what is wrong for anything it cannot take.
SceneData loadGltf(const std::filesystem::path& path, unsigned threads = 0);
}  // namespace ptbench
