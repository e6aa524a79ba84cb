#include "core/verify/analytic_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <optional>

#include "core/integrators/frame.h"
#include "core/scene/builtin_scenes.h"
#include "core/verify/directional_albedo.h"
#include "core/verify/student_t.h"

namespace ptbench::verify {
namespace {

using std::numbers::pi;

// A white furnace: a convex sphere under a uniform environment of radiance 1. Every ray that
// leaves the sphere escapes, so a pixel that sees the sphere at cosine mu between its ray and
// the normal has radiance albedo(mu), and every other pixel radiance 1. The pixel's value is the
// mean over its area (the renderer's box filter), taken on a grid of 8 x 8 rays through it,
// traced as shaders/common/camera.glsl does. The regions: pixels wholly off the sphere, pixels
// on its silhouette, and pixels wholly on it in bands of their mean mu.
void setFurnaceImage(AnalyticCase& c) {
  const SceneData& scene = c.sceneData;
  const RenderSettings& settings = c.settings;
  // A closed dielectric that absorbs nothing returns all it receives, by whatever paths: 1.
  const gpu::Material& material = scene.materials.at(0);
  const bool losslessGlass = material.transmissionFactor == 1 && material.metallicFactor == 0;
  const std::function<double(double)> albedo =
      losslessGlass ? std::function<double(double)>([](double) { return 1.0; })
                    : std::function<double(double)>(AlbedoTable(material, settings.msCompensation));
  const Vec3 centre = scene.bounds.center();
  const double radius = 0.5 * (scene.bounds.max.x - scene.bounds.min.x);
  const gpu::CameraParams camera = cameraParams(settings);
  const auto vec = [](gpu::vec3 v) { return std::array<double, 3>{v.x, v.y, v.z}; };
  const auto [forward, right, up] = std::array{vec(camera.forward), vec(camera.right), vec(camera.up)};
  const std::array<double, 3> origin = {camera.position.x - centre.x, camera.position.y - centre.y,
                                        camera.position.z - centre.z};
  constexpr int grid = 8;
  constexpr int bands = 8;
  enum : uint32_t { environment, silhouette, firstBand };
  std::vector<uint32_t> region(size_t{settings.width} * settings.height);
  c.expected.resize(region.size());
  for (uint32_t y = 0; y < settings.height; ++y)
    for (uint32_t x = 0; x < settings.width; ++x) {
      double sum = 0, cosViewSum = 0;
      int hits = 0;
      for (int j = 0; j < grid; ++j)
        for (int i = 0; i < grid; ++i) {
          const double ndcX = (x + (i + 0.5) / grid) / settings.width * 2 - 1;
          const double ndcY = (y + (j + 0.5) / grid) / settings.height * 2 - 1;
          std::array<double, 3> d;
          for (int k = 0; k < 3; ++k)
            d[k] =
                forward[k] + ndcX * camera.aspect * camera.tanHalfFovY * right[k] - ndcY * camera.tanHalfFovY * up[k];
          const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
          for (double& component : d) component /= length;
          // |origin + t d| = radius, the nearer root; the camera is outside the sphere.
          const double b = origin[0] * d[0] + origin[1] * d[1] + origin[2] * d[2];
          const double q = origin[0] * origin[0] + origin[1] * origin[1] + origin[2] * origin[2] - radius * radius;
          const double discriminant = b * b - q;
          const double t = discriminant > 0 ? -b - std::sqrt(discriminant) : -1;
          if (t <= 0) {
            sum += 1;
            continue;
          }
          double cosView = 0;
          for (int k = 0; k < 3; ++k) cosView -= d[k] * (origin[k] + t * d[k]) / radius;
          sum += albedo(cosView);
          cosViewSum += cosView;
          ++hits;
        }
      const size_t pixel = size_t{y} * settings.width + x;
      c.expected[pixel] = sum / (grid * grid);
      region[pixel] = hits == 0            ? environment
                      : hits < grid * grid ? silhouette
                                           : firstBand + std::min(int(cosViewSum / hits * bands), bands - 1);
    }
  std::vector<std::string> names = {"environment", "silhouette"};
  for (int band = 0; band < bands; ++band)
    names.push_back(fmt::format("sphere at cos {:.3f}-{:.3f}", double(band) / bands, double(band + 1) / bands));
  // Only the regions that have pixels, numbered in order.
  std::vector<uint32_t> renumbered(names.size(), UINT32_MAX);
  for (uint32_t r : region)
    if (renumbered[r] == UINT32_MAX) renumbered[r] = 0;
  for (uint32_t r = 0; r < names.size(); ++r)
    if (renumbered[r] == 0) {
      renumbered[r] = uint32_t(c.regionNames.size());
      c.regionNames.push_back(names[r]);
    }
  for (uint32_t& r : region) r = renumbered[r];
  c.regionOf = std::move(region);
}

// With msCompensation false, rendered and expected with single scattering alone
// (ms_compensation: false): rough metal returns less than it receives.
AnalyticCase furnace(const std::string& name, const std::string& spec, const CaseBudget& budget,
                     bool msCompensation = true) {
  AnalyticCase c{.name = "furnace, " + name, .scene = spec, .sceneData = loadScene(spec)};
  c.settings.msCompensation = msCompensation;
  c.settings.width = c.settings.height = budget.resolution;
  c.settings.samplesPerPixel = budget.samplesPerPixel;
  c.settings.maxDepth = 16;
  c.settings.environment = {1, 1, 1};
  c.settings.camera = c.sceneData.defaultCamera();
  setFurnaceImage(c);
  return c;
}

// A glass sphere in the furnace: the image is 1. A smooth sphere is checked like the other
// furnaces, region by region. A rough one only by its image mean, within 1%: multiple-scattering
// compensation gives back what GGX's single-scattering lobe loses between microfacets (without
// it, roughness 0.2 on an H100 at 32x32 and 256 spp gave image 0.991, silhouette 0.964, cos
// 0.25-0.375 0.950; roughness 0.5, 0.882), but its tables are accurate to a few tenths of a
// percent, and a path inside the sphere crosses many interfaces.
AnalyticCase glassFurnace(const std::string& name, const std::string& spec, const CaseBudget& budget) {
  AnalyticCase c = furnace(name, spec, budget);
  c.settings.maxDepth = 64;
  c.settings.rrDepth = 64;
  if (c.sceneData.materials.at(0).roughnessFactor > 0) {
    c.tolerance.relative = 0.01;
    c.regionNames.clear();
    c.regionOf.clear();
  }
  return c;
}

// A slab of thickness d whose volume attenuates to colour c over distance a, with IOR 1 so that
// no light reflects or bends: seen straight through against an environment of 1, it transmits
// exactly c^(d / a) (Beer-Lambert).
AnalyticCase beerLambertSlab() {
  const float thickness = 0.5f, attenuationColor = 0.25f, attenuationDistance = 0.75f;
  SceneBuilder builder("Beer-Lambert slab");
  gpu::Material m = lambertian({1, 1, 1});
  m.metallicFactor = 0;
  m.specularFactor = 1;
  m.ior = 1;
  m.transmissionFactor = 1;
  m.thicknessFactor = thickness;
  m.attenuationColor = {attenuationColor, attenuationColor, attenuationColor};
  m.attenuationDistance = attenuationDistance;
  const uint32_t material = builder.addMaterial(m);
  const float h = 0.5f * thickness;
  using Q = std::array<Vec3, 4>;
  std::vector<Primitive> faces = {quad(Q{{{-1, -1, h}, {1, -1, h}, {1, 1, h}, {-1, 1, h}}}, material),
                                  quad(Q{{{-1, -1, -h}, {-1, 1, -h}, {1, 1, -h}, {1, -1, -h}}}, material)};
  builder.addInstance(builder.addMesh(faces), Mat4{});
  AnalyticCase c{.name = "Beer-Lambert slab",
                 .scene = "a slab 0.5 thick attenuating to 0.25 over 0.75, IOR 1, seen through against white",
                 .sceneData = builder.finish()};
  c.settings.width = c.settings.height = 8;
  c.settings.samplesPerPixel = 4;
  c.settings.maxDepth = 8;
  c.settings.environment = {1, 1, 1};
  c.settings.camera = {.position = {0, 0, 4}, .target = {0, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 5};
  c.expected.assign(size_t{c.settings.width} * c.settings.height,
                    std::pow(double(attenuationColor), double(thickness) / attenuationDistance));
  c.tolerance.relative = 0.01;
  return c;
}

// Inside a closed sphere whose wall emits Le and reflects diffusely with albedo a, every path
// of D segments gathers Le (1 + a + ... + a^(D-1)): emission, next-event estimation, BSDF
// sampling and their MIS weights must add up to exactly that. A punctual light of no intensity
// changes nothing but the light-choice probabilities, which the MIS weights must follow.
AnalyticCase emissiveSphere(bool withDarkPunctualLight, const CaseBudget& budget) {
  const double albedo = 0.5;
  const uint32_t segments = 6;
  SceneBuilder builder("emissive sphere");
  if (withDarkPunctualLight)
    builder.addPunctualLight({.position = {0, 0, 0}, .type = gpu::LIGHT_POINT, .intensity = {0, 0, 0}});
  gpu::Material wall = lambertian({float(albedo), float(albedo), float(albedo)});
  wall.emissiveFactor = {1, 1, 1};
  const uint32_t material = builder.addMaterial(wall);
  std::vector<Primitive> sphere = {uvSphere(24, material)};
  builder.addInstance(builder.addMesh(sphere), Mat4::scale({2, 2, 2}));
  AnalyticCase c{.name = withDarkPunctualLight ? "emissive sphere, dark point light" : "emissive sphere",
                 .scene = "inside a Lambertian sphere emitting 1, albedo 0.5" +
                          std::string(withDarkPunctualLight ? ", a point light of intensity 0" : ""),
                 .sceneData = builder.finish()};
  c.settings.width = c.settings.height = std::max(budget.resolution / 2, 1u);
  c.settings.samplesPerPixel = budget.samplesPerPixel;
  c.settings.maxDepth = segments;
  c.settings.rrDepth = segments;  // no roulette: the series is cut at exactly six segments
  c.settings.camera = {.position = {0.3f, -0.2f, 0.1f}, .target = {1, 0, 0}, .up = {0, 1, 0}, .yfovDegrees = 60};
  c.expected.assign(size_t{c.settings.width} * c.settings.height, (1 - std::pow(albedo, segments)) / (1 - albedo));
  return c;
}

// A smooth thin wall of glass (KHR_materials_transmission, no KHR_materials_volume): light
// crosses it undeviated, and shadow rays cross it too.
gpu::Material thinGlass(float color, float ior) {
  gpu::Material glass = defaultMaterial();
  glass.baseColorFactor = {color, color, color, 1};
  glass.metallicFactor = 0;
  glass.roughnessFactor = 0;
  glass.ior = ior;
  glass.transmissionFactor = 1;
  return glass;
}

// A pane of thin glass over the plane of the punctual-light cases: what it transmits at normal
// incidence, its colour times 1 - F0, F0 = ((ior - 1) / (ior + 1))^2.
struct Pane {
  float color = 0.6f;
  float ior = 1.5f;
  double transmittance() const { return color * (1 - std::pow((ior - 1) / (ior + 1), 2.0)); }
};

// A Lambertian plane (albedo 0.5) seen from straight above over half a degree, lit by one
// punctual light: the radiance is albedo / pi times the irradiance, I / h^2 for a point, or a
// spot whose cone holds the point; E for a directional light; zero outside a spot's cone. The
// bounce escapes to a black sky. Every pixel is within 0.1% of the centre's value. With a pane
// at half the light's height, the light reaches the plane through it, and the irradiance is the
// pane's transmittance times the light's; the camera looks from under the pane.
AnalyticCase punctualLight(const std::string& name, const gpu::PunctualLight& light, double irradiance,
                           std::optional<Pane> pane = std::nullopt) {
  const float albedo = 0.5f;
  SceneBuilder builder(name);
  gpu::Material white = lambertian({albedo, albedo, albedo});
  const uint32_t material = builder.addMaterial(white);
  const float e = 10;
  std::vector<Primitive> plane = {{.vertices = {{.position = {-e, 0, -e}, .normal = {0, 1, 0}},
                                                {.position = {e, 0, -e}, .normal = {0, 1, 0}},
                                                {.position = {e, 0, e}, .normal = {0, 1, 0}},
                                                {.position = {-e, 0, e}, .normal = {0, 1, 0}}},
                                   .indices = {0, 2, 1, 0, 3, 2},
                                   .material = material}};
  const float paneHeight = 0.5f;
  if (pane) {
    using Q = std::array<Vec3, 4>;
    plane.push_back(quad(Q{{{-e, paneHeight, -e}, {-e, paneHeight, e}, {e, paneHeight, e}, {e, paneHeight, -e}}},
                         builder.addMaterial(thinGlass(pane->color, pane->ior))));
  }
  builder.addInstance(builder.addMesh(plane), Mat4{});
  builder.addPunctualLight(light);
  const std::string under =
      pane ? fmt::format(" through a thin glass pane (colour {}, IOR {})", pane->color, pane->ior) : std::string();
  AnalyticCase c{
      .name = name, .scene = "a Lambertian plane of albedo 0.5 under a " + name + under, .sceneData = builder.finish()};
  c.settings.width = c.settings.height = 8;
  c.settings.samplesPerPixel = 4;
  c.settings.maxDepth = 2;
  c.settings.rrDepth = 2;
  c.settings.camera = {
      .position = {0, pane ? 0.5f * paneHeight : 3, 0}, .target = {0, 0, 0}, .up = {0, 0, -1}, .yfovDegrees = 0.5f};
  c.expected.assign(size_t{c.settings.width} * c.settings.height,
                    albedo / pi * irradiance * (pane ? pane->transmittance() : 1.0));
  return c;
}

std::vector<AnalyticCase> punctualLightCases() {
  const float h = 1;  // the light's height over the plane
  const gpu::PunctualLight point{.position = {0, h, 0}, .type = gpu::LIGHT_POINT, .intensity = {4, 4, 4}};
  gpu::PunctualLight spot{.position = {0, h, 0},
                          .type = gpu::LIGHT_SPOT,
                          .direction = {0, -1, 0},
                          .intensity = {4, 4, 4},
                          .innerConeCos = std::cos(0.3f),
                          .outerConeCos = std::cos(0.5f)};
  gpu::PunctualLight spotAway = spot;
  spotAway.direction = {1, 0, 0};
  const gpu::PunctualLight sun{.type = gpu::LIGHT_DIRECTIONAL, .direction = {0, -1, 0}, .intensity = {2, 2, 2}};
  std::vector<AnalyticCase> cases;
  cases.push_back(punctualLight("point light", point, 4 / (h * h)));
  cases.push_back(punctualLight("spot light", spot, 4 / (h * h)));
  cases.push_back(punctualLight("spot light facing away", spotAway, 0));
  cases.push_back(punctualLight("directional light", sun, 2));
  cases.push_back(punctualLight("point light through thin glass", point, 4 / (h * h), Pane{}));
  cases.push_back(punctualLight("directional light through thin glass", sun, 2, Pane{.color = 0.8f, .ior = 1.33f}));
  return cases;
}

// A Lambertian floor (albedo a) inside a closed shell of smooth thin glass (IOR 1, so that it
// reflects nothing, colour c), inside a black sphere that emits 1 or under an environment map of
// 1: every ray up from the floor crosses the shell once, so the floor's irradiance is c pi and its
// radiance a c. Next-event estimation reaches the light through the shell (traceShadow) and BSDF
// sampling by crossing it; their MIS weights must sum to one over both, which holds only if the
// crossing keeps the floor's pdf and its distance to the emitter (path.glsl, misOrigin).
AnalyticCase thinGlassShell(bool environmentMap, const CaseBudget& budget) {
  const double albedo = 0.5, color = 0.5;
  SceneBuilder builder("thin glass shell");
  gpu::Material floor = lambertian({float(albedo), float(albedo), float(albedo)});
  floor.doubleSided = 0;  // single-sided, as the case was measured
  const uint32_t floorMaterial = builder.addMaterial(floor);
  const uint32_t glass = builder.addMaterial(thinGlass(float(color), 1));
  const float y = -0.5f, e = 5;
  using Q = std::array<Vec3, 4>;
  std::vector<Primitive> floorQuad = {quad(Q{{{-e, y, -e}, {-e, y, e}, {e, y, e}, {e, y, -e}}}, floorMaterial)};
  builder.addInstance(builder.addMesh(floorQuad), Mat4{});
  std::vector<Primitive> shell = {uvSphere(24, glass)};
  builder.addInstance(builder.addMesh(shell), Mat4{});
  if (!environmentMap) {
    gpu::Material wall = lambertian({0, 0, 0});
    wall.emissiveFactor = {1, 1, 1};
    std::vector<Primitive> sphere = {uvSphere(24, builder.addMaterial(wall))};
    builder.addInstance(builder.addMesh(sphere), Mat4::scale({2, 2, 2}));
  }
  const std::string light = environmentMap ? "an environment map of radiance 1" : "a black sphere emitting 1";
  AnalyticCase c{
      .name = environmentMap ? "thin glass shell, environment map" : "thin glass shell, emissive sphere",
      .scene = "a Lambertian floor of albedo 0.5 in a shell of thin glass (colour 0.5, IOR 1) under " + light,
      .sceneData = builder.finish()};
  if (environmentMap)
    c.sceneData.environmentMap = EnvironmentMap{.source = "a map of radiance 1",
                                                .width = 64,
                                                .height = 32,
                                                .rgb = std::vector<float>(64 * 32 * 3, 1.0f),
                                                .rotationDegrees = 30};
  c.settings.width = c.settings.height = std::max(budget.resolution / 2, 1u);
  c.settings.samplesPerPixel = budget.samplesPerPixel;
  // Camera to floor, floor to shell, shell to light: the BSDF's way to the light is one segment
  // longer than the light sample's, and must not be cut.
  c.settings.maxDepth = 3;
  c.settings.rrDepth = 3;
  c.settings.camera = {.position = {0, 0, 0}, .target = {0, y, 0}, .up = {0, 0, -1}, .yfovDegrees = 60};
  c.expected.assign(size_t{c.settings.width} * c.settings.height, albedo * color);
  return c;
}

// The diffuse furnace with its uniform light coming from an environment map of radiance 1,
// turned by 30 degrees: every direction the importance sampling of the map picks, and its pdf
// in solid angle (texel choice, uniform within the texel, the sin theta of the mapping), must
// combine with BSDF sampling under MIS into exactly the constant environment's image.
AnalyticCase environmentFurnace(const CaseBudget& budget) {
  AnalyticCase c = furnace("diffuse, environment map", "builtin:furnace", budget);
  c.scene = "builtin:furnace under an environment map of radiance 1";
  c.settings.environment = {0, 0, 0};
  c.sceneData.environmentMap = EnvironmentMap{.source = "a map of radiance 1",
                                              .width = 64,
                                              .height = 32,
                                              .rgb = std::vector<float>(64 * 32 * 3, 1.0f),
                                              .rotationDegrees = 30};
  return c;
}

// A Lambertian plane (albedo 0.5), tilted, under an environment map with a sky gradient and a
// small bright patch, the map turned by 50 degrees; seen along its normal over half a degree.
// The radiance is albedo / pi times the irradiance, the integral over the map of its radiance
// times the cosine to the normal, here summed texel by texel with 32 x 32 midpoints each through
// environmentDirection and environmentRadiance, the mapping and the bilinear filtering the
// shaders use. Lookup, sampling, pdfs and the rotation must all be right for the image to match.
AnalyticCase environmentIrradiance(const CaseBudget& budget) {
  const double albedo = 0.5;
  EnvironmentMap map{.source = "a sky with a bright patch", .width = 32, .height = 16, .rotationDegrees = 50};
  map.rgb.resize(size_t{map.width} * map.height * 3);
  for (uint32_t y = 0; y < map.height; ++y)
    for (uint32_t x = 0; x < map.width; ++x) {
      const bool patch = x >= 5 && x <= 7 && y >= 3 && y <= 4;
      const float radiance = patch ? 40.0f : 0.2f + 0.6f * float(y) / float(map.height);
      for (int k = 0; k < 3; ++k) map.rgb[(size_t{y} * map.width + x) * 3 + k] = radiance;
    }
  const Vec3 normal = normalize(Vec3{0.3f, 1, 0.45f});
  const Vec3 tangent = normalize(cross(normal, Vec3{0, 0, 1}));
  const Vec3 bitangent = cross(tangent, normal);

  constexpr int sub = 32;
  double irradiance = 0;
  for (uint32_t y = 0; y < map.height; ++y)
    for (uint32_t x = 0; x < map.width; ++x)
      for (int j = 0; j < sub; ++j)
        for (int i = 0; i < sub; ++i) {
          const double u = (x + (i + 0.5) / sub) / map.width, v = (y + (j + 0.5) / sub) / map.height;
          const Vec3 w = environmentDirection(map, u, v);
          const double cosine = std::max(0.0, double(dot(w, normal)));
          const double solidAngle = 2 * pi * pi * std::sin(pi * v) / (double(map.width) * map.height * sub * sub);
          irradiance += environmentRadiance(map, u, v).x * cosine * solidAngle;
        }

  SceneBuilder builder("a tilted plane under an environment map");
  gpu::Material white = lambertian({float(albedo), float(albedo), float(albedo)});
  white.doubleSided = 0;  // single-sided, as the case was measured
  const uint32_t material = builder.addMaterial(white);
  const float e = 10;
  const auto corner = [&](float a, float b) {
    const Vec3 p = tangent * a + bitangent * b;
    return gpu::Vertex{.position = {p.x, p.y, p.z}, .normal = {normal.x, normal.y, normal.z}};
  };
  std::vector<Primitive> plane = {{.vertices = {corner(-e, -e), corner(e, -e), corner(e, e), corner(-e, e)},
                                   .indices = {0, 1, 2, 0, 2, 3},
                                   .material = material}};
  // Counter-clockwise about the normal: tangent x bitangent = normal.
  builder.addInstance(builder.addMesh(plane), Mat4{});
  AnalyticCase c{.name = "environment map irradiance",
                 .scene = "a tilted Lambertian plane of albedo 0.5 under an environment map with a bright patch",
                 .sceneData = builder.finish()};
  c.sceneData.environmentMap = std::move(map);
  c.settings.width = c.settings.height = 8;
  c.settings.samplesPerPixel = budget.samplesPerPixel * 16;  // 64 pixels: cheap, and the patch is a hard light
  c.settings.maxDepth = 2;
  c.settings.rrDepth = 2;
  const Vec3 eye = normal * 3.0f;
  c.settings.camera = {.position = eye, .target = {0, 0, 0}, .up = bitangent, .yfovDegrees = 0.5f};
  c.expected.assign(size_t{c.settings.width} * c.settings.height, albedo / pi * irradiance);
  return c;
}

// The camera looking at a point of a map whose texels all differ, the map turned by 50 degrees
// and scaled by 2, over half a degree (a texel spans 11.25): every camera ray escapes there, so
// every pixel is the map's filtered radiance there times 2. The point lies off texel (21, 5)'s
// centre by 0.1 of a texel in u and 0.4 in v, so that bilinear filtering (which gives
// 0.1 + 21.1 + 32 x 5.4, the texels rising linearly) and a texel lookup (0.1 + 21 + 32 x 5)
// differ by 7%. Holds the lookup of escaped rays (direction, rotation, filtering, intensity) to
// the mapping the irradiance case integrates.
AnalyticCase environmentSeenDirectly() {
  EnvironmentMap map{
      .source = "a map of distinct texels", .width = 32, .height = 16, .intensity = 2, .rotationDegrees = 50};
  for (uint32_t y = 0; y < map.height; ++y)
    for (uint32_t x = 0; x < map.width; ++x)
      for (int k = 0; k < 3; ++k) map.rgb.push_back(0.1f + float(x) + 32.0f * float(y));
  const double u = (21 + 0.6) / map.width, v = (5 + 0.9) / map.height;
  const Vec3 view = environmentDirection(map, u, v);
  const double expected = map.intensity * environmentRadiance(map, u, v).x;
  // Something to trace against, far out of view: a scene needs geometry.
  SceneBuilder builder("an environment map seen directly");
  const uint32_t material = builder.addMaterial(defaultMaterial());
  std::vector<Primitive> floor = {{.vertices = {{.position = {-1, -100, -1}, .normal = {0, 1, 0}},
                                                {.position = {1, -100, -1}, .normal = {0, 1, 0}},
                                                {.position = {0, -100, 1}, .normal = {0, 1, 0}}},
                                   .indices = {0, 2, 1},
                                   .material = material}};
  builder.addInstance(builder.addMesh(floor), Mat4{});
  AnalyticCase c{.name = "environment map seen directly",
                 .scene =
                     "the camera looking into texel (21, 5), off its centre, of a map turned by 50 degrees, "
                     "intensity 2",
                 .sceneData = builder.finish()};
  c.sceneData.environmentMap = std::move(map);
  c.settings.width = c.settings.height = 8;
  c.settings.samplesPerPixel = 4;
  c.settings.maxDepth = 1;
  c.settings.camera = {.position = {0, 0, 0}, .target = view, .up = {0, 1, 0}, .yfovDegrees = 0.5f};
  c.expected.assign(size_t{c.settings.width} * c.settings.height, expected);
  return c;
}

}  // namespace

std::vector<AnalyticCase> analyticCases(const CaseBudget& budget) {
  std::vector<AnalyticCase> cases;
  cases.push_back(furnace("diffuse", "builtin:furnace", budget));
  cases.push_back(furnace("mirror", "builtin:furnace?material=mirror", budget));
  cases.push_back(furnace("smooth dielectric", "builtin:furnace?material=dielectric", budget));
  cases.push_back(furnace("rough dielectric", "builtin:furnace?material=dielectric&roughness=0.5", budget));
  // Compensated, a sample of the smooth metal is 1 / E(mu) unless its two directions are masked,
  // which few are: at 1 or 2 spp a band's few pixels all sit at 1 / E, 1% above the band's mean,
  // with no scatter to show the rare low ones (lavapipe, 16x16: cos 0.75-0.875 at 1.0095 against
  // 0.9987 within 0.0035). From 4 spp on the pixels' own variance sees them, so it never renders
  // fewer (its samples_per_pixel in verify's JSON says so).
  AnalyticCase smoothMetal = furnace("rough metal 0.3", "builtin:furnace?material=metal&roughness=0.3", budget);
  smoothMetal.settings.samplesPerPixel = std::max(smoothMetal.settings.samplesPerPixel, 4u);
  cases.push_back(std::move(smoothMetal));
  cases.push_back(furnace("rough metal 0.5", "builtin:furnace?material=metal&roughness=0.5", budget));
  cases.push_back(furnace("rough metal 0.8", "builtin:furnace?material=metal&roughness=0.8", budget));
  cases.push_back(
      furnace("rough metal 0.8, single scattering", "builtin:furnace?material=metal&roughness=0.8", budget, false));
  cases.push_back(glassFurnace("smooth glass", "builtin:furnace?material=glass", budget));
  cases.push_back(glassFurnace("rough glass 0.3", "builtin:furnace?material=glass&roughness=0.3", budget));
  cases.push_back(glassFurnace("rough glass 0.5", "builtin:furnace?material=glass&roughness=0.5", budget));
  cases.push_back(furnace("clearcoat", "builtin:furnace?material=clearcoat&roughness=0.3", budget));
  cases.push_back(furnace("sheen", "builtin:furnace?material=sheen&roughness=0.5", budget));
  cases.push_back(beerLambertSlab());
  cases.push_back(emissiveSphere(false, budget));
  cases.push_back(emissiveSphere(true, budget));
  for (AnalyticCase& c : punctualLightCases()) cases.push_back(std::move(c));
  cases.push_back(environmentFurnace(budget));
  cases.push_back(environmentIrradiance(budget));
  cases.push_back(environmentSeenDirectly());
  cases.push_back(thinGlassShell(false, budget));
  cases.push_back(thinGlassShell(true, budget));
  return cases;
}

uint32_t minimumSamplesPerPixel(const AnalyticCase& analyticCase) {
  if (analyticCase.expected.size() < 2) return 2;
  std::vector<uint32_t> pixels(analyticCase.regionNames.size());
  for (uint32_t region : analyticCase.regionOf) pixels.at(region) += 1;
  return std::all_of(pixels.begin(), pixels.end(), [](uint32_t n) { return n >= 2; }) ? 1 : 2;
}

bool MeanCheck::passed() const {
  // Written so that a NaN fails.
  return std::fabs(measured - expected) <= tolerance;
}

uint32_t CaseCheck::regionsOff() const {
  return uint32_t(std::count_if(regions.begin(), regions.end(), [](const MeanCheck& r) { return !r.passed(); }));
}

std::string CaseCheck::problems() const {
  std::string text;
  const auto add = [&](const std::string& problem) { text += (text.empty() ? "" : "; ") + problem; };
  const auto describe = [](const MeanCheck& check) {
    return fmt::format("{} mean {:.5f}, expected {:.5f} ± {:.5f}", check.region, check.measured, check.expected,
                       check.tolerance);
  };
  if (!image.passed()) add(describe(image));
  for (const MeanCheck& region : regions)
    if (!region.passed()) add(describe(region));
  if (invalidSamples > 0) add(fmt::format("{} invalid samples", invalidSamples));
  return text;
}

// Below this many samples a pixel's own variance misses too much (paths too rare for a few
// samples to meet, and the low-discrepancy sampler's errors, which its own samples do not show:
// at 4 spp the sheen furnace's band at cos 0.625-0.75 sat 7 of them off on lavapipe), so the
// pixels' scatter about their answers is taken as well, whichever is larger.
constexpr uint32_t fewSamplesPerPixel = 16;

CaseCheck checkFrame(const AnalyticCase& analyticCase, const FrameResult& frame) {
  const std::vector<double>& expected = analyticCase.expected;
  if (frame.image.rgb.size() != 3 * expected.size() || frame.meanVariance.rgb.size() != frame.image.rgb.size())
    throw std::logic_error(fmt::format("{}: a frame of {} values for an expected image of {} pixels", analyticCase.name,
                                       frame.image.rgb.size(), expected.size()));
  // Sums over a region: expected values, and per channel the pixel values, the variances of
  // the pixel means (independent pixels: the variance of the region's sum is their sum), and
  // the pixels' residuals from their answers with their squares, whose scatter is the noise
  // estimate where one sample per pixel has no variance of its own.
  struct Sums {
    uint32_t pixels = 0;
    double expected = 0;
    std::array<double, 3> value{}, variance{}, residualSquares{};
  };
  const auto add = [&](Sums& sums, size_t pixel) {
    sums.pixels += 1;
    sums.expected += expected[pixel];
    for (size_t channel = 0; channel < 3; ++channel) {
      const double value = frame.image.rgb[3 * pixel + channel];
      sums.value[channel] += value;
      sums.variance[channel] += frame.meanVariance.rgb[3 * pixel + channel];
      sums.residualSquares[channel] += (value - expected[pixel]) * (value - expected[pixel]);
    }
  };
  const uint32_t samples = analyticCase.settings.samplesPerPixel;
  const Tolerance& tolerance = analyticCase.tolerance;
  const auto meanCheck = [&](const std::string& name, const Sums& sums) {
    MeanCheck check{.region = name, .pixels = sums.pixels, .expected = sums.expected / sums.pixels};
    const double n = sums.pixels;
    double worst = -1;
    for (size_t channel = 0; channel < 3; ++channel) {
      const double mean = sums.value[channel] / n;
      const double deviation = std::fabs(mean - check.expected);
      if (std::isnan(worst) || deviation <= worst) continue;  // a NaN mean is the worst and stays so
      worst = deviation;
      check.measured = mean;
      // The residuals' sample variance about their mean (the mean residual being the bias),
      // over the pixels: the variance of one pixel's error.
      const double meanResidual = mean - check.expected;
      const double scatter =
          n > 1 ? std::max(0.0, sums.residualSquares[channel] - n * meanResidual * meanResidual) / (n - 1)
                : std::numeric_limits<double>::infinity();
      const double scatterError = std::sqrt(scatter / n);
      const double ownError = std::sqrt(sums.variance[channel]) / n;
      // A region of one pixel has no scatter to estimate: its own variance is all there is.
      if (samples > 1 && (samples >= fewSamplesPerPixel || n < 2 || ownError >= scatterError)) {
        check.standardError = ownError;
        check.degreesOfFreedom = n * (samples - 1);
      } else {
        check.standardError = scatterError;
        check.degreesOfFreedom = n - 1;
      }
    }
    check.standardErrors = check.degreesOfFreedom >= 1
                               ? studentCriticalValue(tolerance.standardErrors, check.degreesOfFreedom)
                               : std::numeric_limits<double>::infinity();
    check.tolerance = check.standardErrors * check.standardError + tolerance.relative * std::fabs(check.expected) +
                      tolerance.absolute;
    return check;
  };

  Sums image;
  std::vector<Sums> regions(analyticCase.regionNames.size());
  for (size_t pixel = 0; pixel < expected.size(); ++pixel) {
    add(image, pixel);
    if (!regions.empty()) add(regions.at(analyticCase.regionOf.at(pixel)), pixel);
  }
  CaseCheck check{.image = meanCheck("image", image), .invalidSamples = frame.invalidSamples};
  for (size_t r = 0; r < regions.size(); ++r)
    check.regions.push_back(meanCheck(analyticCase.regionNames[r], regions[r]));
  return check;
}

}  // namespace ptbench::verify
