// ReSTIR at the primary vertex (DESIGN.md, "ReSTIR"): DI (Bitterli et al. 2020), its reservoirs,
// target function and the initial candidates the path tracers draw at their primary vertex; and
// what the path tracers record of their first indirect bounce for GI (Ouyang et al. 2021). The
// reuse passes and the final shading (shaders/restir/) build on it.
//
// DI:
// Target function: p(y) = luminance(f(x, y) cos * Le(y) * G(x, y) * T(x, y)), where T is what
// the shadow ray lets through (traceShadow), times light sampling's MIS weight against the
// path's BSDF sample, which keeps the rest of the direct light. With restir_bsdf_candidate the
// target is all of the direct light instead, and that BSDF sample (the path's next ray, traced
// anyway) is a candidate beside the light samples, both weighed by the balance heuristic. The
// initial candidates are resampled without T (no shadow ray in the path tracer's kernel); every
// reuse pass resamples with it, which is
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
const bool RESTIR_WITH_DI = (RESTIR & RESTIR_DI) != 0u;
const bool RESTIR_WITH_GI = (RESTIR & RESTIR_GI) != 0u;

layout(buffer_reference, scalar) readonly buffer RestirFrameRef { RestirFrame f; };
layout(buffer_reference, scalar) buffer Reservoirs { Reservoir r[]; };
layout(buffer_reference, scalar) buffer RestirSurfaces { RestirSurface s[]; };
layout(buffer_reference, scalar) buffer RestirRadiance { vec3 v[]; };
layout(buffer_reference, scalar) buffer GiStarts { GiStart s[]; };
layout(buffer_reference, scalar) buffer GiReservoirs { GiReservoir r[]; };

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
  if (RESTIR_WITH_DI) Reservoirs(RESTIR_FRAME.initial).r[pixel] = emptyReservoir();
  if (RESTIR_WITH_GI) GiStarts(RESTIR_FRAME.giStart).s[pixel].pdf = 0.0;
}

// The primary vertex, for the passes to shade (written by the path tracer's kernel).
void restirStoreSurface(PathState path, SurfaceHit hit, ShadingPoint sp) {
  restirSurfaces(path.sampleIndex).s[path.pixel] = RestirSurface(
      hit.t, hit.instance, hit.geometry, hit.primitive, hit.barycentrics, path.direction, path.throughput,
      sp.position, sp.geometricNormal);
}

// GI, at the primary vertex once its BSDF sample is taken (a reflection off a non-delta lobe,
// the directions reconnection can reach): the start of the pixel's GI sample. What the path
// gathers from here on is L_o at the point the ray finds, so its radiance and throughput start
// afresh (its roulette too: it reads the throughput from the sample point on).
void restirGiLeaveVertex(inout PathState path, float pdf) {
  GiStarts starts = GiStarts(RESTIR_FRAME.giStart);
  starts.s[path.pixel].emission = path.radiance;
  starts.s[path.pixel].throughput = path.throughput;
  starts.s[path.pixel].pdf = pdf;
  starts.s[path.pixel].reusable = 0u;
  path.radiance = vec3(0.0);
  path.throughput = vec3(1.0);
}

// GI: whether the path's ray from the primary vertex is its GI ray (restirGiLeaveVertex gave it
// a density; restirNoSurface cleared it where the path began).
bool restirGiRayLeft(PathState path) { return GiStarts(RESTIR_FRAME.giStart).s[path.pixel].pdf > 0.0; }

// GI: light the GI ray found that is the primary vertex's direct light (`radiance` as it
// arrives there), into the pixel's unresampled part.
void restirGiAddDirectLight(PathState path, vec3 radiance) {
  GiStarts starts = GiStarts(RESTIR_FRAME.giStart);
  starts.s[path.pixel].emission += starts.s[path.pixel].throughput * radiance;
}

