// The glTF 2.0 metallic-roughness BSDF as the specification's Appendix B defines it, with
// KHR_materials_specular: Lambertian diffuse under a GGX specular layer (height-correlated
// Smith masking, Schlick Fresnel), mixed with a GGX conductor by metallic. Directions are
// world-space and point away from the surface.
#ifndef PTBENCH_BSDF_GLSL
#define PTBENCH_BSDF_GLSL

// Below this, GGX's D overflows float; the lobe is a mirror to every practical purpose.
const float MIN_ALPHA = 1e-4;

float ggxAlpha(ShadingPoint sp) { return max(sp.roughness * sp.roughness, MIN_ALPHA); }

vec3 schlickFresnel(vec3 f0, float cosTheta) {
  float m = clamp(1.0 - cosTheta, 0.0, 1.0);
  float m2 = m * m;
  return f0 + (1.0 - f0) * (m2 * m2 * m);
}

// F0 of the dielectric layer: ((ior - 1) / (ior + 1))^2 tinted by the specular colour.
vec3 dielectricF0(ShadingPoint sp) {
  float r = (sp.ior - 1.0) / (sp.ior + 1.0);
  return min(vec3(r * r) * sp.specularColor, vec3(1.0));
}

float ggxD(float NdotH, float alpha) {
  float a2 = alpha * alpha;
  float d = NdotH * NdotH * (a2 - 1.0) + 1.0;
  return a2 / (PI * d * d);
}

// V = G2 / (4 NdotL NdotV), height-correlated.
float smithVisibility(float NdotL, float NdotV, float alpha) {
  float a2 = alpha * alpha;
  float ggxV = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2);
  float ggxL = NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
  float denominator = ggxV + ggxL;
  return denominator > 0.0 ? 0.5 / denominator : 0.0;
}

float smithG1(float NdotV, float alpha) {
  float a2 = alpha * alpha;
  return 2.0 * NdotV / (NdotV + sqrt(a2 + (1.0 - a2) * NdotV * NdotV));
}

// f(v, l), without the cosine.
vec3 bsdfEvaluate(ShadingPoint sp, vec3 v, vec3 l) {
  vec3 n = sp.shadingNormal;
  float NdotL = dot(n, l);
  float NdotV = dot(n, v);
  if (NdotL <= 0.0 || NdotV <= 0.0) return vec3(0.0);
  vec3 h = normalize(v + l);
  float NdotH = max(dot(n, h), 0.0);
  float VdotH = max(dot(v, h), 0.0);
  float alpha = ggxAlpha(sp);
  float specular = ggxD(NdotH, alpha) * smithVisibility(NdotL, NdotV, alpha);
  vec3 metal = schlickFresnel(sp.baseColor, VdotH) * specular;
  vec3 dielectricFresnel = schlickFresnel(dielectricF0(sp), VdotH);
  vec3 dielectric = (1.0 - sp.specularWeight * maxComponent(dielectricFresnel)) * sp.baseColor / PI +
                    sp.specularWeight * dielectricFresnel * specular;
  return mix(dielectric, metal, sp.metallic);
}

// How often the specular lobe is sampled: its share of the estimated reflectance.
float specularProbability(ShadingPoint sp, float NdotV) {
  float dielectricSpecular = sp.specularWeight * maxComponent(schlickFresnel(dielectricF0(sp), NdotV));
  float specularShare = mix(dielectricSpecular, 1.0, sp.metallic);
  float diffuseShare = (1.0 - sp.metallic) * (1.0 - dielectricSpecular) * maxComponent(sp.baseColor);
  float total = specularShare + diffuseShare;
  return total > 0.0 ? specularShare / total : 1.0;
}

// The pdf of the visible-normal distribution, converted to reflected directions.
float ggxReflectionPdf(float NdotV, float NdotH, float alpha) {
  return smithG1(NdotV, alpha) * ggxD(NdotH, alpha) / (4.0 * NdotV);
}

float bsdfPdf(ShadingPoint sp, vec3 v, vec3 l) {
  vec3 n = sp.shadingNormal;
  float NdotL = dot(n, l);
  float NdotV = dot(n, v);
  if (NdotL <= 0.0 || NdotV <= 0.0) return 0.0;
  float pSpecular = specularProbability(sp, NdotV);
  float NdotH = max(dot(n, normalize(v + l)), 0.0);
  return pSpecular * ggxReflectionPdf(NdotV, NdotH, ggxAlpha(sp)) + (1.0 - pSpecular) * NdotL / PI;
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

struct BsdfSample {
  vec3 direction;
  vec3 weight;  // f cos / pdf
  float pdf;
};

// One-sample choice between the lobes; the weight divides by the mixture pdf so that either
// choice estimates the whole BSDF.
bool bsdfSample(ShadingPoint sp, vec3 v, float uLobe, vec2 u, out BsdfSample result) {
  vec3 n = sp.shadingNormal;
  vec3 t;
  vec3 b;
  basis(n, t, b);
  vec3 vLocal = vec3(dot(v, t), dot(v, b), dot(v, n));
  if (vLocal.z <= 0.0) return false;
  vec3 lLocal;
  if (uLobe < specularProbability(sp, vLocal.z)) {
    vec3 h = sampleGgxVisibleNormal(vLocal, ggxAlpha(sp), u);
    lLocal = reflect(-vLocal, h);
  } else {
    lLocal = cosineHemisphere(u);
  }
  if (lLocal.z <= 0.0) return false;
  result.direction = normalize(t * lLocal.x + b * lLocal.y + n * lLocal.z);
  result.pdf = bsdfPdf(sp, v, result.direction);
  if (!(result.pdf > 0.0)) return false;
  result.weight = bsdfEvaluate(sp, v, result.direction) * dot(n, result.direction) / result.pdf;
  return true;
}

#endif
