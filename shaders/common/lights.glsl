// Lights for next-event estimation. Emissive triangles: chosen in proportion to power
// through the alias table, then a point uniformly on the triangle's area. The environment map:
// a texel by its luminance, then a point in it (environment.glsl). KHR_lights_punctual lights:
// chosen uniformly. Each kind the scene has is chosen with the same probability.
#ifndef PTBENCH_LIGHTS_GLSL
#define PTBENCH_LIGHTS_GLSL
#include "common/environment.glsl"
#include "shared/restir.h"

struct LightSample {
  vec3 direction;  // from the shading point to the light
  float distance;
  vec3 radiance;   // for a punctual light: the irradiance it delivers head-on
  float pdf;       // solid angle; for a punctual light, the probability of choosing it
  bool delta;      // punctual: no BSDF sample can hit it, so no MIS
};

bool hasEmissiveTriangles() { return SCENE.emissiveTriangleCount > 0u && SCENE.totalEmissivePower > 0.0; }

// The kinds of light the scene has, in the order sampleLight numbers them: emissive triangles,
// the environment map, punctual lights.
uint lightKindCount() {
  return uint(hasEmissiveTriangles()) + uint(hasEnvironmentLight()) + uint(SCENE.punctualLightCount > 0u);
}

// The probability of choosing any one kind of light.
float lightKindProbability() {
  uint kinds = lightKindCount();
  return kinds > 0u ? 1.0 / float(kinds) : 0.0;
}

struct EmitterPoint {
  vec3 position;
  vec3 normal;
  float area;
  vec3 radiance;  // towards the shading point, zero if the emitter faces away
};

EmitterPoint emitterPoint(uint lightIndex, vec3 barycentrics, vec3 from) {
  EmissiveTriangle light = EmissiveTriangles(SCENE.emissiveTriangles).t[lightIndex];
  Instance instance = Instances(SCENE.instances).i[light.instance];
  TriangleVertices tri = fetchTriangle(light.geometry, light.triangle);
  vec3 p0 = toWorldPoint(instance, tri.v0.position);
  vec3 p1 = toWorldPoint(instance, tri.v1.position);
  vec3 p2 = toWorldPoint(instance, tri.v2.position);
  vec3 c = cross(p1 - p0, p2 - p0);
  EmitterPoint e;
  e.position = barycentricMix(p0, p1, p2, barycentrics);
  e.area = 0.5 * length(c);
  e.normal = c / max(2.0 * e.area, 1e-30) * instance.windingSign;
  uint material = materialOf(instance, light.geometry);
  bool facing = dot(e.normal, e.position - from) < 0.0 || MATERIAL(material).doubleSided != 0u;
  vec2 uv0 = barycentricMix(tri.v0.uv0, tri.v1.uv0, tri.v2.uv0, barycentrics);
  vec2 uv1 = barycentricMix(tri.v0.uv1, tri.v1.uv1, tri.v2.uv1, barycentrics);
  float cosView = dot(e.normal, normalize(from - e.position));
  e.radiance = facing ? emissionOf(material, uv0, uv1, cosView) * emitterCoverage(material, tri, barycentrics, uv0, uv1)
                      : vec3(0.0);
  return e;
}

bool sampleEmissiveTriangle(vec3 from, uint indexBits, float coin, vec2 uPoint, out LightSample result,
                            out LightRef ref) {
  AliasTable table = AliasTable(SCENE.lightAliasTable);
  uint index = aliasTableSample(table, SCENE.emissiveTriangleCount, indexBits, coin);
  float su = sqrt(uPoint.x);
  vec3 barycentrics = vec3(1.0 - su, uPoint.y * su, 0.0);
  barycentrics.z = 1.0 - barycentrics.x - barycentrics.y;
  ref = LightRef(RESTIR_LIGHT_TRIANGLE, index, barycentrics);
  EmitterPoint e = emitterPoint(index, barycentrics, from);
  vec3 d = e.position - from;
  float distanceSquared = dot(d, d);
  if (distanceSquared <= 0.0 || e.area <= 0.0) return false;
  result.distance = sqrt(distanceSquared);
  result.direction = d / result.distance;
  float cosLight = abs(dot(e.normal, result.direction));
  if (cosLight <= 0.0 || maxComponent(e.radiance) <= 0.0) return false;
  result.radiance = e.radiance;
  result.pdf = table.e[index].pdf / e.area * distanceSquared / cosLight;
  result.delta = false;
  return result.pdf > 0.0;
}

// KHR_lights_punctual, with the falloffs the extension recommends: inverse square with the
// smooth range window, and the squared linear ramp between the spot's cone angles.
bool samplePunctualLight(vec3 from, uint index, out LightSample result) {
  PunctualLight light = PunctualLights(SCENE.punctualLights).l[index];
  result.delta = true;
  if (light.type == LIGHT_DIRECTIONAL) {
    result.direction = -light.direction;
    result.distance = RAY_T_MAX;
    result.radiance = light.intensity;
    return true;
  }
  vec3 d = light.position - from;
  float distanceSquared = dot(d, d);
  if (distanceSquared <= 0.0) return false;
  result.distance = sqrt(distanceSquared);
  result.direction = d / result.distance;
  float attenuation = 1.0 / distanceSquared;
  if (light.range > 0.0) {
    float ratio = result.distance / light.range;
    attenuation *= clamp(1.0 - ratio * ratio * ratio * ratio, 0.0, 1.0);
  }
  if (light.type == LIGHT_SPOT) {
    float scale = 1.0 / max(0.001, light.innerConeCos - light.outerConeCos);
    float ramp = clamp((dot(light.direction, -result.direction) - light.outerConeCos) * scale, 0.0, 1.0);
    attenuation *= ramp * ramp;
  }
  result.radiance = light.intensity * attenuation;
  return maxComponent(result.radiance) > 0.0;
}

