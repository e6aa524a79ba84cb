// The BSDFs: glTF 2.0's metallic-roughness model as the specification's Appendix B defines it,
// with its extensions, and ptbench's car paint. Directions are world-space and point away from
// the surface.
//
// glTF, from the top down (each extension's text):
// - KHR_materials_clearcoat: a GGX coat of IOR 1.5 with its own roughness and normal, taking
//   clearcoat x F_schlick(0.04, coat normal . v) of the light; the rest reaches what is below;
// - KHR_materials_sheen: Charlie sheen, with the material below scaled by
//   min(1 - max(sheen colour) E(n . v), 1 - max(sheen colour) E(n . l)), E its albedo;
// - the base: a GGX conductor (metallic) and a dielectric, which is a Lambertian under a GGX
//   specular layer (Schlick Fresnel, KHR_materials_specular's factor and colour) or, by
//   KHR_materials_transmission, a rough glass: GGX reflection and refraction sharing one exact
//   Fresnel term (Walter et al. 2007), thin-walled (no refraction) without KHR_materials_volume's
//   thickness; the metal and the glass compensated for the light their single-scattering lobes
//   lose between microfacets (Kulla and Conty 2017; ms_compensation).
// Transmitted directions are sampled, never evaluated: next-event estimation looks for lights
// on the side the ray came from only, so a transmitted sample carries pdf 0 (no MIS). A smooth
// thin wall is the exception that shadow rays cross (crossesStraight, below).
#ifndef PTBENCH_BSDF_GLSL
#define PTBENCH_BSDF_GLSL
#include "common/fresnel.glsl"

layout(buffer_reference, scalar) readonly buffer FloatTable { float f[]; };

float ggxAlpha(ShadingPoint sp) { return sp.roughness * sp.roughness; }
float coatAlpha(ShadingPoint sp) { return sp.clearcoatRoughness * sp.clearcoatRoughness; }
// The car paint's flakes are always glossy, never mirrors.
float flakeAlpha(ShadingPoint sp) { return max(ggxAlpha(sp), 4.0 * SPECULAR_DELTA_ALPHA); }
bool isDelta(float alpha) { return alpha < SPECULAR_DELTA_ALPHA; }
bool specularIsDelta(ShadingPoint sp) { return isDelta(ggxAlpha(sp)); }

vec3 schlickFresnel(vec3 f0, float cosTheta) {
  float m = clamp(1.0 - cosTheta, 0.0, 1.0);
  float m2 = m * m;
  return f0 + (1.0 - f0) * (m2 * m2 * m);
}

float schlickFresnel(float f0, float cosTheta) { return schlickFresnel(vec3(f0), cosTheta).x; }

// F0 of the dielectric layer: ((ior - 1) / (ior + 1))^2 tinted by the specular colour.
vec3 dielectricF0(ShadingPoint sp) {
  float r = (sp.ior - 1.0) / (sp.ior + 1.0);
  return min(vec3(r * r) * sp.specularColor, vec3(1.0));
}

// D of a unit half vector in the local frame (z = n). The usual NdotH^2 (a^2 - 1) + 1 cancels
// catastrophically for NdotH near 1; for a unit vector it equals hx^2 + hy^2 + a^2 hz^2,
// which does not.
float ggxD(vec3 hLocal, float alpha) {
  float a2 = alpha * alpha;
  float d = hLocal.x * hLocal.x + hLocal.y * hLocal.y + a2 * hLocal.z * hLocal.z;
  return a2 / (PI * d * d);
}

// G2, height-correlated, and G1 of the view direction.
float smithG2(float NdotL, float NdotV, float alpha) {
  float a2 = alpha * alpha;
  float lambdaV = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2);
  float lambdaL = NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
  float denominator = lambdaV + lambdaL;
  return denominator > 0.0 ? 2.0 * NdotL * NdotV / denominator : 0.0;
}

float smithG1(float NdotV, float alpha) {
  float a2 = alpha * alpha;
  return 2.0 * NdotV / (NdotV + sqrt(a2 + (1.0 - a2) * NdotV * NdotV));
}

