// From a hit (instance, geometry, primitive, barycentrics) to a shading point: world-space
// geometry, texture coordinates and the material evaluated there.
#ifndef PTBENCH_SURFACE_GLSL
#define PTBENCH_SURFACE_GLSL
#include "car_paint.glsl"

#ifndef SHADED_CLASS_LIMIT
#define SHADED_CLASS_LIMIT SCENE_CLASS_LIMIT
#endif
// Whether this kernel may meet materials of this class (its scene's classes; the wavefront's
// class kernels one each): a constant, so that the code of the classes it never meets is
// compiled out.
bool shadesClass(uint materialClass) { return materialClass <= SHADED_CLASS_LIMIT; }

struct SurfaceHit {
  float t;
  uint instance;
  uint geometry;  // index within the instance's mesh, as the BLAS numbers it
  uint primitive;
  vec2 barycentrics;
};

struct TriangleVertices {
  Vertex v0;
  Vertex v1;
  Vertex v2;
};

TriangleVertices fetchTriangle(uint globalGeometry, uint primitive) {
  Geometry geometry = Geometries(SCENE.geometries).g[globalGeometry];
  Indices indices = Indices(SCENE.indices);
  Vertices vertices = Vertices(SCENE.vertices);
  uint base = geometry.firstIndex + 3u * primitive;
  TriangleVertices tri;
  tri.v0 = vertices.v[geometry.firstVertex + indices.i[base]];
  tri.v1 = vertices.v[geometry.firstVertex + indices.i[base + 1u]];
  tri.v2 = vertices.v[geometry.firstVertex + indices.i[base + 2u]];
  return tri;
}

uint materialOf(Instance instance, uint globalGeometry) {
  return instance.materialOverride != NO_MATERIAL_OVERRIDE ? instance.materialOverride
                                                           : Geometries(SCENE.geometries).g[globalGeometry].material;
}

// The material class (shared/scene.h) of what a hit found: the wavefront's shading queues,
// SER's coherence hint and the divergence counters sort by it.
uint materialClassOfHit(uint instanceIndex, uint geometry) {
  Instance instance = Instances(SCENE.instances).i[instanceIndex];
  return materialClassOf(Materials(SCENE.materials).m[materialOf(instance, instance.firstGeometry + geometry)]);
}

vec3 toWorldPoint(Instance instance, vec3 p) {
  vec4 h = vec4(p, 1.0);
  return vec3(dot(instance.objectToWorld[0], h), dot(instance.objectToWorld[1], h), dot(instance.objectToWorld[2], h));
}

vec3 toWorldVector(Instance instance, vec3 v) {
  return vec3(dot(instance.objectToWorld[0].xyz, v), dot(instance.objectToWorld[1].xyz, v),
              dot(instance.objectToWorld[2].xyz, v));
}

vec3 toWorldNormal(Instance instance, vec3 n) {
  return normalize(vec3(dot(instance.normalToWorld[0].xyz, n), dot(instance.normalToWorld[1].xyz, n),
                        dot(instance.normalToWorld[2].xyz, n)));
}

vec3 barycentricMix(vec3 a, vec3 b, vec3 c, vec3 w) { return a * w.x + b * w.y + c * w.z; }
vec2 barycentricMix(vec2 a, vec2 b, vec2 c, vec3 w) { return a * w.x + b * w.y + c * w.z; }

// Texture lookups use level 0: a path tracer's secondary hits have no screen-space footprint.
vec4 sampleTexture(TextureRef ref, vec2 uv0, vec2 uv1) {
  vec2 uv = ref.texCoord == 1u ? uv1 : uv0;
  uv = vec2(dot(ref.transformRow0, vec3(uv, 1.0)), dot(ref.transformRow1, vec3(uv, 1.0)));
  return textureLod(textures[nonuniformEXT(ref.texture)], uv, 0.0);
}

#define MATERIAL(index) (Materials(SCENE.materials).m[index])

vec4 materialTexture(uint material, uint slot, vec2 uv0, vec2 uv1, vec4 fallback) {
  TextureRef ref = MATERIAL(material).textures[slot];
  return ref.texture == NO_TEXTURE ? fallback : sampleTexture(ref, uv0, uv1);
}

