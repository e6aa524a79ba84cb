// A scene on the CPU, as flat arrays ready for upload (DESIGN.md: SceneData).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/scene/camera.h"
#include "core/scene/environment_map.h"
#include "core/scene/math.h"
#include "shared/scene.h"

namespace ptbench {

enum class TextureFilter { Nearest, Linear };
enum class TextureWrap { Repeat, ClampToEdge, MirroredRepeat };

struct TextureSampler {
  TextureFilter magFilter = TextureFilter::Linear;
  TextureFilter minFilter = TextureFilter::Linear;
  TextureFilter mipFilter = TextureFilter::Linear;
  TextureWrap wrapU = TextureWrap::Repeat;
  TextureWrap wrapV = TextureWrap::Repeat;
};

struct TextureImage {
  std::string name;
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba8;
  bool srgb = true;  // colour data (base colour, emissive, ...) rather than data (normals, roughness)
  TextureSampler sampler;
  Vec3 averageLinearColor;  // for the power of textured emitters
};

// The largest |coordinate| a scene may have, in world space after its transforms. The BVH
// builders' costs are float sums of box half-areas (at most 3 (2 B)^2 = 1.2e25 here) times
// primitive counts: a tree's whole cost is at most the root's half-area times 2^32 primitives
// times a few node and primitive costs, about 1e35 for B = 1e12, within float's 3.4e38. At 1e15
// that bound is 1e41: an infinite SAH cost, which no split improves on. 1e12 metres is seven
// astronomical units, and float's spacing there is 65 km, far coarser than any scene needs.
constexpr float maxSceneCoordinate = 1e12f;
inline bool withinSceneBounds(Vec3 p) {
  // Written so that NaN fails.
  return std::fabs(p.x) <= maxSceneCoordinate && std::fabs(p.y) <= maxSceneCoordinate &&
         std::fabs(p.z) <= maxSceneCoordinate;
}

struct Bounds {
  Vec3 min{INFINITY, INFINITY, INFINITY};
  Vec3 max{-INFINITY, -INFINITY, -INFINITY};
  bool empty() const { return min.x > max.x; }
  Vec3 center() const { return (min + max) * 0.5f; }
  void extend(Vec3 p) {
    min = ptbench::min(min, p);
    max = ptbench::max(max, p);
  }
  void extend(const Bounds& other) {
    min = ptbench::min(min, other.min);
    max = ptbench::max(max, other.max);
  }
  // Half the surface area: what the surface area heuristic weighs a box by.
  float halfArea() const {
    if (empty()) return 0;
    const Vec3 d = max - min;
    return d.x * d.y + d.y * d.z + d.z * d.x;
  }
};

inline Vec3 toVec3(gpu::vec3 v) {
  return {v.x, v.y, v.z};
}
inline gpu::vec3 toGpu(Vec3 v) {
  return {v.x, v.y, v.z};
}

struct Mesh {
  uint32_t firstGeometry = 0;
  uint32_t geometryCount = 0;
};

struct SceneData {
  std::string source;  // the path or builtin: name it came from
  std::vector<gpu::Vertex> vertices;
  std::vector<uint32_t> indices;
  std::vector<gpu::Geometry> geometries;
  std::vector<Mesh> meshes;
  std::vector<gpu::Instance> instances;
  std::vector<uint32_t> instanceMeshes;  // the mesh of each instance: its BLAS
  std::vector<gpu::Material> materials;
  std::vector<std::string> materialNames;  // glTF's, or the built-in scene's; "" where it has none
  std::vector<TextureImage> textures;
  std::vector<gpu::EmissiveTriangle> emissiveTriangles;
  std::vector<gpu::AliasEntry> lightAliasTable;
  std::vector<uint32_t> emissiveBases;  // see gpu::Instance::emissiveBasesOffset
  double totalEmissivePower = 0;
  std::vector<gpu::PunctualLight> punctualLights;
  // Light from every direction beyond the scene, added to RenderSettings::environment's constant.
  std::optional<EnvironmentMap> environmentMap;
  std::optional<Camera> sceneCamera;  // the first perspective camera of the scene
  // The glTF's animations of that camera's node, those that move it.
  std::vector<CameraAnimation> cameraAnimations;
  uint32_t cameraCount = 0;
  Bounds bounds;  // world space, over every instance
  // Material extensions the scene uses that ptbench loads without shading (the loader warns of
  // them); sorted, each once.
  std::vector<std::string> unshadedExtensions;

