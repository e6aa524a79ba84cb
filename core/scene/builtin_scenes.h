#pragma once
#include <array>
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

// A double-sided Lambertian of this albedo, without glTF's default specular layer.
gpu::Material lambertian(gpu::vec3 albedo);

// A planar quad (corners in order) as two triangles, normal from the winding.
Primitive quad(const std::array<Vec3, 4>& corners, uint32_t material);

// A unit UV sphere with `subdivisions` rings and twice as many segments.
Primitive uvSphere(uint32_t subdivisions, uint32_t material);

}  // namespace ptbench