// Heitz 2018, "Sampling the GGX Distribution of Visible Normals", in the local frame (z = n).
vec3 sampleGgxVisibleNormal(vec3 v, float alpha, vec2 u) {
  vec3 vh = normalize(vec3(alpha * v.x, alpha * v.y, v.z));
  float lengthSquared = vh.x * vh.x + vh.y * vh.y;
  vec3 t1 = lengthSquared > 0.0 ? vec3(-vh.y, vh.x, 0.0) * inversesqrt(lengthSquared) : vec3(1.0, 0.0, 0.0);
  vec3 t2 = cross(vh, t1);
  float r = sqrt(u.x);
  float phi = 2.0 * PI * u.y;
  float p1 = r * cos(phi);
  float p2 = r * sin(phi);
  float s = 0.5 * (1.0 + vh.z);
  p2 = (1.0 - s) * sqrt(max(0.0, 1.0 - p1 * p1)) + s * p2;
  vec3 nh = p1 * t1 + p2 * t2 + sqrt(max(0.0, 1.0 - p1 * p1 - p2 * p2)) * vh;
  return normalize(vec3(alpha * nh.x, alpha * nh.y, max(0.0, nh.z)));
}

// A local frame around a normal: every lobe computes in the frame of its own normal, so that
// evaluation and sampling form the same half vector the same way.
struct BsdfFrame {
  vec3 t;
  vec3 b;
  vec3 n;
};

BsdfFrame bsdfFrame(vec3 n) {
  BsdfFrame frame;
  frame.n = n;
  basis(frame.n, frame.t, frame.b);
  return frame;
}

vec3 toLocal(BsdfFrame frame, vec3 w) { return vec3(dot(w, frame.t), dot(w, frame.b), dot(w, frame.n)); }
vec3 toWorld(BsdfFrame frame, vec3 w) { return normalize(frame.t * w.x + frame.b * w.y + frame.n * w.z); }

// A GGX reflection lobe without its Fresnel term: f cos = D G2 / (4 n.v), and the pdf of the
// visible-normal sample's reflection, G1 D / (4 n.v), both from one D so that their ratio is
// right however D rounds.
struct GgxReflection {
  float fCos;
  float pdf;
  float VdotH;
};

GgxReflection ggxReflection(vec3 v, vec3 l, float alpha) {
  GgxReflection r = GgxReflection(0.0, 0.0, 0.0);
  if (v.z <= 0.0 || l.z <= 0.0) return r;
  vec3 h = normalize(v + l);
  float D = ggxD(h, alpha);
  r.VdotH = max(dot(v, h), 0.0);
  r.fCos = D * smithG2(l.z, v.z, alpha) / (4.0 * v.z);
  r.pdf = smithG1(v.z, alpha) * D / (4.0 * v.z);
  return r;
}

// Bilinear in (x, y), each clamped to [0, 1] over `size` points, in the size x size block of
// floats at `offset` of the table at `address`: the tables computed on the CPU (core/scene/).
float tableBilinear(uint64_t address, uint size, uint offset, float x, float y) {
  float last = float(size - 1u);
  vec2 p = clamp(vec2(x, y), 0.0, 1.0) * last;
  uvec2 i = min(uvec2(p), uvec2(size - 2u));
  vec2 f = p - vec2(i);
  FloatTable table = FloatTable(address);
  uint row = offset + i.x * size + i.y;
  float below = mix(table.f[row], table.f[row + 1u], f.y);
  float above = mix(table.f[row + size], table.f[row + size + 1u], f.y);
  return mix(below, above, f.x);
}

// KHR_materials_sheen's directional albedo E from its table (core/scene/sheen.h), bilinearly.
float sheenAlbedo(float cosTheta, float roughness) {
  return tableBilinear(SCENE.sheenAlbedo, SHEEN_ALBEDO_SIZE, 0u, cosTheta, roughness);
}

