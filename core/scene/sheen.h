// KHR_materials_sheen's Charlie sheen (Estevez and Kulla, "Production Friendly Microfacet Sheen
// BRDF", 2017) with the visibility term the extension suggests, and its directional albedo E,
// which scales the material under the sheen (the extension's "albedo scaling") so that the two
// together never return more than they receive. The shaders read E from a table.
#pragma once
#include <vector>

namespace ptbench {

// The sheen BRDF of a white sheen colour times the cosine at the light, for cosines of the view,
// light and half vector to the normal. Roughness is clamped to gpu::SHEEN_MIN_ROUGHNESS.
double charlieSheenCosine(double cosView, double cosLight, double cosHalf, double roughness);

// E: the integral of charlieSheenCosine over the hemisphere of lights.
double charlieSheenAlbedo(double cosView, double roughness);

// E at gpu::SHEEN_ALBEDO_SIZE evenly spaced cosines (rows) and roughnesses (columns), each
// from 0 to 1, as SceneAddresses::sheenAlbedo holds it. Computed once per process.
const std::vector<float>& sheenAlbedoTable();

// E as the shaders read it from the table: bilinear in cos theta and roughness.
double sheenAlbedoFromTable(double cosTheta, double roughness);

}  // namespace ptbench
