// Emissive triangles for next-event estimation: chosen in proportion to power through the
// alias table, then a point uniformly on the triangle's area.
#ifndef PTBENCH_LIGHTS_GLSL
#define PTBENCH_LIGHTS_GLSL

struct LightSample {
  vec3 direction;  // from the shading point to the light
  float distance;
  vec3 radiance;
  float pdf;  // solid angle
};

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
  e.normal = c / max(2.0 * e.area, 1e-30);
  uint material = materialOf(instance, light.geometry);
  bool facing = dot(e.normal, e.position - from) < 0.0 || MATERIAL(material).doubleSided != 0u;
  vec2 uv0 = barycentricMix(tri.v0.uv0, tri.v1.uv0, tri.v2.uv0, barycentrics);
  vec2 uv1 = barycentricMix(tri.v0.uv1, tri.v1.uv1, tri.v2.uv1, barycentrics);
  e.radiance = facing ? emissionOf(material, uv0, uv1) : vec3(0.0);
  return e;
}

bool sampleEmissiveTriangle(vec3 from, float uChoice, vec2 uPoint, out LightSample result) {
  uint count = SCENE.emissiveTriangleCount;
  if (count == 0u || SCENE.totalEmissivePower <= 0.0) return false;
  float scaled = uChoice * float(count);
  uint index = min(uint(scaled), count - 1u);
  AliasTable table = AliasTable(SCENE.lightAliasTable);
  if (scaled - float(index) >= table.e[index].probability) index = table.e[index].alias;
  float su = sqrt(uPoint.x);
  vec3 barycentrics = vec3(1.0 - su, uPoint.y * su, 0.0);
  barycentrics.z = 1.0 - barycentrics.x - barycentrics.y;
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
  return result.pdf > 0.0;
}

// The solid-angle pdf with which sampleEmissiveTriangle would have chosen a point that a
// BSDF-sampled ray hit, for multiple importance sampling.
float emissiveTrianglePdf(ShadingPoint hitPoint, uint primitive, vec3 rayOrigin) {
  Instance instance = Instances(SCENE.instances).i[hitPoint.instance];
  uint base = UintArray(SCENE.emissiveBases).u[instance.emissiveBasesOffset + (hitPoint.globalGeometry - instance.firstGeometry)];
  if (base == NOT_EMISSIVE || SCENE.totalEmissivePower <= 0.0) return 0.0;
  uint index = base + primitive;
  TriangleVertices tri = fetchTriangle(hitPoint.globalGeometry, primitive);
  vec3 p0 = toWorldPoint(instance, tri.v0.position);
  vec3 p1 = toWorldPoint(instance, tri.v1.position);
  vec3 p2 = toWorldPoint(instance, tri.v2.position);
  float area = 0.5 * length(cross(p1 - p0, p2 - p0));
  vec3 d = hitPoint.position - rayOrigin;
  float distanceSquared = dot(d, d);
  float cosLight = abs(dot(hitPoint.geometricNormal, normalize(d)));
  if (area <= 0.0 || cosLight <= 0.0) return 0.0;
  return AliasTable(SCENE.lightAliasTable).e[index].pdf / area * distanceSquared / cosLight;
}

#endif
