// One path vertex at a time: the light transport both integrators share. The megakernel calls
// these in a loop; the wavefront calls each from its own stage.
#ifndef PTBENCH_PATH_GLSL
#define PTBENCH_PATH_GLSL

#include "shared/path_state.h"
#include "common/phase_clocks.glsl"
#define PTBENCH_PATH_STATE_MEMBER(type, name) type name;
struct PathState {
  PTBENCH_PATH_FIELDS(PTBENCH_PATH_STATE_MEMBER)
};
#undef PTBENCH_PATH_STATE_MEMBER
#include "common/restir.glsl"

// A shadow ray for next-event estimation: contribution is added, times what the smooth thin
// walls on its way let through (traceShadow), if nothing else blocks it.
struct ShadowRay {
  vec3 origin;
  vec3 direction;
  float tMax;
  vec3 contribution;
  bool requested;
};

// exp(-sigma t) with sigma = -ln(attenuationColor) / attenuationDistance.
vec3 volumeTransmittance(uint material, float distance) {
  float attenuationDistance = MATERIAL(material).attenuationDistance;
  if (!(attenuationDistance < RAY_T_MAX)) return vec3(1.0);
  return pow(max(MATERIAL(material).attenuationColor, vec3(0.0)), vec3(distance / attenuationDistance));
}

uvec2 pixelCoordinates(uint pixel) { return uvec2(pixel % FRAME.width, pixel / FRAME.width); }

// The MIS weight of emission that a BSDF-sampled ray found, against the light sample at the
// vertex it left (lightPdf: that sample's density for the emitter's point). A bsdfPdf of 0 marks
// a direction no light sample could have chosen (the camera ray, a delta lobe): all the
// emission is this estimator's. (With ReSTIR DI's BSDF candidates the primary vertex's BSDF
// sample is a candidate of its reservoir instead: restirBsdfCandidateRay.)
float bsdfSampleWeight(float bsdfPdf, float lightPdf) {
  if (bsdfPdf == 0.0) return 1.0;
  return powerHeuristic(bsdfPdf, lightPdf);
}

// Where the path's direction was sampled, the vertex whose light sample MIS weighs an emitter's
// hit against: the ray's origin, or as far behind it as the smooth thin walls crossed since
// (crossesStraight), which a light sample from there crosses too.
vec3 misOrigin(PathState path) { return path.origin - path.direction * path.misDistance; }

PathState startPath(uint pixel, uint sampleIndex) {
  PathState path;
  path.pixel = pixel;
  path.sampleIndex = sampleIndex;
  path.depth = 0u;
  path.throughput = vec3(1.0);
  path.radiance = vec3(0.0);
  path.bsdfPdf = 0.0;
  path.misDistance = 0.0;
  path.etaScale = 1.0;
  cameraRay(pixelCoordinates(pixel), sampleStream(pixel, sampleIndex), path.origin, path.direction);
  return path;
}

// The environment: the constant's radiance, and the map's weighted by MIS against the light
// sample that could have chosen the same direction.
void pathEscaped(inout PathState path) {
  CLOCK_PHASE(CLOCK_PHASE_LIGHT);
  vec3 radiance = FRAME.environment;
  vec3 mapped = environmentMapRadiance(path.direction);
  if (maxComponent(mapped) > 0.0) {
    if (restirBsdfCandidateRay(path)) {
      restirBsdfCandidate(path, LightRef(RESTIR_LIGHT_ENVIRONMENT, 0u, path.direction));
    } else {
      float weight = 1.0;
      if (path.bsdfPdf != 0.0)
        weight = bsdfSampleWeight(path.bsdfPdf, lightKindProbability() * environmentPdf(path.direction));
      radiance += mapped * weight;
    }
  }
  path.radiance += path.throughput * radiance;
  path.depth += 1u;
}

