#pragma once
#include <string>

#include "core/scene/scene_data.h"

namespace ptbench {

// builtin:cornell, builtin:furnace[?material=diffuse|mirror|metal|dielectric&roughness=R],
// builtin:spheres?n=N&subdiv=S
struct BuiltinSceneRequest {
  enum Kind { Cornell, Furnace, Spheres } kind = Cornell;
  std::string spec;
  std::string material;  // furnace: diffuse, mirror, metal or dielectric
  float roughness = 0;   // furnace: of the metal or dielectric
  uint32_t count = 0;    // spheres
  uint32_t subdivisions = 0;
};

bool isBuiltinScene(const std::string& spec);
// Checks a builtin: spec without building the scene; UserError when it is not one.
BuiltinSceneRequest parseBuiltinScene(const std::string& spec);
SceneData loadBuiltinScene(const std::string& spec);

// A scene by its spec: a builtin: name or a .gltf/.glb path.
SceneData loadScene(const std::string& spec);

// A unit UV sphere with `subdivisions` rings and twice as many segments.
Primitive uvSphere(uint32_t subdivisions, uint32_t material);

}  // namespace ptbench