// Multiple-scattering compensation (Kulla and Conty 2017; core/scene/multiple_scattering.cpp
// derives it): the light a rough GGX lobe loses to a second microfacet, given back from tables of
// directional albedo E at the view's cosine, so that white rough metal and glass return all they
// receive. Compiled out by ms_compensation: false (MS_COMPENSATION, a specialisation constant).
//
// The metal's, added to its Fresnel term: F_ms (1 - E) / E, F_ms the multiple bounces' tint by
// the average Fresnel F_avg of its Schlick term, F_avg^2 E_avg / (1 - F_avg (1 - E_avg)).
vec3 conductorMultipleScattering(ShadingPoint sp, float cosView) {
  float albedo = tableBilinear(SCENE.multipleScattering, MS_ALBEDO_SIZE, 0u, cosView, sp.roughness);
  float x = clamp(sp.roughness, 0.0, 1.0) * float(MS_ALBEDO_SIZE - 1u);
  uint i = min(uint(x), MS_ALBEDO_SIZE - 2u);
  FloatTable table = FloatTable(SCENE.multipleScattering);
  float average = mix(table.f[MS_AVERAGE_OFFSET + i], table.f[MS_AVERAGE_OFFSET + i + 1u], x - float(i));
  vec3 fresnelAverage = sp.baseColor * (20.0 / 21.0) + 1.0 / 21.0;
  vec3 tint = fresnelAverage * fresnelAverage * average / (1.0 - fresnelAverage * (1.0 - average));
  return tint * ((1.0 - albedo) / albedo);
}

// The glass's, a scale of its whole lobe: 1 / E, E what white glass of its IOR reflects and
// transmits on the side the light arrives from (a thin wall's: the metal's E, as it transmits the
// mirror image of its reflection).
float glassMultipleScattering(ShadingPoint sp, float cosView) {
  uint64_t address = SCENE.multipleScattering;
  if (sp.thinWalled) return 1.0 / tableBilinear(address, MS_ALBEDO_SIZE, 0u, cosView, sp.roughness);
  float x = clamp((sp.ior - 1.0) / (sp.ior + 1.0) / MS_GLASS_IOR_PARAMETER_MAX, 0.0, 1.0) * float(MS_GLASS_IORS - 1u);
  uint k = min(uint(x), MS_GLASS_IORS - 2u);
  const uint block = MS_ALBEDO_SIZE * MS_ALBEDO_SIZE;
  uint offset = MS_GLASS_OFFSET + ((sp.frontFace ? 0u : MS_GLASS_IORS) + k) * block;
  float albedo = mix(tableBilinear(address, MS_ALBEDO_SIZE, offset, cosView, sp.roughness),
                     tableBilinear(address, MS_ALBEDO_SIZE, offset + block, cosView, sp.roughness), x - float(k));
  return 1.0 / albedo;
}

// The Charlie distribution times the visibility term the extension suggests (Neubelt and
// Pettineo's), times n.l; core/scene/sheen.cpp has the same.
float charlieSheenCosine(float cosView, float cosLight, float cosHalf, float roughness) {
  float r = max(roughness, SHEEN_MIN_ROUGHNESS);
  float alpha = r * r;
  float sin2Half = max(1.0 - cosHalf * cosHalf, 0.0);
  float distribution = (2.0 + 1.0 / alpha) * pow(sin2Half, 0.5 / alpha) / (2.0 * PI);
  return distribution * cosLight / (4.0 * (cosLight + cosView - cosLight * cosView));
}

// What depends on the view direction alone, computed once per vertex for the light sample's
// evaluation and the BSDF sample both.
struct BsdfContext {
  BsdfFrame frame;  // around the shading normal
  vec3 v;
  BsdfFrame coatFrame;
  vec3 vCoat;
  float coatFresnel;  // the coat's share: clearcoat x F(0.04, vCoat.z); the rest passes it
  // Sheen: its albedo at v (never above 1: the visibility term's albedo exceeds 1 at grazing
  // view, where the lobe is scaled down by sheenNormalization), and the scale of what is below.
  float sheenAlbedoView;
  float sheenNormalization;
  // Car paint: the base's colour at this view, and each flake's frame and local view.
  vec3 paintBaseColor;
  BsdfFrame flakeFrame0;
  vec3 vFlake0;
  BsdfFrame flakeFrame1;
  vec3 vFlake1;
  // How often each lobe is sampled; they sum to 1 (or all are 0: the material is black).
  float pCoat;
  float pSheen;
  float pDiffuse;
  float pSpecular;  // the GGX reflection of the metal and the dielectric layer
  float pGlass;     // reflection or transmission, by the glass's Fresnel term
  float pFlake0;
  float pFlake1;
};

