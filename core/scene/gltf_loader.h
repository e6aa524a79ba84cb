#pragma once
#include <filesystem>

#include "core/scene/scene_data.h"

namespace ptbench {
// Loads a .gltf (with its .bin and images) or .glb. Throws UserError naming the file and
// what is wrong for anything it cannot take.
SceneData loadGltf(const std::filesystem::path& path);
}  // namespace ptbench
