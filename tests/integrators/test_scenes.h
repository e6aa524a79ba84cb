// Small scenes built in code for the integrator tests: quads, plain materials, instances.
#pragma once
#include <cmath>
#include <utility>
#include <vector>

#include "core/scene/builtin_scenes.h"
#include "core/scene/scene_data.h"

namespace ptbench::test {

inline Primitive quad(Vec3 corner, Vec3 edgeU, Vec3 edgeV, uint32_t material) {
  // Counter-clockwise seen from the side cross(edgeU, edgeV) points to: glTF's front face.
  const Vec3 n = normalize(cross(edgeU, edgeV));
  Primitive p{.material = material};
  const Vec3 corners[4] = {corner, corner + edgeU, corner + edgeU + edgeV, corner + edgeV};
  const gpu::vec2 uvs[4] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};  // glTF's v runs down the image
  const Vec3 tangent = normalize(edgeU);
  for (int k = 0; k < 4; ++k)
    p.vertices.push_back({.position = {corners[k].x, corners[k].y, corners[k].z},
                          .normal = {n.x, n.y, n.z},
                          .uv0 = uvs[k],
                          .uv1 = uvs[k],
                          .tangent = {tangent.x, tangent.y, tangent.z, 1}});
  p.indices = {0, 1, 2, 0, 2, 3};
  return p;
}

inline gpu::Material diffuse(float albedo) {
  gpu::Material m = defaultMaterial();
  m.baseColorFactor = {albedo, albedo, albedo, 1};
  m.metallicFactor = 0;
  m.specularFactor = 0;
  return m;
}

inline gpu::Material emitter(float radiance) {
  gpu::Material m = diffuse(0);
  m.emissiveFactor = {radiance, radiance, radiance};
  return m;  // single-sided
}

inline void addPrimitive(SceneBuilder& builder, Primitive primitive, const Mat4& transform) {
  std::vector<Primitive> mesh = {std::move(primitive)};
  builder.addInstance(builder.addMesh(mesh), transform);
}

// Panes over a floor lit by a point light, the sun and an emitter: clear thin glass (shadow
// rays cross it, tinted), rough thin glass and a volumetric slab (shadow rays stop; what is
// behind them is found by BSDF sampling), and blended thin glass (the alpha test first, then
// the wall). Seen from {0, 3.2, 2.6} looking at the origin, 60 degrees.
inline SceneData thinGlassPanesScene() {
  SceneBuilder builder("thin glass panes");
  addPrimitive(builder, quad({-2, 0, 2}, {4, 0, 0}, {0, 0, -4}, builder.addMaterial(diffuse(0.8f))), Mat4{});
  gpu::Material clear = defaultMaterial();
  clear.baseColorFactor = {0.9f, 0.6f, 0.3f, 1};
  clear.metallicFactor = 0;
  clear.roughnessFactor = 0;
  clear.transmissionFactor = 1;
  gpu::Material rough = clear;
  rough.roughnessFactor = 0.4f;
  gpu::Material slab = clear;
  slab.thicknessFactor = 0.1f;
  gpu::Material blended = clear;
  blended.alphaMode = gpu::ALPHA_BLEND;
  blended.baseColorFactor.w = 0.5f;
  const gpu::Material panes[] = {clear, rough, slab, blended};
  for (int i = 0; i < 4; ++i) {
    const Vec3 corner{i % 2 == 0 ? -1.6f : 0.2f, 0.6f, i / 2 == 0 ? 1.6f : -0.2f};
    addPrimitive(builder, quad(corner, {1.4f, 0, 0}, {0, 0, -1.4f}, builder.addMaterial(panes[i])), Mat4{});
  }
  addPrimitive(builder, quad({-0.3f, 2, -0.3f}, {0, 0, 0.6f}, {0.6f, 0, 0}, builder.addMaterial(emitter(4))), Mat4{});
  builder.addPunctualLight({.position = {0.1f, 1.4f, 0.2f}, .type = gpu::LIGHT_POINT, .intensity = {3, 3, 3}});
  const Vec3 sun = normalize(Vec3{0.3f, -1, 0.2f});
  builder.addPunctualLight(
      {.type = gpu::LIGHT_DIRECTIONAL, .direction = {sun.x, sun.y, sun.z}, .intensity = {1.5f, 1.5f, 1.5f}});
  builder.setCamera({.position = {0, 3.2f, 2.6f}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 60}, 1);
  return builder.finish();
}

}  // namespace ptbench::test