// The glass lobe's reflectance at the microfacet's cosine: its Fresnel term, tinted and scaled
// by KHR_materials_specular (tintedGlassReflectance; what it does not reflect, it transmits); all
// of it beyond the critical angle. `reflected` is the probability of sampling reflection, the
// tint's maximum.
float glassEta(ShadingPoint sp) { return sp.thinWalled || sp.frontFace ? sp.ior : 1.0 / sp.ior; }

vec3 glassReflectance(ShadingPoint sp, float VdotH, out float reflected) {
  vec3 tint = tintedGlassReflectance(VdotH, glassEta(sp), sp.specularColor, sp.specularWeight);
  reflected = maxComponent(tint);
  return tint;
}

float sheenMaximum(ShadingPoint sp) {
  return shadesClass(MATERIAL_CLASS_SHEEN) && sp.model == MATERIAL_MODEL_GLTF ? maxComponent(sp.sheenColor) : 0.0;
}

bool isCarPaint(ShadingPoint sp) { return shadesClass(MATERIAL_CLASS_CAR_PAINT) && sp.model == MATERIAL_MODEL_CAR_PAINT; }
float clearcoatOf(ShadingPoint sp) { return shadesClass(MATERIAL_CLASS_CLEARCOAT) ? sp.clearcoat : 0.0; }
float transmissionOf(ShadingPoint sp) { return shadesClass(MATERIAL_CLASS_TRANSMISSION) ? sp.transmission : 0.0; }

// Sheen's scale of the material below it, for a light at cosine cosLight.
float sheenScale(ShadingPoint sp, BsdfContext ctx, float cosLight) {
  float sheen = sheenMaximum(sp);
  if (sheen <= 0.0) return 1.0;
  return min(1.0 - ctx.sheenAlbedoView, 1.0 - sheen * min(sheenAlbedo(cosLight, sp.sheenRoughness), 1.0));
}

