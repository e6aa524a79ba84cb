#pragma once
#include <string>

#include "core/scene/scene_data.h"

namespace ptbench {

// builtin:cornell, builtin:furnace[?material=diffuse|mirror], builtin:spheres?n=N&subdiv=S
SceneData loadBuiltinScene(const std::string& spec);

// A scene by its spec: a builtin: name or a .gltf/.glb path.
SceneData loadScene(const std::string& spec);

// A unit UV sphere with `subdivisions` rings and twice as many segments.
Primitive uvSphere(uint32_t subdivisions, uint32_t material);

}  // namespace ptbench
