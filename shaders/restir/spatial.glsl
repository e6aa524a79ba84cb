#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's spatial reuse: the pixel's reservoirs after temporal reuse and those of
// RESTIR_SPATIAL_NEIGHBOURS pixels drawn uniformly in a disk of RESTIR_SPATIAL_RADIUS pixels
// about it that see the same surface (DI and GI each draw their own). Its output is the
// reservoirs the pixel is shaded with and the next sample pass's history.
#include "restir/reuse.glsl"

// The neighbours, drawn from the dimensions from `firstDimension` on (three each): their pixel
// indices, and whether each sees the same surface.
struct Neighbours {
  uint index[RESTIR_SPATIAL_NEIGHBOURS];
  bool same[RESTIR_SPATIAL_NEIGHBOURS];
};

Neighbours drawNeighbours(uvec2 pixel, RestirSurface surface, RestirSurfaces surfaces, SampleStream stream,
                          uint firstDimension) {
  Neighbours neighbours;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    neighbours.same[k] = false;
    neighbours.index[k] = 0u;
    vec2 offset = concentricDisk(sample2D(stream, firstDimension + 3u * k)) * RESTIR_SPATIAL_RADIUS;
    ivec2 other = ivec2(pixel) + ivec2(round(offset));
    if (any(lessThan(other, ivec2(0))) || other.x >= int(FRAME.width) || other.y >= int(FRAME.height) ||
        all(equal(other, ivec2(pixel))))
      continue;
    neighbours.index[k] = uint(other.y) * FRAME.width + uint(other.x);
    neighbours.same[k] = sameSurface(surface, surfaces.s[neighbours.index[k]], FRAME.camera.position);
  }
  return neighbours;
}

void spatialReuseDi(uvec2 pixel, RestirSurface surface, RestirVertex vertex, SampleStream stream,
                    inout uint shadowRays) {
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  Reservoirs temporal = Reservoirs(RESTIR_FRAME.temporal);
  ReservoirStream combined = reservoirStream();
  Reservoir center = temporal.r[index];
  float target = shadowedTarget(vertex, center.light, shadowRays);
  streamAdd(combined, center.light, target * center.weight * center.count, target, center.count,
            sample1D(stream, RESTIR_DIMENSION_SPATIAL));
  float normalisation = center.count;  // 1/Z, as in temporal.glsl

  Neighbours neighbours = drawNeighbours(pixel, surface, surfaces, stream, RESTIR_DIMENSION_SPATIAL + 1u);
  float counts[RESTIR_SPATIAL_NEIGHBOURS];
  int chosen = -1;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    counts[k] = 0.0;
    if (!neighbours.same[k]) continue;
    Reservoir neighbour = temporal.r[neighbours.index[k]];
    counts[k] = neighbour.count;
    float neighbourTarget = shadowedTarget(vertex, neighbour.light, shadowRays);
    if (streamAdd(combined, neighbour.light, neighbourTarget * neighbour.weight * neighbour.count, neighbourTarget,
                  neighbour.count, sample1D(stream, RESTIR_DIMENSION_SPATIAL + 3u + 3u * k)))
      chosen = int(k);
  }
  // Each neighbour's candidates count where its own target reaches the chosen gi.
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    if (counts[k] == 0.0) continue;
    RestirVertex neighbourVertex;
    if (int(k) == chosen ||
        (combined.weightSum > 0.0 && restirVertex(surfaces.s[neighbours.index[k]], neighbourVertex) &&
         shadowedTarget(neighbourVertex, combined.light, shadowRays) > 0.0))
      normalisation += counts[k];
  }
  Reservoirs(RESTIR_FRAME.spatial).r[index] = streamReservoir(combined, normalisation);
}

// GI: as DI's, with GI's samples and target (the reconnection's Jacobian in it, reuse.glsl).
void spatialReuseGi(uvec2 pixel, RestirSurface surface, RestirVertex vertex, SampleStream stream,
                    inout uint shadowRays) {
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  GiReservoirs temporal = GiReservoirs(RESTIR_FRAME.giTemporal);
  GiStream combined = giStream();
  GiReservoir center = temporal.r[index];
  float target = giTarget(vertex, center.kept, shadowRays);
  giStreamAdd(combined, center.kept, target * center.weight * center.count, target, center.count,
              sample1D(stream, RESTIR_DIMENSION_GI_SPATIAL));
  float normalisation = center.count;

  Neighbours neighbours = drawNeighbours(pixel, surface, surfaces, stream, RESTIR_DIMENSION_GI_SPATIAL + 1u);
  float counts[RESTIR_SPATIAL_NEIGHBOURS];
  int chosen = -1;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    counts[k] = 0.0;
    if (!neighbours.same[k]) continue;
    GiReservoir neighbour = temporal.r[neighbours.index[k]];
    counts[k] = neighbour.count;
    float neighbourTarget = giTarget(vertex, neighbour.kept, shadowRays);
    if (giStreamAdd(combined, neighbour.kept, neighbourTarget * neighbour.weight * neighbour.count,
                    neighbourTarget, neighbour.count, sample1D(stream, RESTIR_DIMENSION_GI_SPATIAL + 3u + 3u * k)))
      chosen = int(k);
  }
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    if (counts[k] == 0.0) continue;
    RestirVertex neighbourVertex;
    if (int(k) == chosen ||
        (combined.weightSum > 0.0 && restirVertex(surfaces.s[neighbours.index[k]], neighbourVertex) &&
         giTarget(neighbourVertex, combined.kept, shadowRays) > 0.0))
      normalisation += counts[k];
  }
  GiReservoirs(RESTIR_FRAME.giSpatial).r[index] = giStreamReservoir(combined, normalisation);
}

void spatialReuse(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurface surface = restirSurfaces(push.sampleIndex).s[index];
  RestirVertex vertex;
  if (!restirVertex(surface, vertex)) {
    if (RESTIR_WITH_DI) Reservoirs(RESTIR_FRAME.spatial).r[index] = emptyReservoir();
    if (RESTIR_WITH_GI) GiReservoirs(RESTIR_FRAME.giSpatial).r[index] = emptyGiReservoir(0.0);
    return;
  }
  SampleStream stream = sampleStream(index, push.sampleIndex);
  uint shadowRays = 0u;
  if (RESTIR_WITH_DI) spatialReuseDi(pixel, surface, vertex, stream, shadowRays);
  if (RESTIR_WITH_GI) spatialReuseGi(pixel, surface, vertex, stream, shadowRays);
  countShadowRays(index, shadowRays);
}

RESTIR_PASS_MAIN(spatialReuse)
