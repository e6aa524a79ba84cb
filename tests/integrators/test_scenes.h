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

}  // namespace ptbench::test