// uChoice picks the kind of light and, rescaled, the punctual light or an alias table's coin;
// indexBits the emissive triangle or the environment's texel. `ref` names the sample so that
// another shading point can evaluate it (ReSTIR's reservoirs, evaluateLightRef).
bool sampleLight(vec3 from, float uChoice, uint indexBits, vec2 uPoint, out LightSample result, out LightRef ref) {
  ref = LightRef(RESTIR_LIGHT_NONE, 0u, vec3(0.0));
  uint kinds = lightKindCount();
  if (kinds == 0u) return false;
  float scaled = uChoice * float(kinds);
  uint kind = min(uint(scaled), kinds - 1u);
  float u = scaled - float(kind);
  float kindProbability = 1.0 / float(kinds);
  if (hasEmissiveTriangles()) {
    if (kind == 0u) {
      if (!sampleEmissiveTriangle(from, indexBits, u, uPoint, result, ref)) return false;
      result.pdf *= kindProbability;
      return true;
    }
    --kind;
  }
  if (hasEnvironmentLight()) {
    if (kind == 0u) {
      result.distance = RAY_T_MAX;
      result.delta = false;
      if (!sampleEnvironment(indexBits, u, uPoint, result.direction, result.radiance, result.pdf)) return false;
      result.pdf *= kindProbability;
      ref = LightRef(RESTIR_LIGHT_ENVIRONMENT, 0u, result.direction);
      return true;
    }
  }
  uint count = SCENE.punctualLightCount;
  uint index = min(uint(u * float(count)), count - 1u);
  if (!samplePunctualLight(from, index, result)) return false;
  result.pdf = kindProbability / float(count);
  ref = LightRef(RESTIR_LIGHT_PUNCTUAL, index, vec3(0.0));
  return true;
}

bool sampleLight(vec3 from, float uChoice, uint indexBits, vec2 uPoint, out LightSample result) {
  LightRef unused;
  return sampleLight(from, uChoice, indexBits, uPoint, result, unused);
}

// Where a shadow ray towards `light` stops: short of an emitter, so that it does not occlude
// itself.
float shadowRayEnd(LightSample light) {
  return light.delta && light.distance >= RAY_T_MAX ? RAY_T_MAX : light.distance * (1.0 - 1e-4);
}

// A named light sample seen from `from`: its direction and distance, its radiance (a punctual
// light's irradiance head-on), the solid-angle density with which sampleLight draws it from
// there (for MIS against the BSDF; a punctual light's is its choice's probability), and the
// factor that turns a solid-angle density at `from` into one in the sample's own measure
// (cos / distance^2 on a triangle's area; 1 for a direction of the environment and for a
// punctual light, counted). False where it sends nothing to `from`.
bool evaluateLightRef(LightRef ref, vec3 from, out LightSample result, out float toMeasure) {
  result.pdf = 0.0;
  toMeasure = 1.0;
  if (ref.kind == RESTIR_LIGHT_TRIANGLE) {
    EmitterPoint e = emitterPoint(ref.index, ref.point, from);
    vec3 d = e.position - from;
    float distanceSquared = dot(d, d);
    if (distanceSquared <= 0.0 || e.area <= 0.0) return false;
    result.distance = sqrt(distanceSquared);
    result.direction = d / result.distance;
    result.radiance = e.radiance;
    result.delta = false;
    toMeasure = abs(dot(e.normal, result.direction)) / distanceSquared;
    if (!(toMeasure > 0.0)) return false;
    result.pdf = lightKindProbability() * AliasTable(SCENE.lightAliasTable).e[ref.index].pdf / e.area / toMeasure;
    return maxComponent(e.radiance) > 0.0;
  }
  if (ref.kind == RESTIR_LIGHT_ENVIRONMENT) {
    result.direction = ref.point;
    result.distance = RAY_T_MAX;
    result.radiance = environmentMapRadiance(ref.point);
    result.delta = false;
    result.pdf = lightKindProbability() * environmentPdf(ref.point);
    return maxComponent(result.radiance) > 0.0;
  }
  if (ref.kind == RESTIR_LIGHT_PUNCTUAL) {
    result.pdf = lightKindProbability() / float(SCENE.punctualLightCount);
    return samplePunctualLight(from, ref.index, result);
  }
  return false;
}

// The emissive triangle (its index in the light alias table) that a ray hit, or NOT_EMISSIVE.
uint emissiveTriangleIndex(ShadingPoint hitPoint, uint primitive) {
  Instance instance = Instances(SCENE.instances).i[hitPoint.instance];
  uint base = UintArray(SCENE.emissiveBases).u[instance.emissiveBasesOffset + (hitPoint.globalGeometry - instance.firstGeometry)];
  return base == NOT_EMISSIVE ? NOT_EMISSIVE : base + primitive;
}

// The solid-angle pdf with which sampleEmissiveTriangle would have chosen a point that a
// BSDF-sampled ray hit, for multiple importance sampling.
float emissiveTrianglePdf(ShadingPoint hitPoint, uint primitive, vec3 rayOrigin) {
  uint index = emissiveTriangleIndex(hitPoint, primitive);
  if (index == NOT_EMISSIVE || SCENE.totalEmissivePower <= 0.0) return 0.0;
  vec3 d = hitPoint.position - rayOrigin;
  float distanceSquared = dot(d, d);
  float cosLight = abs(dot(hitPoint.geometricNormal, normalize(d)));
  if (hitPoint.area <= 0.0 || cosLight <= 0.0) return 0.0;
  return lightKindProbability() * AliasTable(SCENE.lightAliasTable).e[index].pdf / hitPoint.area * distanceSquared /
         cosLight;
}

#endif
