// Fresnel terms that need nothing but their arguments, so that a test kernel can call them alone
// (shaders/tests/glass_reflectance.comp).
#ifndef PTBENCH_FRESNEL_GLSL
#define PTBENCH_FRESNEL_GLSL

// Fresnel reflectance of a dielectric interface for unpolarised light arriving at cosine cosI
// (> 0) on the side of relative IOR eta = n(far side) / n(this side); 1 beyond the critical angle.
float fresnelDielectric(float cosI, float eta) {
  float sin2T = (1.0 - cosI * cosI) / (eta * eta);
  if (sin2T >= 1.0) return 1.0;
  float cosT = sqrt(1.0 - sin2T);
  float rs = (cosI - eta * cosT) / (cosI + eta * cosT);
  float rp = (eta * cosI - cosT) / (eta * cosI + cosT);
  return 0.5 * (rs * rs + rp * rp);
}

// A glass's reflectance at the microfacet's cosine cosI on the side of relative IOR eta, tinted
// by KHR_materials_specular: at normal incidence min(F0 x colour, 1) x weight, as the extension
// tints F0; from there it rises with the exact Fresnel term f towards f90 (the weight, as the
// extension scales f90; 1 where light can be totally reflected, eta < 1), so that it meets the
// total reflection beyond the critical angle instead of jumping to it (the tint used to scale f
// itself: a glass tinted to 0.2 reflected 0.2 just below the critical angle, 1 beyond). Untinted
// (colour 1, weight 1) it is f exactly.
vec3 tintedGlassReflectance(float cosI, float eta, vec3 specularColor, float specularWeight) {
  float f = fresnelDielectric(cosI, eta);
  if (f >= 1.0) return vec3(1.0);
  float r = (eta - 1.0) / (eta + 1.0);
  float f0 = r * r;
  vec3 tintedF0 = min(vec3(f0) * specularColor, vec3(1.0)) * specularWeight;
  float f90 = eta < 1.0 ? 1.0 : specularWeight;
  float rise = clamp((f - f0) / (1.0 - f0), 0.0, 1.0);
  return mix(tintedF0, vec3(f90), rise);
}

#endif
