#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's final shading: the primary vertex's direct light from the pixel's final reservoir
// (one shadow ray), added to the rest of its path's radiance, and the sample into the film.
#include "restir/reuse.glsl"
#include "common/film.glsl"

void shadeReservoir(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint index = pixel.y * FRAME.width + pixel.x;
  vec3 radiance = RestirRadiance(RESTIR_FRAME.pathRadiance).v[index];
  uint shadowRays = 0u;
  RestirVertex vertex;
  if (restirVertex(restirSurfaces(push.sampleIndex).s[index], vertex)) {
    Reservoir reservoir = Reservoirs(RESTIR_FRAME.spatial).r[index];
    vec3 contribution;
    if (reservoir.weight > 0.0 && shadowedTarget(vertex, reservoir.light, contribution, shadowRays) > 0.0)
      radiance += vertex.throughput * contribution * reservoir.weight;
  }
  FilmSample film = filmSample();
  filmAdd(film, radiance);
  // This invocation is the launch's only one at its pixel.
  filmCommitOwned(film, index);
  countShadowRays(index, shadowRays);
}

RESTIR_PASS_MAIN(shadeReservoir)
