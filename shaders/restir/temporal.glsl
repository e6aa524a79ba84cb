#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's temporal reuse: the pixel's initial reservoirs (DI's candidates, GI's sample) and the
// history's reservoirs at the pixel that saw its primary vertex in the sample pass before (the
// previous frame's camera on a camera path, the same camera otherwise), unless that pixel saw
// another surface (disocclusion); the history's sample count capped at RESTIR_HISTORY_CAP times
// the pixel's.
#include "restir/reuse.glsl"

// The history's pixel, where it saw the same surface as this pixel's vertex.
struct History {
  bool valid;
  uint index;
  RestirVertex vertex;
};

History findHistory(RestirSurface surface) {
  History history;
  history.valid = false;
  bool hasHistory = push.sampleIndex > 0u || RESTIR_FRAME.historyValid != 0u;
  // (Not a ?: of the two: glslang 12 stores the two blocks' struct types into one variable
  // without converting them, which SPIR-V validation rejects.)
  CameraParams previousCamera;
  if (push.sampleIndex > 0u)
    previousCamera = FRAME.camera;
  else
    previousCamera = RESTIR_FRAME.previousCamera;
  uvec2 previousPixel;
  if (hasHistory && projectToPixel(previousCamera, surface.position, previousPixel)) {
    history.index = previousPixel.y * FRAME.width + previousPixel.x;
    RestirSurface previous = restirPreviousSurfaces(push.sampleIndex).s[history.index];
    history.valid = sameSurface(surface, previous, previousCamera.position) && restirVertex(previous, history.vertex);
  }
  return history;
}

// DI: pairwise MIS between the pixel's own reservoir (canonical) and the history's
// (common/restir.glsl), each sample's target evaluated at both vertices.
void temporalReuseDi(uint index, RestirVertex vertex, History history, SampleStream stream, inout uint shadowRays) {
  Reservoir current = Reservoirs(RESTIR_FRAME.initial).r[index];
  float target = shadowedTarget(vertex, current.light, shadowRays);
  float currentMis = 1.0;
  Reservoir previous = emptyReservoir();
  float previousTarget = 0.0;  // the history's sample's target here
  float previousMis = 0.0;
  if (history.valid) {
    previous = Reservoirs(RESTIR_FRAME.spatial).r[history.index];
    previous.count = min(previous.count, float(RESTIR_HISTORY_CAP) * current.count);
    previousTarget = shadowedTarget(vertex, previous.light, shadowRays);
    float currentThere = shadowedTarget(history.vertex, current.light, shadowRays);
    currentMis = pairwiseShare(current.count * target, previous.count * currentThere);
    previousMis = pairwiseShare(previous.count * previous.target, current.count * previousTarget);
  }
  ReservoirStream combined = reservoirStream();
  streamAdd(combined, current.light, currentMis * target * current.weight, target, current.count,
            sample1D(stream, RESTIR_DIMENSION_TEMPORAL));
  streamAdd(combined, previous.light, previousMis * previousTarget * previous.weight, previousTarget, previous.count,
            sample1D(stream, RESTIR_DIMENSION_TEMPORAL + 1u));
  Reservoirs(RESTIR_FRAME.temporal).r[index] = streamReservoir(combined);
}

// GI: the pixel's initial reservoir is its path's GI sample, one candidate drawn by the BSDF at
// the primary vertex (W = 1 / its density in area measure at the sample point), or none where
// the bounce is not a GI sample (its light is in the path's radiance).
void temporalReuseGi(uint index, RestirVertex vertex, History history, SampleStream stream, inout uint shadowRays) {
  GiStream combined = giStream();
  GiStart start = GiStarts(RESTIR_FRAME.giStart).s[index];
  GiSample initial = GiSample(start.position, start.normal, RestirRadiance(RESTIR_FRAME.pathRadiance).v[index]);
  float target = 0.0;
  float areaPdf = 0.0;
  if (start.pdf > 0.0 && start.reusable != 0u) {
    target = giTarget(vertex, initial, shadowRays);
    areaPdf = start.pdf * giAreaFactor(vertex.sp.position, initial);
  }
  giStreamAdd(combined, initial, areaPdf > 0.0 ? target / areaPdf : 0.0, target, 1.0,
              sample1D(stream, RESTIR_DIMENSION_GI_TEMPORAL));
  float normalisation = 1.0;  // as DI's
  if (history.valid) {
    GiReservoir reservoir = GiReservoirs(RESTIR_FRAME.giSpatial).r[history.index];
    reservoir.count = min(reservoir.count, float(RESTIR_HISTORY_CAP));
    float historyTarget = giTarget(vertex, reservoir.kept, shadowRays);
    bool tookHistory = giStreamAdd(combined, reservoir.kept, historyTarget * reservoir.weight * reservoir.count,
                                   historyTarget, reservoir.count, sample1D(stream, RESTIR_DIMENSION_GI_TEMPORAL + 1u));
    if (tookHistory || (combined.weightSum > 0.0 && giTarget(history.vertex, combined.kept, shadowRays) > 0.0))
      normalisation += reservoir.count;
  }
  GiReservoirs(RESTIR_FRAME.giTemporal).r[index] = giStreamReservoir(combined, normalisation);
}

void temporalReuse(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurface surface = restirSurfaces(push.sampleIndex).s[index];
  RestirVertex vertex;
  if (!restirVertex(surface, vertex)) {
    if (RESTIR_WITH_DI) Reservoirs(RESTIR_FRAME.temporal).r[index] = emptyReservoir();
    if (RESTIR_WITH_GI) GiReservoirs(RESTIR_FRAME.giTemporal).r[index] = emptyGiReservoir(0.0);
    return;
  }
  SampleStream stream = sampleStream(index, push.sampleIndex);
  History history = findHistory(surface);
  uint shadowRays = 0u;
  if (RESTIR_WITH_DI) temporalReuseDi(index, vertex, history, stream, shadowRays);
  if (RESTIR_WITH_GI) temporalReuseGi(index, vertex, history, stream, shadowRays);
  countShadowRays(index, shadowRays);
}

RESTIR_PASS_MAIN(temporalReuse)
