#include "core/scene/scene_data.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/errors.h"
#include "core/scene/bvh/thread_budget.h"

namespace ptbench {
namespace {

// The mean of pointValue(barycentrics) over a triangle, from a 4x4 stratified grid of points. It
// only steers light sampling: a triangle whose samples all miss its emission is still found by
// BSDF sampling, with full MIS weight.
template <typename PointValue>
auto meanOverTriangle(PointValue pointValue) {
  constexpr int grid = 4;
  decltype(pointValue(Vec3{})) sum{};
  for (int i = 0; i < grid; ++i)
    for (int j = 0; j < grid; ++j) {
      float s = (float(i) + 0.5f) / grid, t = (float(j) + 0.5f) / grid;
      if (s + t > 1) {
        s = 1 - s;
        t = 1 - t;
      }
      sum = sum + pointValue(Vec3{1 - s - t, s, t});
    }
  return sum * (1.0f / float(grid * grid));
}

// The texel at barycentrics w of triangle (a, b, c), looked up through the texture reference
// (its uv set and transform; nearest texel, repeating).
const uint8_t* texelAt(const TextureImage& texture, const gpu::TextureRef& ref, const gpu::Vertex& a,
                       const gpu::Vertex& b, const gpu::Vertex& c, Vec3 w) {
  const gpu::vec2 uv[3] = {textureUv(ref, a), textureUv(ref, b), textureUv(ref, c)};
  const float u = w.x * uv[0].x + w.y * uv[1].x + w.z * uv[2].x;
  const float v = w.x * uv[0].y + w.y * uv[1].y + w.z * uv[2].y;
  const auto x = uint32_t(float(texture.width) * (u - std::floor(u))) % texture.width;
  const auto y = uint32_t(float(texture.height) * (v - std::floor(v))) % texture.height;
  return &texture.rgba8[(size_t(y) * texture.width + x) * 4];
}

// COLOR_0's alpha (packVertexColor's unorm16), white where a mesh has none.
float vertexAlpha(const gpu::Vertex& vertex) {
  return float(vertex.color.y >> 16) / 65535.0f;
}

Vec3 linearColor(const TextureImage& texture, const uint8_t* texel) {
  return {texelToLinear(texel[0], texture.srgb), texelToLinear(texel[1], texture.srgb),
          texelToLinear(texel[2], texture.srgb)};
}

// The share of a triangle that rays see, as alphaTestPasses (shaders/common/surface.glsl)
// decides from materialAlpha (factor, base colour texture and COLOR_0): the kept share under a
// mask, the mean alpha when blended. Light sampling collects emission in proportion
// (emitterCoverage), so the power that steers it should too.
float alphaCoverage(const SceneData& scene, const gpu::Material& material, const gpu::Vertex& a, const gpu::Vertex& b,
                    const gpu::Vertex& c) {
  if (material.alphaMode == gpu::ALPHA_OPAQUE) return 1;
  const gpu::TextureRef& ref = material.textures[gpu::SLOT_BASE_COLOR];
  const TextureImage* texture = ref.texture == gpu::NO_TEXTURE ? nullptr : &scene.textures[ref.texture];
  return meanOverTriangle([&](Vec3 w) {
    float alpha = material.baseColorFactor.w * (w.x * vertexAlpha(a) + w.y * vertexAlpha(b) + w.z * vertexAlpha(c));
    if (texture) alpha *= float(texelAt(*texture, ref, a, b, c, w)[3]) / 255.0f;
    return material.alphaMode == gpu::ALPHA_MASK ? (alpha >= material.alphaCutoff ? 1.0f : 0.0f)
                                                 : std::clamp(alpha, 0.0f, 1.0f);
  });
}

void storeRows(const Mat4& m, gpu::vec4 (&rows)[3]) {
  for (int row = 0; row < 3; ++row) rows[row] = {m.at(row, 0), m.at(row, 1), m.at(row, 2), m.at(row, 3)};
}

}  // namespace

float texelToLinear(uint8_t value, bool srgb) {
  static const auto srgbTable = [] {
    std::array<float, 256> table{};
    for (int i = 0; i < 256; ++i) {
      const float c = float(i) / 255.0f;
      table[i] = c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
    }
    return table;
  }();
  return srgb ? srgbTable[value] : float(value) / 255.0f;
}

gpu::vec2 textureUv(const gpu::TextureRef& ref, const gpu::Vertex& vertex) {
  const gpu::vec2 uv = ref.texCoord == 1 ? vertex.uv1 : vertex.uv0;
  return {ref.transformRow0.x * uv.x + ref.transformRow0.y * uv.y + ref.transformRow0.z,
          ref.transformRow1.x * uv.x + ref.transformRow1.y * uv.y + ref.transformRow1.z};
}

gpu::uvec2 packVertexColor(float r, float g, float b, float a) {
  auto unorm16 = [](float value) { return uint32_t(std::lround(std::clamp(value, 0.0f, 1.0f) * 65535.0f)); };
  return {unorm16(r) | unorm16(g) << 16, unorm16(b) | unorm16(a) << 16};
}

gpu::TextureRef noTexture() {
  return {.texture = gpu::NO_TEXTURE, .texCoord = 0, .transformRow0 = {1, 0, 0}, .transformRow1 = {0, 1, 0}};
}

gpu::Material defaultMaterial() {
  gpu::Material m{};
  m.baseColorFactor = {1, 1, 1, 1};
  m.emissiveFactor = {0, 0, 0};
  m.metallicFactor = 1;
  m.roughnessFactor = 1;
  m.normalScale = 1;
  m.occlusionStrength = 1;
  m.alphaCutoff = 0.5f;
  m.alphaMode = gpu::ALPHA_OPAQUE;
  m.doubleSided = 0;
  m.ior = 1.5f;
  m.specularFactor = 1;
  m.specularColorFactor = {1, 1, 1};
  m.attenuationColor = {1, 1, 1};
  m.clearcoatNormalScale = 1;
  m.attenuationDistance = INFINITY;
  for (auto& t : m.textures) t = noTexture();
  return m;
}

uint64_t SceneData::triangleCount() const {
  uint64_t count = 0;
  for (uint32_t mesh : instanceMeshes)
    for (uint32_t g = 0; g < meshes[mesh].geometryCount; ++g)
      count += geometries[meshes[mesh].firstGeometry + g].triangleCount;
  return count;
}

std::array<uint64_t, gpu::MATERIAL_CLASS_COUNT> SceneData::materialClassTriangles() const {
  std::array<uint64_t, gpu::MATERIAL_CLASS_COUNT> triangles{};
  for (size_t i = 0; i < instances.size(); ++i) {
    const Mesh& mesh = meshes[instanceMeshes[i]];
    for (uint32_t g = 0; g < mesh.geometryCount; ++g) {
      const gpu::Geometry& geometry = geometries[mesh.firstGeometry + g];
      const uint32_t material = instances[i].materialOverride != gpu::NO_MATERIAL_OVERRIDE
                                    ? instances[i].materialOverride
                                    : geometry.material;
      triangles[gpu::materialClassOf(materials[material])] += geometry.triangleCount;
    }
  }
  return triangles;
}

std::string materialClassName(uint32_t materialClass) {
  static constexpr std::array<const char*, gpu::MATERIAL_CLASS_COUNT> names = {
      "escaped", "diffuse", "metallic_roughness", "sheen", "clearcoat", "transmission", "car_paint"};
  return materialClass < names.size() ? names[materialClass] : "unknown";
}

std::map<std::string, uint64_t> materialClassTrianglesByName(const SceneData& scene) {
  std::map<std::string, uint64_t> named;
  const auto triangles = scene.materialClassTriangles();
  for (uint32_t c = 0; c < triangles.size(); ++c)
    if (triangles[c] > 0) named[materialClassName(c)] = triangles[c];
  return named;
}

uint64_t SceneData::uniqueTriangleCount() const {
  return indices.size() / 3;
}

uint64_t SceneData::textureBytes() const {
  uint64_t bytes = 0;
  for (const auto& t : textures) bytes += t.rgba8.size();
  return bytes;
}

Camera SceneData::defaultCamera() const {
  if (sceneCamera) return *sceneCamera;
  Camera camera;
  const Vec3 center = bounds.center();
  const float radius = std::max(0.5f * length(bounds.max - bounds.min), 1e-3f);
  const float halfFov = 0.5f * camera.yfovDegrees * 3.14159265f / 180.0f;
  camera.target = center;
  camera.position = center + Vec3{0, 0, 1.1f * radius / std::sin(halfFov)};
  return camera;
}

SceneBuilder::SceneBuilder(std::string source) {
  scene_.source = std::move(source);
}

uint32_t SceneBuilder::addMaterial(const gpu::Material& material, std::string name) {
  scene_.materials.push_back(material);
  scene_.materialNames.push_back(std::move(name));
  return static_cast<uint32_t>(scene_.materials.size() - 1);
}

uint32_t SceneBuilder::addTexture(TextureImage texture) {
  scene_.textures.push_back(std::move(texture));
  return static_cast<uint32_t>(scene_.textures.size() - 1);
}

uint32_t SceneBuilder::addMesh(std::span<Primitive> primitives) {
  Mesh mesh{.firstGeometry = static_cast<uint32_t>(scene_.geometries.size()), .geometryCount = 0};
  for (auto& primitive : primitives) {
    if (primitive.indices.empty()) continue;
    if (primitive.material >= scene_.materials.size())
      throw std::logic_error("primitive material " + std::to_string(primitive.material) + " of " +
                             std::to_string(scene_.materials.size()));
    scene_.geometries.push_back({.firstVertex = static_cast<uint32_t>(scene_.vertices.size()),
                                 .firstIndex = static_cast<uint32_t>(scene_.indices.size()),
                                 .triangleCount = static_cast<uint32_t>(primitive.indices.size() / 3),
                                 .material = primitive.material});
    scene_.vertices.insert(scene_.vertices.end(), primitive.vertices.begin(), primitive.vertices.end());
    scene_.indices.insert(scene_.indices.end(), primitive.indices.begin(), primitive.indices.end());
    ++mesh.geometryCount;
  }
  scene_.meshes.push_back(mesh);
  return static_cast<uint32_t>(scene_.meshes.size() - 1);
}

void SceneBuilder::addInstance(uint32_t mesh, const Mat4& objectToWorld, uint32_t materialOverride, std::string name) {
  if (scene_.meshes.at(mesh).geometryCount == 0) return;
  // Acceleration structures and the software BVH mark geometry non-opaque by its own material.
  if (materialOverride != gpu::NO_MATERIAL_OVERRIDE) {
    const bool overrideTested = gpu::materialNeedsCandidateTest(scene_.materials.at(materialOverride));
    for (uint32_t g = 0; g < scene_.meshes[mesh].geometryCount; ++g) {
      const gpu::Geometry& geometry = scene_.geometries[scene_.meshes[mesh].firstGeometry + g];
      if (gpu::materialNeedsCandidateTest(scene_.materials.at(geometry.material)) != overrideTested)
        throw std::logic_error("instance of mesh " + std::to_string(mesh) + ": material " +
                               std::to_string(materialOverride) + " overrides material " +
                               std::to_string(geometry.material) +
                               ", but only one of them needs its candidate hits tested (alpha, thin walls)");
    }
  }
  gpu::Instance instance{};
  storeRows(objectToWorld, instance.objectToWorld);
  storeRows(objectToWorld.normalMatrix(), instance.normalToWorld);
  instance.firstGeometry = scene_.meshes[mesh].firstGeometry;
  instance.geometryCount = scene_.meshes[mesh].geometryCount;
  instance.materialOverride = materialOverride;
  instance.windingSign = objectToWorld.determinant3x3() < 0 ? -1.0f : 1.0f;
  scene_.instances.push_back(instance);
  scene_.instanceMeshes.push_back(mesh);
  transforms_.push_back(objectToWorld);
  if (name.empty())
    name = "instance " + std::to_string(scene_.instances.size() - 1) + " (mesh " + std::to_string(mesh) + ")";
  instanceNames_.push_back(std::move(name));
}

void SceneBuilder::setCamera(const Camera& camera, uint32_t cameraCount) {
  scene_.sceneCamera = camera;
  scene_.cameraCount = cameraCount;
}

SceneData SceneBuilder::finish(unsigned threads) {
  // Every instanced triangle is visited, for the bounds and the emitters' power: the triangles in
  // chunks, each chunk's results kept apart and joined in order, so that the scene is the same
  // for any thread count (box unions are exact).
  struct Chunk {
    uint32_t instance, geometry, firstTriangle, endTriangle;
    Bounds bounds;
    std::optional<uint32_t> outside;  // the first triangle with a vertex beyond the scene's bounds
    bool emissive = false;
    std::vector<gpu::EmissiveTriangle> emitters;
  };
  constexpr uint32_t trianglesPerChunk = 1 << 16;
  std::vector<Chunk> chunks;
  for (uint32_t i = 0; i < scene_.instances.size(); ++i) {
    const auto& instance = scene_.instances[i];
    for (uint32_t g = instance.firstGeometry; g < instance.firstGeometry + instance.geometryCount; ++g) {
      const uint32_t triangles = scene_.geometries[g].triangleCount;
      // A geometry has a chunk even without triangles: it has its entry in emissiveBases.
      uint32_t first = 0;
      do {
        chunks.push_back({.instance = i,
                          .geometry = g,
                          .firstTriangle = first,
                          .endTriangle = std::min(triangles, first + trianglesPerChunk)});
        first += trianglesPerChunk;
      } while (first < triangles);
    }
  }
  ThreadBudget budget(std::max(1u, threads));
  parallelFor(budget, chunks.size(), [&](size_t c) {
    Chunk& chunk = chunks[c];
    const auto& instance = scene_.instances[chunk.instance];
    const auto& geometry = scene_.geometries[chunk.geometry];
    const Mat4& transform = transforms_[chunk.instance];
    const uint32_t materialIndex =
        instance.materialOverride != gpu::NO_MATERIAL_OVERRIDE ? instance.materialOverride : geometry.material;
    const gpu::Material& material = scene_.materials[materialIndex];
    const Vec3 factor = toVec3(material.emissiveFactor);
    const gpu::TextureRef& emissiveTexture = material.textures[gpu::SLOT_EMISSIVE];
    const TextureImage* texture =
        emissiveTexture.texture != gpu::NO_TEXTURE ? &scene_.textures[emissiveTexture.texture] : nullptr;
    Vec3 emitted = factor;
    if (texture)
      emitted = {factor.x * texture->averageLinearColor.x, factor.y * texture->averageLinearColor.y,
                 factor.z * texture->averageLinearColor.z};
    const float emittedLuminance = luminance(emitted);
    chunk.emissive = emittedLuminance > 0;
    for (uint32_t tri = chunk.firstTriangle; tri < chunk.endTriangle; ++tri) {
      Vec3 p[3];
      for (int k = 0; k < 3; ++k) {
        const uint32_t index = scene_.indices[geometry.firstIndex + 3 * tri + k];
        const Vec3 local = toVec3(scene_.vertices[geometry.firstVertex + index].position);
        p[k] = transform.transformPoint(local);
        chunk.bounds.extend(p[k]);
        if (!withinSceneBounds(p[k]) && !chunk.outside) chunk.outside = tri;
      }
      if (emittedLuminance <= 0) continue;
      const float area = 0.5f * length(cross(p[1] - p[0], p[2] - p[0]));
      const auto vertex = [&](int k) -> const gpu::Vertex& {
        return scene_.vertices[geometry.firstVertex + scene_.indices[geometry.firstIndex + 3 * tri + k]];
      };
      float triangleLuminance = emittedLuminance;
      if (texture) {
        const Vec3 mean = meanOverTriangle([&](Vec3 w) {
          return linearColor(*texture, texelAt(*texture, emissiveTexture, vertex(0), vertex(1), vertex(2), w));
        });
        triangleLuminance = luminance({factor.x * mean.x, factor.y * mean.y, factor.z * mean.z});
      }
      triangleLuminance *= alphaCoverage(scene_, material, vertex(0), vertex(1), vertex(2));
      // An emissive geometry lists every triangle, degenerate ones with power 0, so that a
      // hit finds its light-list entry by adding its primitive index to the base.
      chunk.emitters.push_back(
          {.instance = chunk.instance, .geometry = chunk.geometry, .triangle = tri, .power = triangleLuminance * area});
    }
  });
  // The first such triangle in instance order is named, whichever thread met it first.
  for (const Chunk& chunk : chunks)
    if (chunk.outside)
      throw UserError(scene_.source + ": " + instanceNames_[chunk.instance] + " has triangle " +
                      std::to_string(*chunk.outside) + " of geometry " +
                      std::to_string(chunk.geometry - scene_.instances[chunk.instance].firstGeometry) + " beyond ±" +
                      fmt::format("{:g}", maxSceneCoordinate) +
                      " in world space, or not finite once transformed; ptbench builds its BVHs over coordinates "
                      "within that bound: scale the scene down");
  std::vector<float> powers;
  for (Chunk& chunk : chunks) {
    auto& instance = scene_.instances[chunk.instance];
    if (chunk.firstTriangle == 0) {
      if (chunk.geometry == instance.firstGeometry)
        instance.emissiveBasesOffset = uint32_t(scene_.emissiveBases.size());
      scene_.emissiveBases.push_back(chunk.emissive ? uint32_t(scene_.emissiveTriangles.size()) : gpu::NOT_EMISSIVE);
    }
    scene_.bounds.extend(chunk.bounds);
    for (const auto& emitter : chunk.emitters) {
      scene_.emissiveTriangles.push_back(emitter);
      powers.push_back(emitter.power);
    }
    chunk.emitters = {};
  }
  scene_.totalEmissivePower = std::accumulate(powers.begin(), powers.end(), 0.0);
  scene_.lightAliasTable = buildAliasTable(powers);
  return std::move(scene_);
}

std::vector<gpu::AliasEntry> buildAliasTable(std::span<const float> weights) {
  const size_t n = weights.size();
  std::vector<gpu::AliasEntry> table(n);
  if (n == 0) return table;
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (total <= 0) return table;  // every pdf 0: nothing to sample
  std::vector<double> scaled(n);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    table[i] = {.probability = 1, .alias = static_cast<uint32_t>(i), .pdf = static_cast<float>(weights[i] / total)};
    (scaled[i] < 1 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const uint32_t s = small.back(), l = large.back();
    small.pop_back();
    table[s].probability = static_cast<float>(scaled[s]);
    table[s].alias = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left is 1 up to rounding: kept with certainty.
  for (uint32_t i : small) table[i].probability = 1;
  for (uint32_t i : large) table[i].probability = 1;
  return table;
}

}  // namespace ptbench