BsdfContext bsdfContext(ShadingPoint sp, vec3 wo) {
  BsdfContext ctx;
  ctx.frame = bsdfFrame(sp.shadingNormal);
  ctx.v = toLocal(ctx.frame, wo);
  // Without a coat its frame is never read: the base's stands in, and no lobe samples it.
  ctx.coatFrame = ctx.frame;
  ctx.vCoat = ctx.v;
  ctx.coatFresnel = 0.0;
  if (clearcoatOf(sp) > 0.0) {
    ctx.coatFrame = bsdfFrame(sp.coatNormal);
    ctx.vCoat = toLocal(ctx.coatFrame, wo);
    if (ctx.vCoat.z > 0.0) ctx.coatFresnel = clearcoatOf(sp) * schlickFresnel(0.04, ctx.vCoat.z);
  }
  float below = 1.0 - ctx.coatFresnel;
  ctx.pCoat = ctx.coatFresnel;
  ctx.pSheen = 0.0;
  ctx.pDiffuse = 0.0;
  ctx.pSpecular = 0.0;
  ctx.pGlass = 0.0;
  ctx.pFlake0 = 0.0;
  ctx.pFlake1 = 0.0;
  ctx.sheenAlbedoView = 0.0;
  ctx.sheenNormalization = 1.0;
  if (isCarPaint(sp)) {
    ctx.paintBaseColor = carPaintBaseColor(sp.paint, ctx.v.z);
    ctx.flakeFrame0 = bsdfFrame(sp.paint.flakeNormal0);
    ctx.vFlake0 = toLocal(ctx.flakeFrame0, wo);
    ctx.flakeFrame1 = bsdfFrame(sp.paint.flakeNormal1);
    ctx.vFlake1 = toLocal(ctx.flakeFrame1, wo);
    ctx.pDiffuse = below * CAR_PAINT_BASE_WEIGHT * maxComponent(ctx.paintBaseColor);
    if (ctx.vFlake0.z > 0.0) ctx.pFlake0 = below * CAR_PAINT_FLAKE_WEIGHT * maxComponent(sp.paint.flakeColor0);
    if (ctx.vFlake1.z > 0.0) ctx.pFlake1 = below * CAR_PAINT_FLAKE_WEIGHT * maxComponent(sp.paint.flakeColor1);
  } else {
    float sheen = sheenMaximum(sp);
    if (sheen > 0.0) {
      float albedo = sheenAlbedo(ctx.v.z, sp.sheenRoughness);
      ctx.sheenNormalization = 1.0 / max(albedo, 1.0);
      ctx.sheenAlbedoView = sheen * min(albedo, 1.0);
      ctx.pSheen = below * ctx.sheenAlbedoView;
      below *= 1.0 - ctx.sheenAlbedoView;
    }
    float dielectricSpecular = sp.specularWeight * maxComponent(schlickFresnel(dielectricF0(sp), ctx.v.z));
    float plastic = (1.0 - sp.metallic) * (1.0 - transmissionOf(sp));
    ctx.pSpecular = below * (plastic * dielectricSpecular + sp.metallic);
    ctx.pDiffuse = below * plastic * (1.0 - dielectricSpecular) * maxComponent(sp.baseColor);
    ctx.pGlass = below * (1.0 - sp.metallic) * transmissionOf(sp);
  }
  float total = ctx.pCoat + ctx.pSheen + ctx.pDiffuse + ctx.pSpecular + ctx.pGlass + ctx.pFlake0 + ctx.pFlake1;
  float scale = total > 0.0 ? 1.0 / total : 0.0;
  ctx.pCoat *= scale;
  ctx.pSheen *= scale;
  ctx.pDiffuse *= scale;
  ctx.pSpecular *= scale;
  ctx.pGlass *= scale;
  ctx.pFlake0 *= scale;
  ctx.pFlake1 *= scale;
  return ctx;
}

// f cos and the pdf of bsdfSample for a pair of directions on the view's side, summed over
// the lobes. Delta lobes contribute to neither.
struct BsdfValue {
  vec3 fCos;
  float pdf;
};

// The base's specular Fresnel: the dielectric layer, the metal and the glass's reflection, this
// scaled by glassScale (its multiple-scattering compensation).
vec3 specularFresnel(ShadingPoint sp, float VdotH, float glassScale, out float glassReflected) {
  // Opaque materials, nearly every vertex, skip the glass's exact Fresnel term.
  glassReflected = 0.0;
  vec3 glass = transmissionOf(sp) > 0.0 ? glassReflectance(sp, VdotH, glassReflected) : vec3(0.0);
  float plastic = (1.0 - sp.metallic) * (1.0 - transmissionOf(sp));
  return plastic * sp.specularWeight * schlickFresnel(dielectricF0(sp), VdotH) +
         sp.metallic * schlickFresnel(sp.baseColor, VdotH) + (1.0 - sp.metallic) * transmissionOf(sp) * glass * glassScale;
}