// Emission leaving at cosine cosView to the surface (its geometric normal), under a clearcoat
// that reflects F(0.04, cosView) of it back (KHR_materials_clearcoat's coated emission). Light
// sampling and hits see the same, so their MIS weights agree.
vec3 emissionOf(uint material, vec2 uv0, vec2 uv1, float cosView) {
  vec3 emission = MATERIAL(material).emissiveFactor * materialTexture(material, SLOT_EMISSIVE, uv0, uv1, vec4(1.0)).rgb;
  float clearcoat = MATERIAL(material).clearcoatFactor;
  if (clearcoat > 0.0) {
    clearcoat *= materialTexture(material, SLOT_CLEARCOAT, uv0, uv1, vec4(1.0)).r;
    float m = clamp(1.0 - abs(cosView), 0.0, 1.0);
    emission *= 1.0 - clamp(clearcoat, 0.0, 1.0) * (0.04 + 0.96 * (m * m) * (m * m) * m);
  }
  return emission;
}

// COLOR_0, which multiplies the base colour and its alpha; white where a mesh has none.
vec4 vertexColor(TriangleVertices tri, vec3 w) {
  return vec4(unpackUnorm2x16(tri.v0.color.x), unpackUnorm2x16(tri.v0.color.y)) * w.x +
         vec4(unpackUnorm2x16(tri.v1.color.x), unpackUnorm2x16(tri.v1.color.y)) * w.y +
         vec4(unpackUnorm2x16(tri.v2.color.x), unpackUnorm2x16(tri.v2.color.y)) * w.z;
}

// The alpha that ALPHA_MASK cuts and ALPHA_BLEND blends with: factor, texture and COLOR_0.
float materialAlpha(uint material, TriangleVertices tri, vec3 w, vec2 uv0, vec2 uv1) {
  return MATERIAL(material).baseColorFactor.a * materialTexture(material, SLOT_BASE_COLOR, uv0, uv1, vec4(1.0)).a *
         vertexColor(tri, w).a;
}

// The share of an emitter's emission that a light sample at this point may collect: what a
// ray passing alphaTestPasses would see on average (0 or 1 under a mask, alpha when blended),
// so that light sampling and BSDF sampling see the same emitter.
float emitterCoverage(uint material, TriangleVertices tri, vec3 w, vec2 uv0, vec2 uv1) {
  uint mode = MATERIAL(material).alphaMode;
  if (mode == ALPHA_OPAQUE) return 1.0;
  float alpha = materialAlpha(material, tri, w, uv0, uv1);
  if (mode == ALPHA_MASK) return alpha >= MATERIAL(material).alphaCutoff ? 1.0 : 0.0;
  return clamp(alpha, 0.0, 1.0);
}

// Whether a candidate hit on non-opaque geometry counts: alpha masks cut at their cutoff;
// blended surfaces are kept with probability alpha, decided by a hash of the ray and the
// triangle so that every backend and integrator decides alike.
bool alphaTestPasses(uint instanceIndex, uint geometry, uint primitive, vec2 barycentrics, vec3 origin, vec3 direction) {
  Instance instance = Instances(SCENE.instances).i[instanceIndex];
  uint globalGeometry = instance.firstGeometry + geometry;
  uint material = materialOf(instance, globalGeometry);
  uint mode = MATERIAL(material).alphaMode;
  if (mode == ALPHA_OPAQUE) return true;
  TriangleVertices tri = fetchTriangle(globalGeometry, primitive);
  vec3 w = vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics);
  vec2 uv0 = barycentricMix(tri.v0.uv0, tri.v1.uv0, tri.v2.uv0, w);
  vec2 uv1 = barycentricMix(tri.v0.uv1, tri.v1.uv1, tri.v2.uv1, w);
  float alpha = materialAlpha(material, tri, w, uv0, uv1);
  if (mode == ALPHA_MASK) return alpha >= MATERIAL(material).alphaCutoff;
  uint h = hashCombine(hashCombine(instanceIndex, primitive), floatBitsToUint(origin.x) ^ floatBitsToUint(direction.y));
  h = hashCombine(h, floatBitsToUint(origin.y) ^ floatBitsToUint(origin.z) ^ floatBitsToUint(direction.x));
  return unitFloat(h) < alpha;
}

// A tangent-space normal-map texel turned into a world-space normal (glTF's normalTexture).
vec3 normalMapped(vec3 texel, float scale, vec3 t, vec3 b, vec3 n) {
  vec3 local = texel * 2.0 - 1.0;
  local.xy *= scale;
  vec3 mapped = t * local.x + b * local.y + n * local.z;
  return dot(mapped, mapped) > 0.0 ? normalize(mapped) : n;
}

