// Energy compensation of the rough GGX lobes (Kulla and Conty, "Revisiting Physically Based
// Shading at Imageworks", 2017): a single-scattering microfacet lobe loses the light that meets
// a second microfacet, up to a third of it at roughness 1 and grazing view. The shaders
// (bsdf.glsl) give it back from the directional albedos tabulated here, once per process
// (multiple_scattering.cpp derives how).
#pragma once
#include <vector>

namespace ptbench {

// E: the directional albedo of a white (F = 1) GGX reflection lobe, for the view at cosView to
// the normal, GGX alpha `alpha` (roughness squared); 1 below gpu::SPECULAR_DELTA_ALPHA.
double ggxConductorAlbedo(double cosView, double alpha);

// E of white rough glass: what it reflects and transmits (one exact Fresnel term, Walter et al.
// 2007) for light arriving at cosView on the side of relative IOR eta (far side over this side).
double ggxGlassAlbedo(double cosView, double alpha, double eta);

// The table as SceneAddresses::multipleScattering holds it (layout: gpu::MS_*, shared/render.h),
// computed once per process: the conductor's part alone (gpu::MS_GLASS_OFFSET floats, a fraction
// of a second), and the whole, the glass's part computed on every thread the machine has
// (seconds on one core).
const std::vector<float>& conductorAlbedoTable();
const std::vector<float>& multipleScatteringTable();

// The table as the shaders read it: E of the white conductor, bilinear in cos theta and
// roughness; E_avg, linear in roughness; E of white glass of this IOR (IOR >= 1) entering it
// (`entering`: eta = IOR) or leaving it (1 / IOR), trilinear.
double conductorAlbedoFromTable(double cosTheta, double roughness);
double conductorAverageAlbedoFromTable(double roughness);
double glassAlbedoFromTable(double cosTheta, double roughness, double ior, bool entering);

// What compensation adds to a conductor's Fresnel term F(f0) (Schlick's, f90 = 1) at a view of
// cosine cosView: F_ms (1 - E) / E, E from the table (bsdf.glsl's conductorMultipleScattering).
double conductorMultipleScattering(double f0, double cosView, double roughness);

}  // namespace ptbench