// GI, at the point the primary vertex's GI ray found: the sample point, reusable by other pixels
// where its surface scatters alike towards every vertex (RESTIR_GI_MIN_ROUGHNESS).
void restirGiSamplePoint(PathState path, ShadingPoint sp) {
  bool reusable = sp.model == MATERIAL_MODEL_GLTF && !(sp.transmission > 0.0) &&
                  sp.roughness >= RESTIR_GI_MIN_ROUGHNESS &&
                  (!(sp.clearcoat > 0.0) || sp.clearcoatRoughness >= RESTIR_GI_MIN_ROUGHNESS);
  GiStarts starts = GiStarts(RESTIR_FRAME.giStart);
  starts.s[path.pixel].position = sp.position;
  starts.s[path.pixel].normal = sp.geometricNormal;
  starts.s[path.pixel].reusable = reusable ? 1u : 0u;
}

// A primary vertex as the passes see it, rebuilt from what restirStoreSurface stored.
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

// Whether DI's reservoir takes the primary vertex's BSDF sample as a candidate
// (restir_bsdf_candidate).
bool restirBsdfCandidates() { return RESTIR_FRAME.bsdfCandidate != 0u; }

// The light a sample sends through the vertex's BSDF towards the camera, unshadowed and in the
// sample's measure (so that W, in that measure, turns it into an estimate); zero where the
// path tracer's light sample would not go (under the geometric surface). Without BSDF
// candidates it is weighted, as the path tracer's light sample is, by MIS against the BSDF
// sample that could have found the same light: the reservoir estimates light sampling's share,
// and the path's BSDF-sampled ray from the vertex keeps the rest. (Where a glossy lobe met an
// environment's sun, all of it by light sampling alone made fireflies a hundred times the
// pixel's value.) With them, all of it (candidateWeight weighs the two techniques). `bsdfPdf`:
// the BSDF's solid-angle density of the light's direction (0 for a delta light).
vec3 unshadowedContribution(ShadingPoint sp, BsdfContext ctx, LightSample light, float toMeasure, out float bsdfPdf) {
  bsdfPdf = 0.0;
  if (dot(light.direction, sp.geometricNormal) <= 0.0) return vec3(0.0);
  BsdfValue atLight = bsdfValue(sp, ctx, light.direction);
  if (!light.delta) bsdfPdf = atLight.pdf;
  float weight = light.delta || restirBsdfCandidates() ? 1.0 : powerHeuristic(light.pdf, atLight.pdf);
  return atLight.fCos * light.radiance * toMeasure * weight;
}

vec3 unshadowedContribution(ShadingPoint sp, BsdfContext ctx, LightSample light, float toMeasure) {
  float unused;
  return unshadowedContribution(sp, ctx, light, toMeasure, unused);
}