// Everything shading needs at a surface point.
struct ShadingPoint {
  vec3 position;
  vec3 geometricNormal;  // facing the side the ray came from
  vec3 shadingNormal;    // normal-mapped, on the same side as geometricNormal
  bool frontFace;
  float area;  // of the hit triangle, in world space
  vec2 uv0;
  vec2 uv1;
  uint material;
  uint instance;
  uint globalGeometry;
  vec3 baseColor;
  float metallic;
  float roughness;
  vec3 emission;
  float specularWeight;  // KHR_materials_specular
  vec3 specularColor;
  float ior;
  float transmission;  // KHR_materials_transmission
  bool thinWalled;     // KHR_materials_volume's thickness is 0: light passes without refracting
  float clearcoat;     // KHR_materials_clearcoat
  float clearcoatRoughness;
  vec3 coatNormal;  // the coat's own normal map, or the interpolated normal; faces like shadingNormal
  vec3 sheenColor;  // KHR_materials_sheen
  float sheenRoughness;
  uint model;  // MATERIAL_MODEL_*
  // The car paint's layers (car_paint.glsl), from its procedural noise.
  CarPaintLayers paint;
};

ShadingPoint shadingPoint(SurfaceHit hit, vec3 rayDirection) {
  ShadingPoint sp;
  Instance instance = Instances(SCENE.instances).i[hit.instance];
  sp.instance = hit.instance;
  sp.globalGeometry = instance.firstGeometry + hit.geometry;
  sp.material = materialOf(instance, sp.globalGeometry);
  TriangleVertices tri = fetchTriangle(sp.globalGeometry, hit.primitive);
  vec3 w = vec3(1.0 - hit.barycentrics.x - hit.barycentrics.y, hit.barycentrics);
  vec3 p0 = toWorldPoint(instance, tri.v0.position);
  vec3 p1 = toWorldPoint(instance, tri.v1.position);
  vec3 p2 = toWorldPoint(instance, tri.v2.position);
  sp.position = barycentricMix(p0, p1, p2, w);
  vec3 edgeCross = cross(p1 - p0, p2 - p0);
  sp.area = 0.5 * length(edgeCross);
  vec3 ng = normalize(edgeCross) * instance.windingSign;
  vec3 ns = toWorldNormal(instance, barycentricMix(tri.v0.normal, tri.v1.normal, tri.v2.normal, w));
  sp.uv0 = barycentricMix(tri.v0.uv0, tri.v1.uv0, tri.v2.uv0, w);
  sp.uv1 = barycentricMix(tri.v0.uv1, tri.v1.uv1, tri.v2.uv1, w);

  uint m = sp.material;
  // The clearcoat has a normal map of its own; without one it sees the interpolated normal.
  vec3 coatNormal = ns;
  TextureRef normalRef = MATERIAL(m).textures[SLOT_NORMAL];
  TextureRef coatNormalRef = MATERIAL(m).textures[SLOT_CLEARCOAT_NORMAL];
  if (normalRef.texture != NO_TEXTURE || coatNormalRef.texture != NO_TEXTURE) {
    vec4 tangentObject = tri.v0.tangent * w.x + tri.v1.tangent * w.y + tri.v2.tangent * w.z;
    vec3 t = toWorldVector(instance, tangentObject.xyz);
    t = normalize(t - ns * dot(ns, t));
    // A mirroring transform flips cross(ns, t) relative to the transformed bitangent.
    vec3 b = cross(ns, t) * ((tangentObject.w < 0.0 ? -1.0 : 1.0) * instance.windingSign);
    if (coatNormalRef.texture != NO_TEXTURE)
      coatNormal = normalMapped(sampleTexture(coatNormalRef, sp.uv0, sp.uv1).xyz, MATERIAL(m).clearcoatNormalScale, t,
                                b, ns);
    if (normalRef.texture != NO_TEXTURE)
      ns = normalMapped(sampleTexture(normalRef, sp.uv0, sp.uv1).xyz, MATERIAL(m).normalScale, t, b, ns);
  }

  sp.frontFace = dot(ng, rayDirection) < 0.0;
  if (!sp.frontFace) {
    ng = -ng;
    ns = -ns;
    coatNormal = -coatNormal;
  }
  // A shading normal facing away from the viewer has no meaningful BSDF: fall back to the
  // geometric one rather than absorb the path.
  if (dot(ns, -rayDirection) <= 0.0) ns = ng;
  if (dot(coatNormal, -rayDirection) <= 0.0) coatNormal = ng;
  sp.geometricNormal = ng;
  sp.shadingNormal = ns;
  sp.coatNormal = coatNormal;

  vec4 baseColor =
      MATERIAL(m).baseColorFactor * materialTexture(m, SLOT_BASE_COLOR, sp.uv0, sp.uv1, vec4(1.0)) * vertexColor(tri, w);
  vec4 metallicRoughness = materialTexture(m, SLOT_METALLIC_ROUGHNESS, sp.uv0, sp.uv1, vec4(1.0));
  sp.baseColor = baseColor.rgb;
  sp.metallic = clamp(MATERIAL(m).metallicFactor * metallicRoughness.b, 0.0, 1.0);
  sp.roughness = clamp(MATERIAL(m).roughnessFactor * metallicRoughness.g, 0.0, 1.0);
  bool emits = sp.frontFace || MATERIAL(m).doubleSided != 0u;
  sp.emission = emits ? emissionOf(m, sp.uv0, sp.uv1, dot(ng, rayDirection)) : vec3(0.0);
  sp.specularWeight = MATERIAL(m).specularFactor * materialTexture(m, SLOT_SPECULAR, sp.uv0, sp.uv1, vec4(1.0)).a;
  sp.specularColor =
      MATERIAL(m).specularColorFactor * materialTexture(m, SLOT_SPECULAR_COLOR, sp.uv0, sp.uv1, vec4(1.0)).rgb;
  sp.ior = MATERIAL(m).ior;
  sp.transmission = clamp(
      MATERIAL(m).transmissionFactor * materialTexture(m, SLOT_TRANSMISSION, sp.uv0, sp.uv1, vec4(1.0)).r, 0.0, 1.0);
  sp.thinWalled = MATERIAL(m).thicknessFactor <= 0.0;
  vec4 clearcoat = materialTexture(m, SLOT_CLEARCOAT, sp.uv0, sp.uv1, vec4(1.0));
  vec4 clearcoatRoughness = materialTexture(m, SLOT_CLEARCOAT_ROUGHNESS, sp.uv0, sp.uv1, vec4(1.0));
  sp.clearcoat = clamp(MATERIAL(m).clearcoatFactor * clearcoat.r, 0.0, 1.0);
  sp.clearcoatRoughness = clamp(MATERIAL(m).clearcoatRoughnessFactor * clearcoatRoughness.g, 0.0, 1.0);
  sp.sheenColor = clamp(
      MATERIAL(m).sheenColorFactor * materialTexture(m, SLOT_SHEEN_COLOR, sp.uv0, sp.uv1, vec4(1.0)).rgb, 0.0, 1.0);
  sp.sheenRoughness = clamp(
      MATERIAL(m).sheenRoughnessFactor * materialTexture(m, SLOT_SHEEN_ROUGHNESS, sp.uv0, sp.uv1, vec4(1.0)).a, 0.0, 1.0);
  sp.model = MATERIAL(m).model;
  if (shadesClass(MATERIAL_CLASS_CAR_PAINT) && sp.model == MATERIAL_MODEL_CAR_PAINT)
    sp.paint = carPaintLayers(sp.position, sp.shadingNormal, sp.baseColor, sp.sheenColor, MATERIAL(m).noiseOctaves);
  return sp;
}

// Moves a ray origin off the surface along its normal by a few units in the last place
// (Wächter and Binder, "A Fast and Robust Method for Avoiding Self-Intersection", 2019).
vec3 offsetRayOrigin(vec3 p, vec3 n) {
  const float originEpsilon = 1.0 / 32.0;
  const float floatScale = 1.0 / 65536.0;
  const float intScale = 256.0;
  ivec3 offset = ivec3(intScale * n);
  vec3 moved = vec3(intBitsToFloat(floatBitsToInt(p.x) + (p.x < 0.0 ? -offset.x : offset.x)),
                    intBitsToFloat(floatBitsToInt(p.y) + (p.y < 0.0 ? -offset.y : offset.y)),
                    intBitsToFloat(floatBitsToInt(p.z) + (p.z < 0.0 ? -offset.z : offset.z)));
  return vec3(abs(p.x) < originEpsilon ? p.x + floatScale * n.x : moved.x,
              abs(p.y) < originEpsilon ? p.y + floatScale * n.y : moved.y,
              abs(p.z) < originEpsilon ? p.z + floatScale * n.z : moved.z);
}

#endif
