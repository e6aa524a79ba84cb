#include "core/scene/builtin_scenes.h"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include "core/errors.h"
#include "core/progress.h"
#include "core/scene/bvh/thread_budget.h"
#include "core/scene/gltf_loader.h"

namespace ptbench {
namespace {

constexpr std::string_view builtinPrefix = "builtin:";

}  // namespace

gpu::Material lambertian(gpu::vec3 albedo) {
  gpu::Material m = defaultMaterial();
  m.baseColorFactor = {albedo.x, albedo.y, albedo.z, 1};
  m.metallicFactor = 0;
  m.roughnessFactor = 1;
  // KHR_materials_specular with factor 0: no specular lobe, a pure Lambertian surface.
  m.specularFactor = 0;
  m.doubleSided = 1;
  return m;
}

// A planar quad (corners in order) as two triangles, normal from the winding.
Primitive quad(const std::array<Vec3, 4>& corners, uint32_t material) {
  const Vec3 n = normalize(cross(corners[1] - corners[0], corners[2] - corners[0]));
  Primitive p{.material = material};
  for (const Vec3& c : corners) p.vertices.push_back({.position = {c.x, c.y, c.z}, .normal = {n.x, n.y, n.z}});
  p.indices = {0, 1, 2, 0, 2, 3};
  return p;
}

namespace {

// The Cornell box as measured at graphics.cornell.edu (millimetres, scaled to metres).
SceneData cornell() {
  SceneBuilder builder("builtin:cornell");
  const uint32_t white = builder.addMaterial(lambertian({0.725f, 0.71f, 0.68f}), "white");
  const uint32_t red = builder.addMaterial(lambertian({0.63f, 0.065f, 0.05f}), "red");
  const uint32_t green = builder.addMaterial(lambertian({0.14f, 0.45f, 0.091f}), "green");
  gpu::Material lightMaterial = lambertian({0.78f, 0.78f, 0.78f});
  lightMaterial.emissiveFactor = {17, 12, 4};
  const uint32_t light = builder.addMaterial(lightMaterial, "light");

  using Q = std::array<Vec3, 4>;
  std::vector<Primitive> primitives = {
      quad(Q{{{552.8f, 0, 0}, {0, 0, 0}, {0, 0, 559.2f}, {549.6f, 0, 559.2f}}}, white),                   // floor
      quad(Q{{{556, 548.8f, 0}, {556, 548.8f, 559.2f}, {0, 548.8f, 559.2f}, {0, 548.8f, 0}}}, white),     // ceiling
      quad(Q{{{549.6f, 0, 559.2f}, {0, 0, 559.2f}, {0, 548.8f, 559.2f}, {556, 548.8f, 559.2f}}}, white),  // back
      quad(Q{{{0, 0, 559.2f}, {0, 0, 0}, {0, 548.8f, 0}, {0, 548.8f, 559.2f}}}, green),                   // right
      quad(Q{{{552.8f, 0, 0}, {549.6f, 0, 559.2f}, {556, 548.8f, 559.2f}, {556, 548.8f, 0}}}, red),       // left
      // The light, just under the ceiling so that the two never share a plane.
      quad(Q{{{343, 548.7f, 227}, {343, 548.7f, 332}, {213, 548.7f, 332}, {213, 548.7f, 227}}}, light),
  };
  const std::array<Q, 5> shortBlock = {{
      {{{130, 165, 65}, {82, 165, 225}, {240, 165, 272}, {290, 165, 114}}},
      {{{290, 0, 114}, {290, 165, 114}, {240, 165, 272}, {240, 0, 272}}},
      {{{130, 0, 65}, {130, 165, 65}, {290, 165, 114}, {290, 0, 114}}},
      {{{82, 0, 225}, {82, 165, 225}, {130, 165, 65}, {130, 0, 65}}},
      {{{240, 0, 272}, {240, 165, 272}, {82, 165, 225}, {82, 0, 225}}},
  }};
  const std::array<Q, 5> tallBlock = {{
      {{{423, 330, 247}, {265, 330, 296}, {314, 330, 456}, {472, 330, 406}}},
      {{{423, 0, 247}, {423, 330, 247}, {472, 330, 406}, {472, 0, 406}}},
      {{{472, 0, 406}, {472, 330, 406}, {314, 330, 456}, {314, 0, 456}}},
      {{{314, 0, 456}, {314, 330, 456}, {265, 330, 296}, {265, 0, 296}}},
      {{{265, 0, 296}, {265, 330, 296}, {423, 330, 247}, {423, 0, 247}}},
  }};
  for (const auto& face : shortBlock) primitives.push_back(quad(face, white));
  for (const auto& face : tallBlock) primitives.push_back(quad(face, white));
  const uint32_t mesh = builder.addMesh(primitives);
  const float metres = 0.001f;
  builder.addInstance(mesh, Mat4::scale({metres, metres, metres}));
  // The measured camera: 35 mm focal length over a 25 mm film, looking in through the open side.
  builder.setCamera({.position = Vec3{278, 273, -800} * metres,
                     .target = Vec3{278, 273, 0} * metres,
                     .up = {0, 1, 0},
                     .yfovDegrees = 2 * std::atan(12.5f / 35.0f) * 180 / std::numbers::pi_v<float>},
                    1);
  return builder.finish();
}

// A white unit sphere at the origin under the environment: diffuse (albedo 1, no specular
// layer), a white metal, a white dielectric (the glTF defaults: specular 1, IOR 1.5), a clear
// glass (KHR_materials_transmission and _volume, no absorption), or the diffuse sphere under a
// white clearcoat or a white sheen; `roughness` is the metal's, dielectric's, glass's, coat's or
// sheen's.
SceneData furnace(const BuiltinSceneRequest& request) {
  SceneBuilder builder(request.spec);
  gpu::Material m = lambertian({1, 1, 1});
  if (request.material == "clearcoat") {
    m.clearcoatFactor = 1;
    m.clearcoatRoughnessFactor = request.roughness;
  } else if (request.material == "sheen") {
    m.sheenColorFactor = {1, 1, 1};
    m.sheenRoughnessFactor = request.roughness;
  } else if (request.material != "diffuse") {
    m.metallicFactor = request.material == "metal" || request.material == "mirror" ? 1 : 0;
    m.roughnessFactor = request.roughness;
    m.specularFactor = 1;
    if (request.material == "glass") {
      m.transmissionFactor = 1;
      m.thicknessFactor = 1;
    }
  }
  const uint32_t sphereMaterial = builder.addMaterial(m);
  std::vector<Primitive> primitives = {uvSphere(64, sphereMaterial)};
  builder.addInstance(builder.addMesh(primitives), Mat4{});
  builder.setCamera({.position = {0, 0, 4}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 35}, 1);
  return builder.finish();
}

gpu::vec3 hueColor(uint32_t i) {
  const float hue = float(i) * 0.618034f;
  constexpr float twoPi = 2 * std::numbers::pi_v<float>;
  return {0.5f + 0.5f * std::cos(twoPi * hue), 0.5f + 0.5f * std::cos(twoPi * (hue + 0.333f)),
          0.5f + 0.5f * std::cos(twoPi * (hue + 0.667f))};
}

// Material i of `materials=M`: class i mod 6 (diffuse, car paint, metal, glass, clearcoat, sheen).
gpu::Material divergenceMaterial(uint32_t i, uint32_t cost) {
  const gpu::vec3 color = hueColor(i);
  gpu::Material m = defaultMaterial();
  m.baseColorFactor = {color.x, color.y, color.z, 1};
  m.metallicFactor = 0;
  m.roughnessFactor = 0.5f;
  switch (i % sphereMaterialClassCycle) {
    case 0:
      break;
    case 1:
      return carPaint(color, cost);
    case 2:
      m.metallicFactor = 1;
      m.roughnessFactor = 0.25f;
      break;
    case 3:  // a tinted glass, absorbing inside the sphere
      m.baseColorFactor = {1, 1, 1, 1};
      m.roughnessFactor = 0.05f;
      m.transmissionFactor = 1;
      m.thicknessFactor = 2;
      m.attenuationColor = color;
      m.attenuationDistance = 2;
      break;
    case 4:
      m.clearcoatFactor = 1;
      m.clearcoatRoughnessFactor = 0.1f;
      break;
    case 5:  // a fabric
      m.roughnessFactor = 1;
      m.specularFactor = 0;
      m.sheenColorFactor = {1, 1, 1};
      m.sheenRoughnessFactor = 0.4f;
      break;
  }
  return m;
}

// A grid of n spheres lit by a quad light above: each with a material of its own, or with
// `materials` materials assigned in turn (divergenceMaterial).
SceneData spheres(const BuiltinSceneRequest& request, unsigned threads) {
  SceneBuilder builder(request.spec);
  std::vector<uint32_t> materials;
  const uint32_t count = request.count, subdivisions = request.subdivisions;
  for (uint32_t i = 0; i < request.materials; ++i)
    materials.push_back(
        builder.addMaterial(divergenceMaterial(i, request.cost), "sphere material " + std::to_string(i)));
  for (uint32_t i = 0; request.materials == 0 && i < count; ++i) {
    gpu::Material m = defaultMaterial();
    const gpu::vec3 color = hueColor(i);
    m.baseColorFactor = {color.x, color.y, color.z, 1};
    m.metallicFactor = float(i % 2);
    m.roughnessFactor = 0.05f + 0.9f * float((i * 7) % 11) / 10.0f;
    materials.push_back(builder.addMaterial(m));
  }
  gpu::Material lightMaterial = lambertian({0, 0, 0});
  lightMaterial.emissiveFactor = {10, 10, 10};
  const uint32_t light = builder.addMaterial(lightMaterial);

  std::vector<Primitive> sphere = {uvSphere(subdivisions, materials[0])};
  const uint32_t sphereMesh = builder.addMesh(sphere);
  const auto side = uint32_t(std::ceil(std::sqrt(double(count))));
  const float spacing = 2.5f;
  const float extent = spacing * float(side);
  for (uint32_t i = 0; i < count; ++i) {
    const Vec3 at{(float(i % side) - 0.5f * float(side - 1)) * spacing, 0,
                  (float(i / side) - 0.5f * float(side - 1)) * spacing};
    builder.addInstance(sphereMesh, Mat4::translation(at), materials[i % materials.size()]);
  }
  const float h = 4 + 0.25f * extent;
  using Q = std::array<Vec3, 4>;
  std::vector<Primitive> lightQuad = {quad(Q{{{-0.25f * extent, h, -0.25f * extent},
                                              {0.25f * extent, h, -0.25f * extent},
                                              {0.25f * extent, h, 0.25f * extent},
                                              {-0.25f * extent, h, 0.25f * extent}}},
                                           light)};
  builder.addInstance(builder.addMesh(lightQuad), Mat4{});
  builder.setCamera(
      {.position = {0, 0.6f * extent + 2, 0.9f * extent + 2}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 45},
      1);
  return builder.finish(threads);
}

// SplitMix64 (Steele, Lea and Flood 2014): built-in scenes scatter their parts with it because
// it gives the same stream on every platform and standard library, which std's distributions
// do not promise.
class SceneRandom {
 public:
  explicit SceneRandom(uint64_t seed) : state_(seed) {}
  float uniform() { return float(next() >> 40) * 0x1p-24f; }
  float between(float lowest, float highest) { return lowest + (highest - lowest) * uniform(); }
  uint32_t below(uint32_t bound) { return uint32_t((next() >> 32) * bound >> 32); }