// Shades the vertex a traced ray found: emission (MIS-weighted against light sampling), a
// light sample, the next direction and Russian roulette. Returns whether the path goes on.
// With counters: clocks, its phases are material (the shading point, the BSDF) and light
// (emission, the light sample, MIS), then rest (the path's next ray, roulette); it may return in
// any of them, and its caller names the next.
bool pathHit(inout PathState path, SurfaceHit hit, out ShadowRay shadow) {
  shadow.requested = false;
  path.depth += 1u;
  CLOCK_PHASE(CLOCK_PHASE_MATERIAL);
  ShadingPoint sp = shadingPoint(hit, path.direction);
  vec3 wo = -path.direction;
  // A ray that meets the back of a volumetric transmissive surface has crossed its inside
  // (KHR_materials_volume): Beer-Lambert over the distance.
  if (shadesClass(MATERIAL_CLASS_TRANSMISSION) && !sp.frontFace && !sp.thinWalled && sp.transmission > 0.0)
    path.throughput *= volumeTransmittance(sp.material, hit.t);

  CLOCK_PHASE(CLOCK_PHASE_LIGHT);
  // GI: the point the primary vertex's GI ray found.
  bool giSamplePoint = RESTIR_WITH_GI && path.depth == 2u && restirGiRayLeft(path);
  if (giSamplePoint) restirGiSamplePoint(path, sp);
  if (maxComponent(sp.emission) > 0.0) {
    uint light = restirBsdfCandidateRay(path) ? emissiveTriangleIndex(sp, hit.primitive) : NOT_EMISSIVE;
    if (light != NOT_EMISSIVE && SCENE.totalEmissivePower > 0.0) {
      vec3 barycentrics = vec3(1.0 - hit.barycentrics.x - hit.barycentrics.y, hit.barycentrics);
      restirBsdfCandidate(path, LightRef(RESTIR_LIGHT_TRIANGLE, light, barycentrics));
    } else {
      // (An emitter no light sample can choose, none of the scene's light power, has light pdf 0:
      // the path's alone, a BSDF candidate's ray too.)
      float weight = 1.0;
      if (path.bsdfPdf != 0.0)
        weight = bsdfSampleWeight(abs(path.bsdfPdf), emissiveTrianglePdf(sp, hit.primitive, misOrigin(path)));
      // The emission the GI ray finds is the primary vertex's direct light (its BSDF sample's MIS
      // share), the pixel's own: not part of the sample point's L_o, which other pixels reuse.
      if (giSamplePoint)
        restirGiAddDirectLight(path, sp.emission * weight);
      else
        path.radiance += path.throughput * sp.emission * weight;
    }
  }
  if (path.depth >= FRAME.maxDepth) return false;

  SampleStream stream = sampleStream(path.pixel, path.sampleIndex);
  uint vertex = path.depth - 1u;
  CLOCK_PHASE(CLOCK_PHASE_MATERIAL);
  BsdfContext bsdfCtx = bsdfContext(sp, wo);
  CLOCK_PHASE(CLOCK_PHASE_LIGHT);
  // With ReSTIR the primary vertex's direct light is the passes' (shaders/restir/): ReSTIR DI's
  // reservoirs, or with GI alone next-event estimation in the final shading.
  bool atRestirVertex = RESTIR != RESTIR_OFF && vertex == 0u;
  LightSample light;
  if (atRestirVertex) {
    restirStoreSurface(path, hit, sp);
    if (RESTIR_WITH_DI) restirInitialCandidates(path, sp, bsdfCtx);
  } else if (sampleLight(sp.position, sample1D(stream, bounceDimension(vertex, DIMENSION_LIGHT_CHOICE)),
                  sampleBits(stream, bounceDimension(vertex, DIMENSION_LIGHT_INDEX)),
                  sample2D(stream, bounceDimension(vertex, DIMENSION_LIGHT_POINT)), light) &&
      dot(light.direction, sp.geometricNormal) > 0.0) {
    CLOCK_PHASE(CLOCK_PHASE_MATERIAL);
    BsdfValue atLight = bsdfValue(sp, bsdfCtx, light.direction);
    CLOCK_PHASE(CLOCK_PHASE_LIGHT);
    if (maxComponent(atLight.fCos) > 0.0) {
      float weight = light.delta ? 1.0 : powerHeuristic(light.pdf, atLight.pdf);
      shadow.origin = offsetRayOrigin(sp.position, sp.geometricNormal);
      shadow.direction = light.direction;
      shadow.tMax = shadowRayEnd(light);
      shadow.contribution = path.throughput * atLight.fCos * light.radiance * weight / light.pdf;
      shadow.requested = true;
    }
  }

  CLOCK_PHASE(CLOCK_PHASE_MATERIAL);
  BsdfSample bsdf;
  if (!bsdfSample(sp, bsdfCtx, sample1D(stream, bounceDimension(vertex, DIMENSION_LOBE)),
                  sample2D(stream, bounceDimension(vertex, DIMENSION_BSDF)), bsdf))
    return false;
  CLOCK_PHASE(CLOCK_PHASE_REST);
  // A reflection under the geometric surface would leak through it, a transmission above it
  // would not cross it.
  float side = bsdf.transmitted ? -1.0 : 1.0;
  if (side * dot(bsdf.direction, sp.geometricNormal) <= 0.0) return false;
  path.throughput *= bsdf.weight;
  // A refraction scaled radiance by 1/eta^2 (bsdf.glsl), which leaving the medium undoes.
  if (bsdf.transmitted && !sp.thinWalled) path.etaScale *= glassEta(sp) * glassEta(sp);
  // Straight through a smooth thin wall the direction is the one sampled before it, which a
  // light sample there could have chosen (its shadow ray crosses the wall too): MIS goes on
  // weighing against that vertex.
  if (bsdf.transmitted && crossesStraight(sp)) {
    path.misDistance += hit.t;
  } else {
    path.bsdfPdf = atRestirVertex && restirTakesBsdfCandidate(bsdf) ? -bsdf.pdf : bsdf.pdf;
    path.misDistance = 0.0;
  }
  path.origin = offsetRayOrigin(sp.position, side * sp.geometricNormal);
  path.direction = bsdf.direction;
  // GI resamples the reflections off non-delta lobes (which reconnection can reach); the rest of
  // the primary vertex's bounces stay the path's.
  if (RESTIR_WITH_GI && atRestirVertex && !bsdf.transmitted && bsdf.pdf > 0.0) restirGiLeaveVertex(path, bsdf.pdf);

  // Roulette reads the throughput as it will be outside any glass (pbrt-v4's etaScale): inside
  // one, the 1/eta^2 of its radiance would otherwise kill paths that leave it whole.
  // (Not at ReSTIR DI's vertex: its BSDF sample is a candidate, whose ray must be traced.)
  if (path.depth >= FRAME.rrDepth && !(RESTIR_WITH_DI && atRestirVertex && restirBsdfCandidates())) {
    float survival = min(maxComponent(path.throughput) * path.etaScale, 1.0);
    if (sample1D(stream, bounceDimension(vertex, DIMENSION_ROULETTE)) >= survival) return false;
    path.throughput /= survival;
  }
  return maxComponent(path.throughput) > 0.0;
}

#endif
