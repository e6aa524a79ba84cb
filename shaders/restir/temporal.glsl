#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's temporal reuse: the pixel's initial reservoir and the history's reservoir at the
// pixel that saw its primary vertex in the sample pass before (the previous frame's camera on
// a camera path, the same camera otherwise), unless that pixel saw another surface
// (disocclusion); the history's sample count capped at RESTIR_HISTORY_CAP times the pixel's.
#include "restir/reuse.glsl"

void temporalReuse(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint index = pixel.y * FRAME.width + pixel.x;
  Reservoirs reused = Reservoirs(RESTIR_FRAME.temporal);
  RestirSurface surface = restirSurfaces(push.sampleIndex).s[index];
  RestirVertex vertex;
  if (!restirVertex(surface, vertex)) {
    reused.r[index] = emptyReservoir();
    return;
  }
  SampleStream stream = sampleStream(index, push.sampleIndex);
  uint shadowRays = 0u;
  Reservoir current = Reservoirs(RESTIR_FRAME.initial).r[index];
  float target = shadowedTarget(vertex, current.light, shadowRays);
  // Pairwise MIS between the pixel's own reservoir (canonical) and the history's (common/restir.glsl).
  float currentMis = 1.0;
  Reservoir history = emptyReservoir();
  float historyTarget = 0.0;  // the history's sample's target here
  float historyMis = 0.0;

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
    uint previousIndex = previousPixel.y * FRAME.width + previousPixel.x;
    RestirSurface previous = restirPreviousSurfaces(push.sampleIndex).s[previousIndex];
    RestirVertex previousVertex;
    if (sameSurface(surface, previous, previousCamera.position) && restirVertex(previous, previousVertex)) {
      history = Reservoirs(RESTIR_FRAME.spatial).r[previousIndex];
      history.count = min(history.count, float(RESTIR_HISTORY_CAP) * current.count);
      historyTarget = shadowedTarget(vertex, history.light, shadowRays);
      float currentAtPrevious = shadowedTarget(previousVertex, current.light, shadowRays);
      currentMis = pairwiseShare(current.count * target, history.count * currentAtPrevious);
      historyMis = pairwiseShare(history.count * history.target, current.count * historyTarget);
    }
  }
  ReservoirStream combined = reservoirStream();
  streamAdd(combined, current.light, currentMis * target * current.weight, target, current.count,
            sample1D(stream, RESTIR_DIMENSION_TEMPORAL));
  streamAdd(combined, history.light, historyMis * historyTarget * history.weight, historyTarget, history.count,
            sample1D(stream, RESTIR_DIMENSION_TEMPORAL + 1u));
  reused.r[index] = streamReservoir(combined);
  countShadowRays(index, shadowRays);
}

RESTIR_PASS_MAIN(temporalReuse)