// Below the coat: the glTF base under its sheen, or the car paint's flakes and base.
BsdfValue innerValue(ShadingPoint sp, BsdfContext ctx, vec3 l, vec3 lWorld) {
  BsdfValue value = BsdfValue(vec3(0.0), 0.0);
  if (isCarPaint(sp)) {
    value.fCos = CAR_PAINT_BASE_WEIGHT * ctx.paintBaseColor * l.z / PI;
    value.pdf = ctx.pDiffuse * l.z / PI;
    float alpha = flakeAlpha(sp);
    GgxReflection flake0 = ggxReflection(ctx.vFlake0, toLocal(ctx.flakeFrame0, lWorld), alpha);
    GgxReflection flake1 = ggxReflection(ctx.vFlake1, toLocal(ctx.flakeFrame1, lWorld), alpha);
    value.fCos += CAR_PAINT_FLAKE_WEIGHT * (sp.paint.flakeColor0 * flake0.fCos + sp.paint.flakeColor1 * flake1.fCos);
    value.pdf += ctx.pFlake0 * flake0.pdf + ctx.pFlake1 * flake1.pdf;
    return value;
  }
  vec3 h = normalize(ctx.v + l);
  float VdotH = max(dot(ctx.v, h), 0.0);
  // The Lambertian under the dielectric layer, which takes its Fresnel share first.
  float layer = 1.0 - sp.specularWeight * maxComponent(schlickFresnel(dielectricF0(sp), VdotH));
  float plastic = (1.0 - sp.metallic) * (1.0 - transmissionOf(sp));
  vec3 base = plastic * layer * sp.baseColor * l.z / PI;
  value.pdf = ctx.pDiffuse * l.z / PI;
  if (!specularIsDelta(sp)) {
    GgxReflection specular = ggxReflection(ctx.v, l, ggxAlpha(sp));
    float glassReflected;
    float glassScale = MS_COMPENSATION && transmissionOf(sp) > 0.0 ? glassMultipleScattering(sp, ctx.v.z) : 1.0;
    vec3 fresnel = specularFresnel(sp, specular.VdotH, glassScale, glassReflected);
    if (MS_COMPENSATION && sp.metallic > 0.0) fresnel += sp.metallic * conductorMultipleScattering(sp, ctx.v.z);
    base += fresnel * specular.fCos;
    value.pdf += (ctx.pSpecular + ctx.pGlass * glassReflected) * specular.pdf;
  }
  float sheen = sheenMaximum(sp);
  if (sheen > 0.0) {
    vec3 sheenFCos = sp.sheenColor * ctx.sheenNormalization * charlieSheenCosine(ctx.v.z, l.z, h.z, sp.sheenRoughness);
    value.fCos = sheenFCos + sheenScale(sp, ctx, l.z) * base;
    value.pdf += ctx.pSheen * l.z / PI;
  } else {
    value.fCos = base;
  }
  return value;
}

// Zero where either direction is below the shading normal.
BsdfValue bsdfValue(ShadingPoint sp, BsdfContext ctx, vec3 lWorld) {
  BsdfValue value = BsdfValue(vec3(0.0), 0.0);
  vec3 l = toLocal(ctx.frame, lWorld);
  if (l.z <= 0.0 || ctx.v.z <= 0.0) return value;
  value = innerValue(sp, ctx, l, lWorld);
  value.fCos *= 1.0 - ctx.coatFresnel;
  if (shadesClass(MATERIAL_CLASS_CLEARCOAT) && ctx.coatFresnel > 0.0 && !isDelta(coatAlpha(sp))) {
    GgxReflection coat = ggxReflection(ctx.vCoat, toLocal(ctx.coatFrame, lWorld), coatAlpha(sp));
    value.fCos += vec3(ctx.coatFresnel * coat.fCos);
    value.pdf += ctx.pCoat * coat.pdf;
  }
  return value;
}

struct BsdfSample {
  vec3 direction;
  vec3 weight;       // f cos / pdf
  float pdf;         // 0 for delta lobes and transmission: no light sample can find that direction
  bool transmitted;  // through the surface, to the far side of the geometric normal
};

// The weight of a sampled direction that non-delta lobes may also produce: the whole BSDF over
// the whole mixture pdf, so that every lobe's choice estimates all of them.
bool mixtureWeight(ShadingPoint sp, BsdfContext ctx, vec3 lWorld, out BsdfSample result) {
  BsdfValue value = bsdfValue(sp, ctx, lWorld);
  if (!(value.pdf > 0.0)) return false;
  result = BsdfSample(lWorld, value.fCos / value.pdf, value.pdf, false);
  return true;
}

// The base's perfect mirror: the metal, the dielectric layer and a smooth glass's reflection
// all send light the one way, so its weight is their sum over the chance of either lobe.
bool deltaReflection(ShadingPoint sp, BsdfContext ctx, out BsdfSample result) {
  float glassReflected;
  vec3 fresnel = specularFresnel(sp, ctx.v.z, 1.0, glassReflected);
  float probability = ctx.pSpecular + ctx.pGlass * glassReflected;
  if (!(probability > 0.0)) return false;
  result = BsdfSample(toWorld(ctx.frame, vec3(-ctx.v.xy, ctx.v.z)),
                      (1.0 - ctx.coatFresnel) * sheenScale(sp, ctx, ctx.v.z) * fresnel / probability, 0.0, false);
  return true;
}

