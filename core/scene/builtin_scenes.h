#pragma once
#include <array>
#include <string>

#include "core/scene/scene_data.h"

namespace ptbench {

// builtin:cornell, builtin:furnace[?material=diffuse|mirror|metal|dielectric&roughness=R],
// builtin:spheres?n=N&subdiv=S, builtin:manylights?n=N, builtin:room
struct BuiltinSceneRequest {
  enum Kind { Cornell, Furnace, Spheres, ManyLights, Room } kind = Cornell;
  std::string spec;
  std::string material;  // furnace: diffuse, mirror, metal or dielectric
  float roughness = 0;   // furnace: of the metal or dielectric
  uint32_t count = 0;    // spheres: the spheres; manylights: the emissive triangles
  uint32_t subdivisions = 0;
  uint32_t materials = 0;  // spheres: 0 (a material per sphere), or this many, cycling through the classes
  uint32_t cost = 0;       // spheres: the car paint's noise octaves
};

// The spheres scene's materials, in the order `materials=M` takes them: a divergence question's
// mix of every material class, the cheapest first and the car paint second, so that M = 2 pits
// the cheapest against the costliest.
inline constexpr uint32_t sphereMaterialClassCycle = 6;
inline constexpr uint32_t defaultCarPaintCost = 8;

// builtin:manylights' lights: n of them, each one emissive triangle.
inline constexpr uint32_t defaultManyLights = 1000;
inline constexpr uint32_t maxManyLights = 1u << 16;
// The lights' power (luminance times area, as SceneData::totalEmissivePower sums it), whatever
// their number: the floor's exposure stays the same as n grows.
inline constexpr double manyLightsTotalPower = 300;

// The car paint (MATERIAL_MODEL_CAR_PAINT) of this face colour, its flop colour turned from it,
// with this many noise octaves (its cost).
gpu::Material carPaint(gpu::vec3 faceColor, uint32_t octaves);

bool isBuiltinScene(const std::string& spec);
// Checks a builtin: spec without building the scene; UserError when it is not one.
BuiltinSceneRequest parseBuiltinScene(const std::string& spec);
// `threads` (0: every hardware thread) share the pass over every instanced triangle (bounds,
// emitters) that finishing a scene of thousands of instances takes.
SceneData loadBuiltinScene(const std::string& spec, unsigned threads = 1);

// Makes car paint of `cost` octaves of every material that `match` selects: an index, or a
// glob (fnmatch) on the material names; its base colour becomes the paint's face colour. A
// UserError, listing the materials, when none matches.
void applyCarPaintOverride(SceneData& scene, const std::string& match, uint32_t cost);

// A scene by its spec: a builtin: name or a .gltf/.glb path, a file's meshes read on `threads`
// threads (0: every hardware thread).
SceneData loadScene(const std::string& spec, unsigned threads = 0);

// A double-sided Lambertian of this albedo, without glTF's default specular layer.
gpu::Material lambertian(gpu::vec3 albedo);

// A planar quad (corners in order) as two triangles, normal from the winding.
Primitive quad(const std::array<Vec3, 4>& corners, uint32_t material);

// A unit UV sphere with `subdivisions` rings and twice as many segments.
Primitive uvSphere(uint32_t subdivisions, uint32_t material);

}  // namespace ptbench
