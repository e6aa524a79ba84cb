// ReSTIR DI at the primary vertex (Bitterli et al. 2020; DESIGN.md, "ReSTIR"): reservoirs, the
// target function, and the initial candidates the path tracers draw at their primary vertex.
// The reuse passes and the final shading (shaders/restir/) build on it.
//
// Target function: p(y) = luminance(f(x, y) cos * Le(y) * G(x, y) * T(x, y)), where T is what
// the shadow ray lets through (traceShadow). The initial candidates are resampled without T
// (no ray in the path tracer's kernel); every reuse pass resamples with it, which is
// Bitterli et al.'s visibility reuse. Reservoirs are combined by generalized RIS (Lin et al.
// 2022) with pairwise MIS weights (Bitterli 2022, Wyman & Panteleev 2021): each input's sample
// weighs m_i(y) p_pixel(y) W_i, and the m_i, from every input's target (visibility included) at
// the sample, sum to one wherever any input could have produced it, so the estimate is unbiased.
// (Bitterli et al. 2020's 1/Z normalisation, which the first version used, is unbiased too,
// but its weights ignore how much likelier a sample was at its own pixel than at this one.)
#ifndef PTBENCH_RESTIR_GLSL
#define PTBENCH_RESTIR_GLSL
#include "shared/restir.h"

layout(constant_id = SPEC_RESTIR) const uint RESTIR = RESTIR_OFF;

layout(buffer_reference, scalar) readonly buffer RestirFrameRef { RestirFrame f; };
layout(buffer_reference, scalar) buffer Reservoirs { Reservoir r[]; };
layout(buffer_reference, scalar) buffer RestirSurfaces { RestirSurface s[]; };
layout(buffer_reference, scalar) buffer RestirRadiance { vec3 v[]; };

#define RESTIR_FRAME (RestirFrameRef(FRAME.restir).f)

// Surfaces alternate between two arrays by sample pass: this pass's, and the one before's.
RestirSurfaces restirSurfaces(uint sampleIndex) {
  return RestirSurfaces(RESTIR_FRAME.surfaces[(RESTIR_FRAME.firstPass + sampleIndex) & 1u]);
}
RestirSurfaces restirPreviousSurfaces(uint sampleIndex) {
  return RestirSurfaces(RESTIR_FRAME.surfaces[(RESTIR_FRAME.firstPass + sampleIndex + 1u) & 1u]);
}

Reservoir emptyReservoir() { return Reservoir(LightRef(RESTIR_LIGHT_NONE, 0u, vec3(0.0)), 0.0, 0.0, 0.0); }

float luminance(vec3 c) { return dot(c, vec3(0.2126, 0.7152, 0.0722)); }

// A pixel without a primary vertex: nothing for the passes to reuse or shade. Written where its
// path starts, before the vertex (if any) overwrites it.
void restirNoSurface(uint pixel, uint sampleIndex) {
  restirSurfaces(sampleIndex).s[pixel].t = -1.0;
  Reservoirs(RESTIR_FRAME.initial).r[pixel] = emptyReservoir();
}

// A primary vertex as the passes see it, rebuilt from what restirInitialCandidates stored.
struct RestirVertex {
  ShadingPoint sp;
  BsdfContext bsdf;
  vec3 throughput;
};

bool restirVertex(RestirSurface surface, out RestirVertex vertex) {
  if (surface.t < 0.0) return false;
  SurfaceHit hit = SurfaceHit(surface.t, surface.instance, surface.geometry, surface.primitive, surface.barycentrics);
  vertex.sp = shadingPoint(hit, surface.direction);
  vertex.bsdf = bsdfContext(vertex.sp, -surface.direction);
  vertex.throughput = surface.throughput;
  return true;
}

