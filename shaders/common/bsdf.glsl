// The glTF 2.0 metallic-roughness BSDF as the specification's Appendix B defines it, with
// KHR_materials_specular: Lambertian diffuse under a GGX specular layer (height-correlated
// Smith masking, Schlick Fresnel), mixed with a GGX conductor by metallic. Directions are
// world-space and point away from the surface.
#ifndef PTBENCH_BSDF_GLSL
#define PTBENCH_BSDF_GLSL

float ggxAlpha(ShadingPoint sp) { return sp.roughness * sp.roughness; }
bool specularIsDelta(ShadingPoint sp) { return ggxAlpha(sp) < SPECULAR_DELTA_ALPHA; }

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

// How often the specular lobe is sampled: its share of the estimated reflectance.
float specularProbability(ShadingPoint sp, float NdotV) {
  float dielectricSpecular = sp.specularWeight * maxComponent(schlickFresnel(dielectricF0(sp), NdotV));
  float specularShare = mix(dielectricSpecular, 1.0, sp.metallic);
  float diffuseShare = (1.0 - sp.metallic) * (1.0 - dielectricSpecular) * maxComponent(sp.baseColor);
  float total = specularShare + diffuseShare;
  return total > 0.0 ? specularShare / total : 1.0;
}

// The specular layer's Fresnel, dielectric and metal mixed by metallic.
vec3 specularFresnel(ShadingPoint sp, float cosTheta) {
  return mix(sp.specularWeight * schlickFresnel(dielectricF0(sp), cosTheta), schlickFresnel(sp.baseColor, cosTheta),
             sp.metallic);
}

// Lambertian under the dielectric layer, which takes its Fresnel share first.
vec3 diffuseTerm(ShadingPoint sp, float VdotH) {
  float layer = 1.0 - sp.specularWeight * maxComponent(schlickFresnel(dielectricF0(sp), VdotH));
  return (1.0 - sp.metallic) * layer * sp.baseColor / PI;
}

// A local frame around the shading normal: every BSDF quantity is computed in it, so that
// evaluation and sampling form the same half vector the same way.
struct BsdfFrame {
  vec3 t;
  vec3 b;
  vec3 n;
};

BsdfFrame bsdfFrame(ShadingPoint sp) {
  BsdfFrame frame;
  frame.n = sp.shadingNormal;
  basis(frame.n, frame.t, frame.b);
  return frame;
}

vec3 toLocal(BsdfFrame frame, vec3 w) {
  return vec3(dot(w, frame.t), dot(w, frame.b), dot(w, frame.n));
}

// f cos and the pdf of bsdfSample for a pair of local directions, both from one D, so that
// their ratio is right however D rounds. A delta specular lobe contributes to neither.
struct BsdfValue {
  vec3 fCos;
  float pdf;
};

BsdfValue bsdfValueLocal(ShadingPoint sp, vec3 v, vec3 l) {
  BsdfValue value;
  value.fCos = vec3(0.0);
  value.pdf = 0.0;
  if (l.z <= 0.0 || v.z <= 0.0) return value;
  vec3 h = normalize(v + l);
  float VdotH = max(dot(v, h), 0.0);
  float pSpecular = specularProbability(sp, v.z);
  value.fCos = diffuseTerm(sp, VdotH) * l.z;
  value.pdf = (1.0 - pSpecular) * l.z / PI;
  if (!specularIsDelta(sp)) {
    float alpha = ggxAlpha(sp);
    float D = ggxD(h, alpha);
    // f cos = F D G2 / (4 NdotV); the visible-normal pdf of the reflected direction is
    // G1 D / (4 NdotV).
    value.fCos += specularFresnel(sp, VdotH) * (D * smithG2(l.z, v.z, alpha) / (4.0 * v.z));
    value.pdf += pSpecular * smithG1(v.z, alpha) * D / (4.0 * v.z);
  }
  return value;
}

// The same for world-space directions pointing away from the surface: zero where either is
// below the shading normal.
BsdfValue bsdfEvaluate(ShadingPoint sp, vec3 v, vec3 l) {
  BsdfFrame frame = bsdfFrame(sp);
  return bsdfValueLocal(sp, toLocal(frame, v), toLocal(frame, l));
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
  float pdf;    // 0 for the delta lobe: no light sample can find that direction
};

// One-sample choice between the lobes; the weight divides by the mixture pdf so that either
// choice estimates the whole BSDF.
bool bsdfSample(ShadingPoint sp, vec3 v, float uLobe, vec2 u, out BsdfSample result) {
  BsdfFrame frame = bsdfFrame(sp);
  vec3 vLocal = toLocal(frame, v);
  if (vLocal.z <= 0.0) return false;
  float pSpecular = specularProbability(sp, vLocal.z);
  vec3 lLocal;
  if (uLobe < pSpecular) {
    if (specularIsDelta(sp)) {
      lLocal = vec3(-vLocal.xy, vLocal.z);
      result.weight = specularFresnel(sp, vLocal.z) / pSpecular;
      result.pdf = 0.0;
    } else {
      float alpha = ggxAlpha(sp);
      vec3 h = sampleGgxVisibleNormal(vLocal, alpha, u);
      lLocal = reflect(-vLocal, h);
      if (lLocal.z <= 0.0) return false;
      // The specular lobe's f cos / pdf is F G2 / G1: D cancels analytically. The diffuse
      // lobe enters through its pdf relative to the specular one.
      float VdotH = max(dot(vLocal, h), 0.0);
      float specularPdf = smithG1(vLocal.z, alpha) * ggxD(h, alpha) / (4.0 * vLocal.z);
      if (!(specularPdf > 0.0)) return false;
      vec3 specularWeight =
          specularFresnel(sp, VdotH) * (smithG2(lLocal.z, vLocal.z, alpha) / smithG1(vLocal.z, alpha));
      float diffusePdf = lLocal.z / PI;
      vec3 diffuseWeight = diffuseTerm(sp, VdotH) * lLocal.z / specularPdf;
      result.weight = (specularWeight + diffuseWeight) / (pSpecular + (1.0 - pSpecular) * diffusePdf / specularPdf);
      result.pdf = pSpecular * specularPdf + (1.0 - pSpecular) * diffusePdf;
    }
  } else {
    lLocal = cosineHemisphere(u);
    if (lLocal.z <= 0.0) return false;
    BsdfValue value = bsdfValueLocal(sp, vLocal, lLocal);
    if (!(value.pdf > 0.0)) return false;
    result.weight = value.fCos / value.pdf;
    result.pdf = value.pdf;
  }
  result.direction = normalize(frame.t * lLocal.x + frame.b * lLocal.y + frame.n * lLocal.z);
  return true;
}

#endif
