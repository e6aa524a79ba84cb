// The environment map (core/scene/environment_map.h): radiance by direction, filtered
// bilinearly so that a map seen directly is smooth, and the distribution next-event estimation
// samples it by: a texel in proportion to the filtered radiance it holds, then a point uniformly
// within it (environmentSamplingWeights), whose pdf is environmentPdf's.
#ifndef PTBENCH_ENVIRONMENT_GLSL
#define PTBENCH_ENVIRONMENT_GLSL

PTBENCH_CONST float ENVIRONMENT_PI = 3.14159265358979;

layout(buffer_reference, scalar) readonly buffer EnvironmentTexels { vec3 t[]; };

bool hasEnvironmentMap() { return SCENE.environmentWidth > 0u; }
// Whether next-event estimation samples the map: it has one that sends some light.
bool hasEnvironmentLight() { return SCENE.environmentAliasTable != 0ul; }

vec2 environmentUv(vec3 direction) {
  float phi = atan(direction.x, -direction.z) + SCENE.environmentRotation;
  float u = fract(phi / (2.0 * ENVIRONMENT_PI) + 0.5);
  float v = acos(clamp(direction.y, -1.0, 1.0)) / ENVIRONMENT_PI;
  return vec2(u, v);
}

vec3 environmentDirection(vec2 uv) {
  float phi = 2.0 * ENVIRONMENT_PI * (uv.x - 0.5) - SCENE.environmentRotation;
  float theta = ENVIRONMENT_PI * uv.y;
  return vec3(sin(theta) * sin(phi), cos(theta), -sin(theta) * cos(phi));
}

uint environmentTexel(vec2 uv) {
  uvec2 size = uvec2(SCENE.environmentWidth, SCENE.environmentHeight);
  uvec2 texel = min(uvec2(uv * vec2(size)), size - 1u);
  return texel.y * size.x + texel.x;
}

// Bilinear between the four texel centres around uv, wrapping in u and clamped at the poles (the
// C++ twin: environmentRadiance).
vec3 environmentRadianceAt(vec2 uv) {
  ivec2 size = ivec2(SCENE.environmentWidth, SCENE.environmentHeight);
  vec2 position = uv * vec2(size) - 0.5;
  vec2 corner = floor(position);
  vec2 f = position - corner;
  ivec2 first = ivec2(corner);
  int x0 = (first.x % size.x + size.x) % size.x;
  int x1 = (x0 + 1) % size.x;
  int y0 = clamp(first.y, 0, size.y - 1);
  int y1 = clamp(first.y + 1, 0, size.y - 1);
  EnvironmentTexels texels = EnvironmentTexels(SCENE.environmentTexels);
  vec3 top = mix(texels.t[y0 * size.x + x0], texels.t[y0 * size.x + x1], f.x);
  vec3 bottom = mix(texels.t[y1 * size.x + x0], texels.t[y1 * size.x + x1], f.x);
  return mix(top, bottom, f.y) * SCENE.environmentIntensity;
}

// The map's radiance arriving along -direction (the light travelling opposite to it).
vec3 environmentMapRadiance(vec3 direction) {
  if (!hasEnvironmentMap()) return vec3(0.0);
  return environmentRadianceAt(environmentUv(direction));
}

// Solid-angle density of a texel's uniform (u, v): (width x height) / (2 pi^2 sin theta).
float environmentTexelDensity(uint texel, float sinTheta) {
  if (sinTheta <= 0.0) return 0.0;
  float texels = float(SCENE.environmentWidth) * float(SCENE.environmentHeight);
  return AliasTable(SCENE.environmentAliasTable).e[texel].pdf * texels /
         (2.0 * ENVIRONMENT_PI * ENVIRONMENT_PI * sinTheta);
}

// The solid-angle pdf with which sampleEnvironment chooses `direction`, before the choice of
// the environment among the kinds of light.
float environmentPdf(vec3 direction) {
  if (!hasEnvironmentLight()) return 0.0;
  vec2 uv = environmentUv(direction);
  return environmentTexelDensity(environmentTexel(uv), sin(ENVIRONMENT_PI * uv.y));
}

// A texel in proportion to its filtered luminance x sin theta (the alias table), then a point
// uniformly within it; its radiance is the filtered one there.
bool sampleEnvironment(uint indexBits, float coin, vec2 uPoint, out vec3 direction, out vec3 radiance,
                       out float pdf) {
  uint count = SCENE.environmentWidth * SCENE.environmentHeight;
  uint texel = aliasTableSample(AliasTable(SCENE.environmentAliasTable), count, indexBits, coin);
  vec2 uv = (vec2(texel % SCENE.environmentWidth, texel / SCENE.environmentWidth) + uPoint) /
            vec2(SCENE.environmentWidth, SCENE.environmentHeight);
  direction = environmentDirection(uv);
  radiance = environmentRadianceAt(uv);
  pdf = environmentTexelDensity(texel, sin(ENVIRONMENT_PI * uv.y));
  return pdf > 0.0 && maxComponent(radiance) > 0.0;
}

#endif