// What the glass lobe transmits, towards cosine cosLight, before its Fresnel term and roughness:
// what the coat and the sheen leave, the share of glass in the material, its colour.
vec3 glassTransmission(ShadingPoint sp, BsdfContext ctx, float cosLight) {
  return (1.0 - ctx.coatFresnel) * sheenScale(sp, ctx, cosLight) * (1.0 - sp.metallic) * transmissionOf(sp) *
         sp.baseColor;
}

// The glass lobe: a microfacet normal (the shading normal when smooth), then reflection or
// transmission by its Fresnel term, with uChoice.
bool sampleGlass(ShadingPoint sp, BsdfContext ctx, float uChoice, vec2 u, out BsdfSample result) {
  float alpha = ggxAlpha(sp);
  bool delta = isDelta(alpha);
  vec3 h = delta ? vec3(0.0, 0.0, 1.0) : sampleGgxVisibleNormal(ctx.v, alpha, u);
  float VdotH = dot(ctx.v, h);
  if (VdotH <= 0.0) return false;
  float reflected;
  glassReflectance(sp, VdotH, reflected);
  if (uChoice < reflected) {
    if (delta) return deltaReflection(sp, ctx, result);
    vec3 l = reflect(-ctx.v, h);
    return l.z > 0.0 && mixtureWeight(sp, ctx, toWorld(ctx.frame, l), result);
  }
  float eta = glassEta(sp);
  vec3 l;
  if (sp.thinWalled) {
    l = reflect(-ctx.v, h);
    l.z = -l.z;
  } else {
    l = refract(-ctx.v, h, 1.0 / eta);
  }
  if (!(l.z < 0.0)) return false;
  // Transmission takes (1 - reflected) of the light and is chosen as often: that cancels, and
  // the microfacet BTDF over its visible-normal pdf is G2 / G1 (D and the Jacobian cancel).
  // Radiance is divided by eta^2 on entering a denser medium (it is the transported quantity
  // here, importance the other way).
  float geometry = delta ? 1.0 : smithG2(-l.z, ctx.v.z, alpha) / smithG1(ctx.v.z, alpha);
  float radianceScale = sp.thinWalled ? 1.0 : 1.0 / (eta * eta);
  vec3 weight = glassTransmission(sp, ctx, -l.z) * (geometry * radianceScale / ctx.pGlass);
  if (MS_COMPENSATION && !delta) weight *= glassMultipleScattering(sp, ctx.v.z);
  result = BsdfSample(toWorld(ctx.frame, l), weight, 0.0, true);
  return true;
}

// A smooth thin wall (KHR_materials_transmission without KHR_materials_volume's thickness) sends
// what it transmits straight on, undeviated: a shadow ray crosses it (traceShadow, carrying
// straightTransmittance) where it would stop at any other surface, and a path that crosses it
// keeps the MIS state of the vertex before (path.glsl), whose light sample could have crossed it
// too. Rough or volumetric glass bends light: shadow rays stop there, and light behind it is
// found by BSDF sampling alone.
bool crossesStraight(ShadingPoint sp) {
  return shadesClass(MATERIAL_CLASS_TRANSMISSION) && sp.model == MATERIAL_MODEL_GLTF && sp.thinWalled &&
         transmissionOf(sp) > 0.0 && specularIsDelta(sp);
}

// What a smooth thin wall lets through along `direction`: the glass lobe's straight
// transmission as bsdfSample draws it (its weight times the chance of drawing it), 0 elsewhere.
vec3 straightTransmittance(ShadingPoint sp, vec3 direction) {
  if (!crossesStraight(sp)) return vec3(0.0);
  BsdfContext ctx = bsdfContext(sp, -direction);
  if (ctx.v.z <= 0.0) return vec3(0.0);
  float reflected;
  glassReflectance(sp, ctx.v.z, reflected);
  return glassTransmission(sp, ctx, ctx.v.z) * (1.0 - reflected);
}