// The light a sample sends through the vertex's BSDF towards the camera, unshadowed and in the
// sample's measure (so that W, in that measure, turns it into an estimate); zero where the
// path tracer's light sample would not go (under the geometric surface). Weighted, as the path
// tracer's light sample is, by MIS against the BSDF sample that could have found the same
// light: the reservoir estimates light sampling's share of the direct light, and the path's
// BSDF-sampled ray from the vertex keeps the rest. (A first version gave the reservoir all of it:
// where a glossy lobe met an environment's sun, light sampling alone made fireflies a hundred
// times the pixel's value, relMSE 4 to 13 at one sample a pixel against 0.1 without ReSTIR.)
vec3 unshadowedContribution(ShadingPoint sp, BsdfContext ctx, LightSample light, float toMeasure) {
  if (dot(light.direction, sp.geometricNormal) <= 0.0) return vec3(0.0);
  BsdfValue atLight = bsdfValue(sp, ctx, light.direction);
  float weight = light.delta ? 1.0 : powerHeuristic(light.pdf, atLight.pdf);
  return atLight.fCos * light.radiance * toMeasure * weight;
}

// Streaming weighted reservoir sampling: each input is kept with probability weight / weightSum.
struct ReservoirStream {
  LightRef light;
  float weightSum;
  float count;
  float target;  // the kept sample's target at the pixel
};

ReservoirStream reservoirStream() {
  return ReservoirStream(LightRef(RESTIR_LIGHT_NONE, 0u, vec3(0.0)), 0.0, 0.0, 0.0);
}

bool streamAdd(inout ReservoirStream s, LightRef light, float weight, float target, float count, float u) {
  s.count += count;
  if (!(weight > 0.0)) return false;
  s.weightSum += weight;
  if (u * s.weightSum >= weight) return false;
  s.light = light;
  s.target = target;
  return true;
}

// The kept sample with its unbiased contribution weight W = weightSum / target (generalized
// RIS: the inputs' weights carry their MIS weights).
Reservoir streamReservoir(ReservoirStream s) {
  float weight = s.target > 0.0 ? s.weightSum / s.target : 0.0;
  return Reservoir(s.light, weight, s.count, s.target);
}

// One pair's balance heuristic, `own` and `other` each a confidence times a target: the share
// of the pair that is own's (0 where neither could have produced the sample).
float pairwiseShare(float own, float other) { return own > 0.0 ? own / (own + other) : 0.0; }

// At the primary vertex, in place of the path tracer's light sample: RESTIR_INITIAL_CANDIDATES
// light samples from the same sampler (sampleLight), resampled by their unshadowed target
// (RIS, normalised by the candidate count), into the pixel's initial reservoir; and the vertex
// itself, for the passes to shade.
void restirInitialCandidates(PathState path, SurfaceHit hit, ShadingPoint sp, BsdfContext ctx) {
  SampleStream stream = sampleStream(path.pixel, path.sampleIndex);
  ReservoirStream candidates = reservoirStream();
  for (uint i = 0u; i < RESTIR_INITIAL_CANDIDATES; ++i) {
    uint dimension = RESTIR_DIMENSION_CANDIDATES + 5u * i;
    LightSample drawn;
    LightRef ref;
    LightSample seen;
    float toMeasure;
    float weight = 0.0;
    float target = 0.0;
    if (sampleLight(sp.position, sample1D(stream, dimension), sampleBits(stream, dimension + 1u),
                    sample2D(stream, dimension + 2u), drawn, ref) &&
        evaluateLightRef(ref, sp.position, seen, toMeasure)) {
      target = luminance(unshadowedContribution(sp, ctx, seen, toMeasure));
      // The sampler's density in the sample's measure; each candidate's MIS weight is 1/M.
      float pdf = drawn.pdf * toMeasure;
      weight = pdf > 0.0 ? target / (pdf * float(RESTIR_INITIAL_CANDIDATES)) : 0.0;
    }
    streamAdd(candidates, ref, weight, target, 1.0, sample1D(stream, dimension + 4u));
  }
  Reservoirs(RESTIR_FRAME.initial).r[path.pixel] = streamReservoir(candidates);
  restirSurfaces(path.sampleIndex).s[path.pixel] = RestirSurface(
      hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics, path.direction, path.throughput,
      sp.position, sp.geometricNormal);
}

#endif