  // The triangles (as instanced) of each material class (gpu::MATERIAL_CLASS_*), by the
  // material each instance gives each geometry.
  std::array<uint64_t, gpu::MATERIAL_CLASS_COUNT> materialClassTriangles() const;
  uint64_t triangleCount() const;        // as instanced
  uint64_t uniqueTriangleCount() const;  // as stored
  uint64_t textureBytes() const;
  // The scene's own camera, or one that frames the bounds from the +Z side.
  Camera defaultCamera() const;
};

struct Primitive {
  std::vector<gpu::Vertex> vertices;
  std::vector<uint32_t> indices;
  uint32_t material = 0;
};

// An 8-bit texel channel as linear light: decoded from sRGB for colour textures.
float texelToLinear(uint8_t value, bool srgb);

// A vertex's coordinates in a texture: its set (uv0 or uv1) after its KHR_texture_transform,
// as sampleTexture (surface.glsl) computes them. The transform is affine, so interpolating
// these equals transforming the interpolated set.
gpu::vec2 textureUv(const gpu::TextureRef& ref, const gpu::Vertex& vertex);

// An RGBA colour in [0, 1] as gpu::Vertex::color holds it.
gpu::uvec2 packVertexColor(float r, float g, float b, float a);

// glTF's defaults: white, fully metallic and rough, as the specification gives them.
gpu::Material defaultMaterial();

// A material class (gpu::MATERIAL_CLASS_*) as reports and stage names give it: "diffuse",
// "metallic_roughness", "sheen", "clearcoat", "transmission", "car_paint" ("escaped" for rays
// that left the scene).
std::string materialClassName(uint32_t materialClass);

// SceneData::materialClassTriangles by class name, the classes the scene uses only: what
// reports and scene-info give as material_classes.
std::map<std::string, uint64_t> materialClassTrianglesByName(const SceneData& scene);
gpu::TextureRef noTexture();

// Assembles a SceneData from meshes and instances; finish() derives bounds and the light list.
class SceneBuilder {
 public:
  explicit SceneBuilder(std::string source);
  uint32_t addMaterial(const gpu::Material& material, std::string name = {});
  uint32_t addTexture(TextureImage texture);
  uint32_t addMesh(std::span<Primitive> primitives);
  // Room for this many more vertices and indices, so that a large scene's meshes are added
  // without the arrays growing (and copying) again and again.
  void reserve(size_t vertices, size_t indices) {
    scene_.vertices.reserve(scene_.vertices.size() + vertices);
    scene_.indices.reserve(scene_.indices.size() + indices);
  }
  // `name` says where the instance comes from in the scene's file, for finish()'s messages
  // (node 3 ("Wheel"), mesh 1); "instance I (mesh M)" when empty.
  void addInstance(uint32_t mesh, const Mat4& objectToWorld, uint32_t materialOverride = gpu::NO_MATERIAL_OVERRIDE,
                   std::string name = {});
  void addPunctualLight(const gpu::PunctualLight& light) { scene_.punctualLights.push_back(light); }
  void setCamera(const Camera& camera, uint32_t cameraCount);
  const gpu::Material& material(uint32_t index) const { return scene_.materials.at(index); }
  // The scene, its bounds and emitter table made on `threads` threads; the same for any count.
  // Refuses (UserError) a scene with a vertex beyond maxSceneCoordinate in world space.
  SceneData finish(unsigned threads = 1);

 private:
  SceneData scene_;
  std::vector<Mat4> transforms_;
  std::vector<std::string> instanceNames_;
};

// Walker's alias table (Vose's construction) for weights that need not sum to one.
std::vector<gpu::AliasEntry> buildAliasTable(std::span<const float> weights);

}  // namespace ptbench
