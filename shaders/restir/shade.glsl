#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's final shading: the primary vertex's direct light (DI's final reservoir, or with GI
// alone next-event estimation; one shadow ray, for the colour a thin transmissive wall gives it)
// and with GI its indirect light from the final GI reservoir (whose target already holds its
// binary visibility), added to the rest of its path's radiance, and the sample into the film.
#include "restir/reuse.glsl"
#include "common/film.glsl"

// Next-event estimation at the primary vertex, as the path tracer's light sample there would
// draw it, MIS-weighted against the BSDF sample as there (which weighs the emission it finds
// with the complement).
vec3 nextEventEstimation(uint index, RestirVertex vertex, inout uint shadowRays) {
  SampleStream stream = sampleStream(index, push.sampleIndex);
  LightSample light;
  if (!sampleLight(vertex.sp.position, sample1D(stream, bounceDimension(0u, DIMENSION_LIGHT_CHOICE)),
                   sampleBits(stream, bounceDimension(0u, DIMENSION_LIGHT_INDEX)),
                   sample2D(stream, bounceDimension(0u, DIMENSION_LIGHT_POINT)), light) ||
      dot(light.direction, vertex.sp.geometricNormal) <= 0.0)
    return vec3(0.0);
  BsdfValue atLight = bsdfValue(vertex.sp, vertex.bsdf, light.direction);
  if (!(maxComponent(atLight.fCos) > 0.0)) return vec3(0.0);
  shadowRays += 1u;
  vec3 transmittance = traceShadow(offsetRayOrigin(vertex.sp.position, vertex.sp.geometricNormal), light.direction,
                                   shadowRayEnd(light));
  float weight = light.delta ? 1.0 : powerHeuristic(light.pdf, atLight.pdf);
  return atLight.fCos * light.radiance * transmittance * weight / light.pdf;
}

void shadeReservoir(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint index = pixel.y * FRAME.width + pixel.x;
  vec3 radiance = RestirRadiance(RESTIR_FRAME.pathRadiance).v[index];
  if (RESTIR_WITH_GI) {
    // From a GI sample on, the path's radiance is L_o at its point: the reservoir's where the
    // point is reusable, the path's own (weighed back) where not.
    GiStart start = GiStarts(RESTIR_FRAME.giStart).s[index];
    if (start.pdf > 0.0) radiance = start.emission + (start.reusable != 0u ? vec3(0.0) : start.throughput * radiance);
  }
  uint shadowRays = 0u;
  RestirVertex vertex;
  if (restirVertex(restirSurfaces(push.sampleIndex).s[index], vertex)) {
    if (RESTIR_WITH_DI) {
      Reservoir reservoir = Reservoirs(RESTIR_FRAME.spatial).r[index];
      vec3 contribution;
      if (reservoir.weight > 0.0 && shadowedTarget(vertex, reservoir.light, contribution, shadowRays) > 0.0)
        radiance += vertex.throughput * contribution * reservoir.weight;
    } else {
      radiance += vertex.throughput * nextEventEstimation(index, vertex, shadowRays);
    }
    if (RESTIR_WITH_GI) {
      // Spatial reuse resampled the kept sample by its target here, visibility included: no ray.
      GiReservoir reservoir = GiReservoirs(RESTIR_FRAME.giSpatial).r[index];
      if (reservoir.weight > 0.0 && reservoir.target > 0.0)
        radiance += vertex.throughput * giUnshadowedContribution(vertex, reservoir.kept) * reservoir.weight;
    }
  }
  FilmSample film = filmSample();
  filmAdd(film, radiance);
  // This invocation is the launch's only one at its pixel.
  filmCommitOwned(film, index);
  countVisibilityRays(index, RESTIR_PASS_SHADE, shadowRays);
}

RESTIR_PASS_MAIN(shadeReservoir)