 private:
  uint64_t next() {
    uint64_t z = state_ += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

void append(Primitive& to, const Primitive& from) {
  const auto base = uint32_t(to.vertices.size());
  to.vertices.insert(to.vertices.end(), from.vertices.begin(), from.vertices.end());
  for (uint32_t index : from.indices) to.indices.push_back(base + index);
}

// quad() with its corners ordered so that its normal points along `facing`.
Primitive facingQuad(std::array<Vec3, 4> corners, Vec3 facing, uint32_t material) {
  if (dot(cross(corners[1] - corners[0], corners[2] - corners[0]), facing) < 0) std::swap(corners[1], corners[3]);
  return quad(corners, material);
}

struct Box {
  Vec3 min, max;
  bool contains(Vec3 p, float margin) const {
    return p.x > min.x - margin && p.x < max.x + margin && p.y > min.y - margin && p.y < max.y + margin &&
           p.z > min.z - margin && p.z < max.z + margin;
  }
};

// A box's six faces, facing out (or in, for a room seen from inside).
Primitive boxFaces(const Box& box, uint32_t material, bool facingIn = false) {
  Primitive faces{.material = material};
  const Vec3 lo = box.min, hi = box.max, centre = (lo + hi) * 0.5f;
  using Q = std::array<Vec3, 4>;
  const std::array<Q, 6> sides = {{
      {{{lo.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {lo.x, lo.y, hi.z}}},
      {{{hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z}}},
      {{{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z}}},
      {{{lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}}},
      {{{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z}}},
      {{{lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}}},
  }};
  for (const Q& side : sides) {
    const Vec3 outward = (side[0] + side[2]) * 0.5f - centre;
    append(faces, facingQuad(side, facingIn ? outward * -1 : outward, material));
  }
  return faces;
}

// A yard (floor, two walls, boxes and pillars to cast shadows) under n small emissive
// triangles scattered from a fixed seed, of eight hues at four strengths and of varied sizes,
// with no other light. Their emission is scaled so that together they give
// manyLightsTotalPower whatever n is.
SceneData manyLights(const BuiltinSceneRequest& request, unsigned threads) {
  SceneBuilder builder(request.spec);
  const uint32_t floor = builder.addMaterial(lambertian({0.55f, 0.55f, 0.52f}), "floor");
  const uint32_t wall = builder.addMaterial(lambertian({0.6f, 0.58f, 0.55f}), "wall");
  const uint32_t blocks = builder.addMaterial(lambertian({0.7f, 0.7f, 0.7f}), "blocks");
  using Q = std::array<Vec3, 4>;
  std::vector<Primitive> yard = {
      // The floor reaches past the lights on the open side, to the edge of the camera's view.
      facingQuad(Q{{{-15, 0, -10}, {30, 0, -10}, {30, 0, 25}, {-15, 0, 25}}}, {0, 1, 0}, floor),
      facingQuad(Q{{{-15, 0, -10}, {30, 0, -10}, {30, 12, -10}, {-15, 12, -10}}}, {0, 0, 1}, wall),
      facingQuad(Q{{{-15, 0, -10}, {-15, 0, 15}, {-15, 12, 15}, {-15, 12, -10}}}, {1, 0, 0}, wall),
  };
  const std::vector<Box> obstacles = {
      {{-7, 0, -6}, {-5, 2.5f, -4}},     {{-1, 0, -8}, {1, 4, -7}},         {{4, 0, -5}, {7, 1.2f, -2}},
      {{-9, 0, 1}, {-8.4f, 3.5f, 1.6f}}, {{-3, 0, 0}, {-2.4f, 3.5f, 0.6f}}, {{2, 0, 2}, {2.6f, 3.5f, 2.6f}},
      {{7, 0, 3}, {7.6f, 3.5f, 3.6f}},   {{-5, 0, 6}, {-2, 0.8f, 8}},       {{3, 0, 7}, {5, 1.6f, 9}},
  };
  for (const Box& box : obstacles) yard.push_back(boxFaces(box, blocks));
  builder.addInstance(builder.addMesh(yard), Mat4{});

  constexpr uint32_t hues = 8, strengths = 4;
  struct Light {
    std::array<Vec3, 3> corners;
    uint32_t hue, strength;
  };
  std::vector<Light> lights;
  SceneRandom random(0x6d616e796c696768ull);
  const auto strengthOf = [](uint32_t level) { return std::pow(3.0f, float(level)); };  // 1 to 27
  // Each hue with its brightest channel 1; the strength scale below makes up for luminance.
  const auto colorOf = [](uint32_t hue) {
    const Vec3 c = toVec3(hueColor(hue));
    return c * (1 / std::max({c.x, c.y, c.z}));
  };
  double weightedArea = 0;
  while (lights.size() < request.count) {
    const Vec3 centre{random.between(-12, 12), random.between(0.3f, 4), random.between(-8, 12)};
    // A light inside a box would be lost to the image: drawn again.
    if (std::ranges::any_of(obstacles, [&](const Box& box) { return box.contains(centre, 0.2f); })) continue;
    // Facing down, tilted up to about 40 degrees; double-sided, so that the camera sees the
    // lights above it lit as well.
    const Vec3 normal = normalize({random.between(-0.8f, 0.8f), -1, random.between(-0.8f, 0.8f)});
    const Vec3 tangent = normalize(cross(normal, {0, 0, 1}));
    const Vec3 bitangent = cross(normal, tangent);
    const float radius = random.between(0.06f, 0.18f), turn = random.between(0, 2 * std::numbers::pi_v<float>);
    Light light{.hue = random.below(hues), .strength = random.below(strengths)};
    for (int k = 0; k < 3; ++k) {
      const float angle = turn + float(k) * 2 * std::numbers::pi_v<float> / 3;
      light.corners[size_t(k)] = centre + (tangent * std::cos(angle) + bitangent * std::sin(angle)) * radius;
    }
    const Vec3 e1 = light.corners[1] - light.corners[0], e2 = light.corners[2] - light.corners[0];
    weightedArea +=
        double(luminance(colorOf(light.hue)) * strengthOf(light.strength)) * 0.5 * double(length(cross(e1, e2)));
    lights.push_back(light);
  }
  const auto scale = float(manyLightsTotalPower / weightedArea);
  std::vector<Primitive> emitters;
  for (uint32_t hue = 0; hue < hues; ++hue)
    for (uint32_t strength = 0; strength < strengths; ++strength) {
      Primitive emitter;
      for (const Light& light : lights) {
        if (light.hue != hue || light.strength != strength) continue;
        const Vec3 n = normalize(cross(light.corners[1] - light.corners[0], light.corners[2] - light.corners[0]));
        for (const Vec3& c : light.corners) {
          emitter.indices.push_back(uint32_t(emitter.vertices.size()));
          emitter.vertices.push_back({.position = {c.x, c.y, c.z}, .normal = {n.x, n.y, n.z}});
        }
      }
      if (emitter.vertices.empty()) continue;
      gpu::Material m = lambertian({0, 0, 0});
      m.emissiveFactor = toGpu(colorOf(hue) * (scale * strengthOf(strength)));
      emitter.material = builder.addMaterial(m, "light " + std::to_string(hue) + "." + std::to_string(strength));
      emitters.push_back(std::move(emitter));
    }
  builder.addInstance(builder.addMesh(emitters), Mat4{});
  builder.setCamera({.position = {0, 8, 22}, .target = {0, 0.5f, 0}, .up = {0, 1, 0}, .yfovDegrees = 45}, 1);
  return builder.finish(threads);
}

// A closed room (6 x 3 x 8 metres) whose only light is a sun-like quad outside, ten metres
// beyond a window in the wall behind the camera: its direct light makes one patch on the floor
// near that wall, and the rest of the room, nearly all the camera sees, is lit by bounces.
SceneData room() {
  SceneBuilder builder("builtin:room");
  const uint32_t plaster = builder.addMaterial(lambertian({0.78f, 0.76f, 0.72f}), "plaster");
  const uint32_t floor = builder.addMaterial(lambertian({0.45f, 0.3f, 0.2f}), "floor");
  const uint32_t accent = builder.addMaterial(lambertian({0.35f, 0.45f, 0.65f}), "accent wall");
  const uint32_t wood = builder.addMaterial(lambertian({0.6f, 0.45f, 0.3f}), "furniture");
  const uint32_t ochre = builder.addMaterial(lambertian({0.75f, 0.55f, 0.2f}), "ball");
  const Box inside{{-3, 0, -4}, {3, 3, 4}};
  const float windowLeft = -1, windowRight = 1, windowBottom = 1.5f, windowTop = 2.6f;
  using Q = std::array<Vec3, 4>;
  const Vec3 lo = inside.min, hi = inside.max;
  std::vector<Primitive> shell = {
      facingQuad(Q{{{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z}}}, {0, 1, 0}, floor),
      facingQuad(Q{{{lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}}}, {0, -1, 0},
                 plaster),
      facingQuad(Q{{{lo.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {lo.x, lo.y, hi.z}}}, {1, 0, 0},
                 plaster),
      facingQuad(Q{{{hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z}}}, {-1, 0, 0},
                 plaster),
      facingQuad(Q{{{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z}}}, {0, 0, 1},
                 accent),
      // The window wall, around its opening.
      facingQuad(Q{{{lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, windowBottom, hi.z}, {lo.x, windowBottom, hi.z}}},
                 {0, 0, -1}, plaster),
      facingQuad(Q{{{lo.x, windowTop, hi.z}, {hi.x, windowTop, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}}},
                 {0, 0, -1}, plaster),
      facingQuad(Q{{{lo.x, windowBottom, hi.z},
                    {windowLeft, windowBottom, hi.z},
                    {windowLeft, windowTop, hi.z},
                    {lo.x, windowTop, hi.z}}},
                 {0, 0, -1}, plaster),
      facingQuad(Q{{{windowRight, windowBottom, hi.z},
                    {hi.x, windowBottom, hi.z},
                    {hi.x, windowTop, hi.z},
                    {windowRight, windowTop, hi.z}}},
                 {0, 0, -1}, plaster),
      boxFaces({{-2.9f, 0, -3.9f}, {-1.7f, 2.1f, -3.3f}}, wood),  // a cabinet against the far wall
      boxFaces({{0.2f, 0, -1.6f}, {1.8f, 0.75f, -0.6f}}, wood),   // a low table
      boxFaces({{2.2f, 0, -3.6f}, {2.9f, 0.45f, -1.8f}}, wood),   // a bench
  };
  builder.addInstance(builder.addMesh(shell), Mat4{});
  std::vector<Primitive> ball = {uvSphere(24, ochre)};
  const float ballRadius = 0.35f;
  builder.addInstance(builder.addMesh(ball), Mat4::translation({-1.2f, ballRadius, -1.5f}) *
                                                 Mat4::scale({ballRadius, ballRadius, ballRadius}));

  gpu::Material sunMaterial = lambertian({0, 0, 0});
  sunMaterial.emissiveFactor = {4000, 3720, 3200};
  sunMaterial.doubleSided = 0;
  const uint32_t sunLight = builder.addMaterial(sunMaterial, "sun");
  // High and to one side, so that its light falls steeply through the window.
  const Vec3 toSun = normalize({0.15f, 2.2f, 1});
  const Vec3 sunCentre = Vec3{0, 0.5f * (windowBottom + windowTop), hi.z} + toSun * 10;
  const Vec3 sunU = normalize(cross(toSun, {0, 1, 0})) * 1.5f, sunV = cross(normalize(sunU), toSun) * 1.5f;
  std::vector<Primitive> sun = {facingQuad(
      Q{{sunCentre - sunU - sunV, sunCentre + sunU - sunV, sunCentre + sunU + sunV, sunCentre - sunU + sunV}},
      toSun * -1, sunLight)};
  builder.addInstance(builder.addMesh(sun), Mat4{});
  builder.setCamera({.position = {2.2f, 1.5f, 3.6f}, .target = {-0.8f, 1.3f, -3}, .up = {0, 1, 0}, .yfovDegrees = 60},
                    1);
  return builder.finish();
}

std::map<std::string, std::string> parseQuery(const std::string& spec, std::string& name) {
  std::map<std::string, std::string> parameters;
  const size_t question = spec.find('?');
  name = spec.substr(builtinPrefix.size(),
                     question == std::string::npos ? std::string::npos : question - builtinPrefix.size());
  if (question == std::string::npos) return parameters;
  std::string_view rest = std::string_view(spec).substr(question + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos) throw UserError(spec + ": '" + std::string(pair) + "' is not key=value");
    parameters[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
  }
  return parameters;
}

uint32_t integerParameter(const std::string& spec, const std::map<std::string, std::string>& parameters,
                          const std::string& key, uint32_t fallback, uint32_t lowest, uint32_t highest) {
  const auto found = parameters.find(key);
  if (found == parameters.end()) return fallback;
  uint32_t value = 0;
  const auto [end, error] = std::from_chars(found->second.data(), found->second.data() + found->second.size(), value);
  if (error != std::errc{} || end != found->second.data() + found->second.size() || value < lowest || value > highest)
    throw UserError(spec + ": " + key + " must be an integer from " + std::to_string(lowest) + " to " +
                    std::to_string(highest));
  return value;
}

float fractionParameter(const std::string& spec, const std::map<std::string, std::string>& parameters,
                        const std::string& key) {
  const std::string& text = parameters.at(key);
  float value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || !(value >= 0 && value <= 1))
    throw UserError(spec + ": " + key + " must be a number from 0 to 1");
  return value;
}

void refuseUnknown(const std::string& spec, const std::map<std::string, std::string>& parameters,
                   std::initializer_list<std::string> known) {
  for (const auto& [key, value] : parameters)
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw UserError(spec + ": unknown parameter '" + key + "'");
}

}  // namespace

Primitive uvSphere(uint32_t subdivisions, uint32_t material) {
  Primitive p{.material = material};
  const uint32_t rings = std::max(subdivisions, 2u), segments = 2 * rings;
  for (uint32_t r = 0; r <= rings; ++r) {
    // The poles and the seam repeat vertices (for their uv): their positions must be exactly
    // equal, or the mesh has gaps a watertight ray test rightly passes through (sin(pi) and
    // sin(2 pi) are not 0 in float).
    const bool pole = r == 0 || r == rings;
    const float theta = std::numbers::pi_v<float> * float(r) / float(rings);
    const float sinTheta = pole ? 0.0f : std::sin(theta), cosTheta = r == 0       ? 1.0f
                                                                     : r == rings ? -1.0f
                                                                                  : std::cos(theta);
    for (uint32_t s = 0; s <= segments; ++s) {
      const float phi = s == segments ? 0.0f : 2 * std::numbers::pi_v<float> * float(s) / float(segments);
      const Vec3 n{sinTheta * std::cos(phi), cosTheta, -sinTheta * std::sin(phi)};
      const Vec3 t{-std::sin(phi), 0, -std::cos(phi)};
      p.vertices.push_back({.position = {n.x, n.y, n.z},
                            .normal = {n.x, n.y, n.z},
                            .uv0 = {float(s) / float(segments), float(r) / float(rings)},
                            .tangent = {t.x, t.y, t.z, 1}});
    }
  }
  for (uint32_t r = 0; r < rings; ++r)
    for (uint32_t s = 0; s < segments; ++s) {
      const uint32_t a = r * (segments + 1) + s, b = a + segments + 1;
      // The poles' degenerate triangles are left out.
      if (r != 0) p.indices.insert(p.indices.end(), {a, b, a + 1});
      if (r != rings - 1) p.indices.insert(p.indices.end(), {a + 1, b, b + 1});
    }
  return p;
}

BuiltinSceneRequest parseBuiltinScene(const std::string& spec) {
  std::string name;
  const auto parameters = parseQuery(spec, name);
  BuiltinSceneRequest request{.spec = spec};
  if (name == "cornell") {
    refuseUnknown(spec, parameters, {});
    request.kind = BuiltinSceneRequest::Cornell;
  } else if (name == "furnace") {
    refuseUnknown(spec, parameters, {"material", "roughness"});
    const auto found = parameters.find("material");
    request.kind = BuiltinSceneRequest::Furnace;
    request.material = found == parameters.end() ? "diffuse" : found->second;
    const std::set<std::string> materials = {"diffuse", "mirror", "metal", "dielectric", "glass", "clearcoat", "sheen"};
    if (!materials.contains(request.material))
      throw UserError(spec + ": material must be diffuse, mirror, metal, dielectric, glass, clearcoat or sheen");
    if (parameters.contains("roughness")) {
      if (request.material == "diffuse" || request.material == "mirror")
        throw UserError(spec +
                        ": roughness is a parameter of the metal, dielectric, glass, clearcoat and sheen furnaces");
      request.roughness = fractionParameter(spec, parameters, "roughness");
    } else if (request.material == "sheen") {
      request.roughness = 0.5f;
    }
  } else if (name == "spheres") {
    refuseUnknown(spec, parameters, {"n", "subdiv", "materials", "cost"});
    request.kind = BuiltinSceneRequest::Spheres;
    request.count = integerParameter(spec, parameters, "n", 16, 1, 1u << 20);
    request.subdivisions = integerParameter(spec, parameters, "subdiv", 16, 2, 2048);
    request.materials = integerParameter(spec, parameters, "materials", 0, 1, 1024);
    request.cost = integerParameter(spec, parameters, "cost", defaultCarPaintCost, 0, gpu::CAR_PAINT_MAX_OCTAVES);
    if (parameters.contains("cost") && request.materials < 2)
      throw UserError(spec + ": cost is the car paint's, which materials=2 or more brings in");
  } else if (name == "manylights") {
    refuseUnknown(spec, parameters, {"n"});
    request.kind = BuiltinSceneRequest::ManyLights;
    request.count = integerParameter(spec, parameters, "n", defaultManyLights, 1, maxManyLights);
  } else if (name == "room") {
    refuseUnknown(spec, parameters, {});
    request.kind = BuiltinSceneRequest::Room;
  } else {
    throw UserError("unknown built-in scene '" + spec +
                    "': the built-in scenes are builtin:cornell, "
                    "builtin:furnace[?material=diffuse|mirror|metal|dielectric|glass|clearcoat|sheen&roughness=R], "
                    "builtin:spheres?n=N&subdiv=S&materials=M&cost=K, builtin:manylights?n=N (N from 1 to " +
                    std::to_string(maxManyLights) + ") and builtin:room");
  }
  return request;
}

SceneData loadBuiltinScene(const std::string& spec, unsigned threads) {
  const BuiltinSceneRequest request = parseBuiltinScene(spec);
  switch (request.kind) {
    case BuiltinSceneRequest::Cornell:
      return cornell();
    case BuiltinSceneRequest::Furnace:
      return furnace(request);
    case BuiltinSceneRequest::Spheres:
      return spheres(request, threadsToUse(threads));
    case BuiltinSceneRequest::ManyLights:
      return manyLights(request, threadsToUse(threads));
    case BuiltinSceneRequest::Room:
      return room();
  }
  throw std::logic_error("unknown built-in scene kind");
}

gpu::Material carPaint(gpu::vec3 faceColor, uint32_t octaves) {
  gpu::Material m = defaultMaterial();
  m.model = gpu::MATERIAL_MODEL_CAR_PAINT;
  m.noiseOctaves = std::min(octaves, gpu::CAR_PAINT_MAX_OCTAVES);
  m.baseColorFactor = {faceColor.x, faceColor.y, faceColor.z, 1};
  m.sheenColorFactor = {0.6f * faceColor.z, 0.6f * faceColor.x, 0.6f * faceColor.y};  // the flop colour
  m.metallicFactor = 0;
  m.roughnessFactor = 0.35f;  // the flakes'
  m.clearcoatFactor = 1;
  m.clearcoatRoughnessFactor = 0.05f;
  return m;
}

void applyCarPaintOverride(SceneData& scene, const std::string& match, uint32_t cost) {
  uint32_t index = 0;
  const auto [end, error] = std::from_chars(match.data(), match.data() + match.size(), index);
  const bool byIndex = error == std::errc{} && end == match.data() + match.size();
  uint32_t matched = 0;
  for (uint32_t i = 0; i < scene.materials.size(); ++i) {
    const std::string& name = i < scene.materialNames.size() ? scene.materialNames[i] : std::string{};
    if (byIndex ? i != index : fnmatch(match.c_str(), name.c_str(), 0) != 0) continue;
    const gpu::vec4 base = scene.materials[i].baseColorFactor;
    gpu::Material paint = carPaint({base.x, base.y, base.z}, cost);
    std::copy(std::begin(scene.materials[i].textures), std::end(scene.materials[i].textures),
              std::begin(paint.textures));
    paint.normalScale = scene.materials[i].normalScale;
    paint.alphaMode = scene.materials[i].alphaMode;
    paint.alphaCutoff = scene.materials[i].alphaCutoff;
    paint.doubleSided = scene.materials[i].doubleSided;
    paint.emissiveFactor = scene.materials[i].emissiveFactor;
    scene.materials[i] = paint;
    ++matched;
  }
  if (matched > 0) return;
  std::string names;
  for (uint32_t i = 0; i < scene.materials.size(); ++i)
    names += (i ? ", " : "") + std::to_string(i) + " '" +
             (i < scene.materialNames.size() ? scene.materialNames[i] : "") + "'";
  throw UserError(scene.source + ": material_override '" + match + "' matches none of its materials (" + names + ")");
}

bool isBuiltinScene(const std::string& spec) {
  return spec.starts_with(builtinPrefix);
}

SceneData loadScene(const std::string& spec, unsigned threads) {
  if (isBuiltinScene(spec)) {
    const StepProgress progress("generating " + spec);
    return loadBuiltinScene(spec, threads);
  }
  return loadGltf(spec, threads);
}

}  // namespace ptbench