// A DI candidate's resampling weight in the sample's measure: target / (M p_light), each light
// sample's MIS weight 1/M; with BSDF candidates target / (M p_light + p_bsdf), the balance
// heuristic over the pixel's M light samples and its one BSDF sample, whichever of them drew it
// (RIS with MIS over techniques, Talbot et al. 2005).
float candidateWeight(float target, LightSample seen, float toMeasure, float bsdfPdf) {
  float denominator = seen.pdf * toMeasure * float(RESTIR_FRAME.candidates);
  if (restirBsdfCandidates()) denominator += bsdfPdf * toMeasure;
  return target > 0.0 && denominator > 0.0 ? target / denominator : 0.0;
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

// Whether the stream keeps an input of this weight (DI's and GI's streams alike).
bool streamTakes(inout float weightSum, inout float total, float weight, float count, float u) {
  total += count;
  if (!(weight > 0.0)) return false;
  weightSum += weight;
  return !(u * weightSum >= weight);
}

// The kept sample's unbiased contribution weight W = weightSum / (normalisation x target).
float unbiasedWeight(float weightSum, float normalisation, float target) {
  return target > 0.0 && normalisation > 0.0 ? weightSum / (normalisation * target) : 0.0;
}

bool streamAdd(inout ReservoirStream s, LightRef light, float weight, float target, float count, float u) {
  if (!streamTakes(s.weightSum, s.count, weight, count, u)) return false;
  s.light = light;
  s.target = target;
  return true;
}

// The kept sample with its unbiased contribution weight W = weightSum / target (generalized
// RIS: the inputs' weights carry their MIS weights).
Reservoir streamReservoir(ReservoirStream s) {
  return Reservoir(s.light, unbiasedWeight(s.weightSum, 1.0, s.target), s.count, s.target);
}

// One pair's balance heuristic, `own` and `other` each a confidence times a target: the share
// of the pair that is own's (0 where neither could have produced the sample).
float pairwiseShare(float own, float other) { return own > 0.0 ? own / (own + other) : 0.0; }

// At the primary vertex, in place of the path tracer's light sample: RestirFrame's `candidates`
// light samples from the same sampler (sampleLight), resampled by their unshadowed target into
// the pixel's initial reservoir (RIS). With BSDF candidates the reservoir counts the vertex's
// BSDF sample as one candidate more: its ray, which the path traces anyway, adds what it finds
// once it is traced (restirBsdfCandidate).
void restirInitialCandidates(PathState path, ShadingPoint sp, BsdfContext ctx) {
  SampleStream stream = sampleStream(path.pixel, path.sampleIndex);
  ReservoirStream candidates = reservoirStream();
  uint count = RESTIR_FRAME.candidates;
  for (uint i = 0u; i < count; ++i) {
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
      float bsdfPdf;
      target = luminance(unshadowedContribution(sp, ctx, seen, toMeasure, bsdfPdf));
      weight = candidateWeight(target, drawn, toMeasure, bsdfPdf);
    }
    streamAdd(candidates, ref, weight, target, 1.0, sample1D(stream, dimension + 4u));
  }
  if (restirBsdfCandidates()) candidates.count += 1.0;
  Reservoirs(RESTIR_FRAME.initial).r[path.pixel] = streamReservoir(candidates);
}

// DI with BSDF candidates, at the primary vertex once its BSDF sample is taken: whether the
// initial reservoir takes it as a candidate, a reflection off a non-delta lobe (the directions
// a light sample can take too). The path marks such a direction by a negative density
// (path.bsdfPdf), which lasts through straight crossings of smooth thin walls (as a light
// sample's shadow ray crosses them) and ends where the path next scatters.
bool restirTakesBsdfCandidate(BsdfSample bsdf) {
  return RESTIR_WITH_DI && restirBsdfCandidates() && !bsdf.transmitted && bsdf.pdf > 0.0;
}

// Whether the path's ray is its primary vertex's BSDF candidate (restirTakesBsdfCandidate): what
// it finds emitting is the reservoir's (restirBsdfCandidate), not the path's.
bool restirBsdfCandidateRay(PathState path) { return RESTIR_WITH_DI && path.bsdfPdf < 0.0; }

// DI: the emitter the primary vertex's BSDF sample found (restirBsdfCandidateRay), streamed into
// the pixel's initial reservoir by the weight the light samples had (candidateWeight).
void restirBsdfCandidate(PathState path, LightRef ref) {
  RestirVertex vertex;
  LightSample seen;
  float toMeasure;
  if (!restirVertex(restirSurfaces(path.sampleIndex).s[path.pixel], vertex) ||
      !evaluateLightRef(ref, vertex.sp.position, seen, toMeasure))
    return;
  float bsdfPdf;
  float target = luminance(unshadowedContribution(vertex.sp, vertex.bsdf, seen, toMeasure, bsdfPdf));
  float weight = candidateWeight(target, seen, toMeasure, bsdfPdf);
  if (!(weight > 0.0)) return;
  Reservoirs initial = Reservoirs(RESTIR_FRAME.initial);
  Reservoir r = initial.r[path.pixel];
  // The stream as restirInitialCandidates left it: W = weightSum / target.
  ReservoirStream candidates = ReservoirStream(r.light, r.weight * r.target, r.count, r.target);
  SampleStream stream = sampleStream(path.pixel, path.sampleIndex);
  // Counted already (restirInitialCandidates): the sample adds its weight, not its count.
  streamAdd(candidates, ref, weight, target, 0.0, sample1D(stream, RESTIR_DIMENSION_BSDF_CANDIDATE));
  initial.r[path.pixel] = streamReservoir(candidates);
}

#endif