// What a shadow ray along `direction` carries past a candidate hit of non-opaque geometry
// (materialNeedsCandidateTest): all of it where the alpha test drops the hit, a smooth thin
// wall's straightTransmittance, else nothing. One function for every backend's traceShadow.
vec3 shadowCandidateTransmittance(uint instanceIndex, uint geometry, uint primitive, vec2 barycentrics, vec3 origin,
                                  vec3 direction) {
  if (!alphaTestPasses(instanceIndex, geometry, primitive, barycentrics, origin, direction)) return vec3(1.0);
  Instance instance = Instances(SCENE.instances).i[instanceIndex];
  // Most non-opaque geometry is alpha-tested leaves: opaque once the test keeps the hit, no
  // shading point needed.
  uint m = materialOf(instance, instance.firstGeometry + geometry);
  if (!shadesClass(MATERIAL_CLASS_TRANSMISSION) || !(MATERIAL(m).transmissionFactor > 0.0) ||
      MATERIAL(m).thicknessFactor > 0.0)
    return vec3(0.0);
  SurfaceHit hit = SurfaceHit(0.0, instanceIndex, geometry, primitive, barycentrics);
  return straightTransmittance(shadingPoint(hit, direction), direction);
}

// A GGX reflection lobe around `frame`: its visible normals, then the mixture's weight.
bool sampleGgxLobe(ShadingPoint sp, BsdfContext ctx, BsdfFrame frame, vec3 v, float alpha, vec2 u,
                   out BsdfSample result) {
  if (v.z <= 0.0) return false;
  vec3 l = reflect(-v, sampleGgxVisibleNormal(v, alpha, u));
  return l.z > 0.0 && mixtureWeight(sp, ctx, toWorld(frame, l), result);
}

// One lobe chosen by uLobe in proportion to its probability (the rest of uLobe then picks
// reflection or transmission in the glass), a direction from it by u.
// Every path through it that returns true writes the whole of `result`.
bool bsdfSample(ShadingPoint sp, BsdfContext ctx, float uLobe, vec2 u, out BsdfSample result) {
  if (ctx.v.z <= 0.0) return false;
  float below = ctx.pCoat;
  if (shadesClass(MATERIAL_CLASS_CLEARCOAT) && uLobe < below) {
    if (isDelta(coatAlpha(sp))) {
      result = BsdfSample(toWorld(ctx.coatFrame, vec3(-ctx.vCoat.xy, ctx.vCoat.z)), vec3(ctx.coatFresnel / ctx.pCoat),
                          0.0, false);
      return true;
    }
    return sampleGgxLobe(sp, ctx, ctx.coatFrame, ctx.vCoat, coatAlpha(sp), u, result);
  }
  below += ctx.pSheen + ctx.pDiffuse;
  if (uLobe < below) {
    vec3 l = cosineHemisphere(u);
    return l.z > 0.0 && mixtureWeight(sp, ctx, toWorld(ctx.frame, l), result);
  }
  if (isCarPaint(sp)) {
    if (uLobe < below + ctx.pFlake0)
      return sampleGgxLobe(sp, ctx, ctx.flakeFrame0, ctx.vFlake0, flakeAlpha(sp), u, result);
    return sampleGgxLobe(sp, ctx, ctx.flakeFrame1, ctx.vFlake1, flakeAlpha(sp), u, result);
  }
  if (uLobe < below + ctx.pSpecular) {
    if (specularIsDelta(sp)) return deltaReflection(sp, ctx, result);
    return sampleGgxLobe(sp, ctx, ctx.frame, ctx.v, ggxAlpha(sp), u, result);
  }
  if (!shadesClass(MATERIAL_CLASS_TRANSMISSION) || !(ctx.pGlass > 0.0)) return false;
  float uChoice = clamp((uLobe - below - ctx.pSpecular) / ctx.pGlass, 0.0, 0.99999994);
  return sampleGlass(sp, ctx, uChoice, u, result);
}

#endif
