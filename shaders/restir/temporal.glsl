#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's temporal reuse: the pixel's initial reservoirs (DI's candidates, GI's sample) and the
// history's reservoirs at the pixel that saw its primary vertex in the sample pass before (the
// previous frame's camera on a camera path, the same camera otherwise), unless that pixel saw
// another surface (disocclusion); the history's sample count capped at RestirFrame's
// `historyCap` times the pixel's.
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
void temporalReuseDi(uint index, RestirVertex vertex, History history, SampleStream stream,
                     inout uint shadowRays) {
  Reservoir current = Reservoirs(RESTIR_FRAME.initial).r[index];
  float target = shadowedTarget(vertex, current.light, shadowRays);
  float currentMis = 1.0;
  Reservoir previous = emptyReservoir();
  float previousTarget = 0.0;  // the history's sample's target here
  float previousMis = 0.0;
  if (history.valid) {
    previous = Reservoirs(RESTIR_FRAME.spatial).r[history.index];
    previous.count = min(previous.count, RESTIR_FRAME.historyCap * current.count);
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
// the bounce is not a GI sample (its light is in the path's radiance). It pairs with the
// history's as DI's do (pairwise MIS, each sample's target at both vertices), not by Bitterli et
// al.'s 1/Z, which let a history sample with a large reconnection Jacobian through as a firefly.
void temporalReuseGi(uint index, RestirVertex vertex, History history, SampleStream stream,
                     inout uint visibilityRays) {
  GiStart start = GiStarts(RESTIR_FRAME.giStart).s[index];
  GiSample initial = GiSample(start.position, start.normal, RestirRadiance(RESTIR_FRAME.pathRadiance).v[index]);
  float target = 0.0;
  float weight = 0.0;  // W of the initial reservoir
  if (start.pdf > 0.0 && start.reusable != 0u) {
    target = giTarget(vertex, initial, visibilityRays);
    float areaPdf = start.pdf * giAreaFactor(vertex.sp.position, initial);
    weight = target > 0.0 && areaPdf > 0.0 ? 1.0 / areaPdf : 0.0;
  }
  const float count = 1.0;
  float currentMis = 1.0;
  GiReservoir previous = emptyGiReservoir(0.0);
  float previousTarget = 0.0;  // the history's sample's target here
  float previousMis = 0.0;
  if (history.valid) {
    previous = GiReservoirs(RESTIR_FRAME.giSpatial).r[history.index];
    previous.count = min(previous.count, RESTIR_FRAME.historyCap * count);
    if (previous.weight > 0.0 &&
        giJacobianAccepted(history.vertex.sp.position, vertex.sp.position, previous.kept))
      previousTarget = giTarget(vertex, previous.kept, visibilityRays);
    float currentThere = weight > 0.0 ? giTarget(history.vertex, initial, visibilityRays) : 0.0;
    currentMis = pairwiseShare(count * target, previous.count * currentThere);
    previousMis = pairwiseShare(previous.count * previous.target, count * previousTarget);
  }
  GiStream combined = giStream();
  giStreamAdd(combined, initial, currentMis * target * weight, target, count,
              sample1D(stream, RESTIR_DIMENSION_GI_TEMPORAL));
  giStreamAdd(combined, previous.kept, previousMis * previousTarget * previous.weight, previousTarget,
              previous.count, sample1D(stream, RESTIR_DIMENSION_GI_TEMPORAL + 1u));
  GiReservoirs(RESTIR_FRAME.giTemporal).r[index] = giStreamReservoir(combined);
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
  uint visibilityRays = 0u;
  if (RESTIR_WITH_DI) temporalReuseDi(index, vertex, history, stream, visibilityRays);
  if (RESTIR_WITH_GI) temporalReuseGi(index, vertex, history, stream, visibilityRays);
  countVisibilityRays(index, RESTIR_PASS_TEMPORAL, visibilityRays);
}

RESTIR_PASS_MAIN(temporalReuse)
