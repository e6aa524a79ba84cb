#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's spatial reuse: the pixel's reservoirs after temporal reuse and those of
// RESTIR_SPATIAL_NEIGHBOURS pixels drawn uniformly in a disk of RESTIR_SPATIAL_RADIUS pixels
// about it that see the same surface (DI and GI each draw their own; DI weighs them by pairwise
// MIS, GI by the balance heuristic). Its output is the reservoirs the pixel is shaded with and
// the next sample pass's history.
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

// DI: pairwise MIS (common/restir.glsl), the pixel's reservoir canonical, paired with each
// neighbour's that sees the same surface, in each pair counting for 1/K of its confidence.
void spatialReuseDi(uvec2 pixel, RestirSurface surface, RestirVertex vertex, SampleStream stream,
                    inout uint shadowRays) {
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  Reservoirs temporal = Reservoirs(RESTIR_FRAME.temporal);
  Reservoir center = temporal.r[index];
  float target = shadowedTarget(vertex, center.light, shadowRays);
  Neighbours neighbours = drawNeighbours(pixel, surface, surfaces, stream, RESTIR_DIMENSION_SPATIAL + 1u);
  uint taken = 0u;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) taken += neighbours.same[k] ? 1u : 0u;
  ReservoirStream combined = reservoirStream();
  float centerMis = taken == 0u ? 1.0 : 0.0;
  float shareCount = center.count / float(max(taken, 1u));
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    if (!neighbours.same[k]) continue;
    Reservoir neighbour = temporal.r[neighbours.index[k]];
    RestirVertex neighbourVertex;
    restirVertex(surfaces.s[neighbours.index[k]], neighbourVertex);
    float neighbourTarget = shadowedTarget(vertex, neighbour.light, shadowRays);
    float centerThere = shadowedTarget(neighbourVertex, center.light, shadowRays);
    centerMis += pairwiseShare(shareCount * target, neighbour.count * centerThere) / float(taken);
    float neighbourMis =
        pairwiseShare(neighbour.count * neighbour.target, shareCount * neighbourTarget) / float(taken);
    streamAdd(combined, neighbour.light, neighbourMis * neighbourTarget * neighbour.weight, neighbourTarget,
              neighbour.count, sample1D(stream, RESTIR_DIMENSION_SPATIAL + 3u + 3u * k));
  }
  streamAdd(combined, center.light, centerMis * target * center.weight, target, center.count,
            sample1D(stream, RESTIR_DIMENSION_SPATIAL));
  Reservoirs(RESTIR_FRAME.spatial).r[index] = streamReservoir(combined);
}

// GI: the pixel's reservoir and its neighbours' (DI's neighbourhood, drawn anew), each sample
// weighed by the generalised balance heuristic over the inputs, m_i(y) = M_i p_i(y) / sum_j M_j
// p_j(y), with each input's target at its own vertex (visibility included), rather than DI's
// 1/Z: a neighbour's sample whose point is much nearer this pixel's vertex than its own has a
// large reconnection Jacobian (the ratio of the targets' |cos phi| / d^2), which 1/Z lets into
// the estimate as a firefly and the balance heuristic cancels. Unbiased all the same: the
// weights sum to 1 wherever the pixel's own target is non-zero (the pixel's reservoir, an input,
// covers it), and are 0 where an input's target, and so its samples, are. It costs a target, a
// visibility ray, per input and sample: (1 + neighbours)^2.
void spatialReuseGi(uvec2 pixel, RestirSurface surface, RestirVertex vertex, SampleStream stream,
                    inout uint shadowRays) {
  const uint inputs = RESTIR_SPATIAL_NEIGHBOURS + 1u;
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  GiReservoirs temporal = GiReservoirs(RESTIR_FRAME.giTemporal);
  Neighbours neighbours = drawNeighbours(pixel, surface, surfaces, stream, RESTIR_DIMENSION_GI_SPATIAL + 1u);
  // Input 0 is the pixel's own reservoir, 1 + k neighbour k.
  RestirVertex vertices[inputs];
  GiReservoir reservoirs[inputs];
  bool taken[inputs];
  vertices[0] = vertex;
  reservoirs[0] = temporal.r[index];
  taken[0] = true;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    taken[k + 1u] = neighbours.same[k] && restirVertex(surfaces.s[neighbours.index[k]], vertices[k + 1u]);
    if (taken[k + 1u]) reservoirs[k + 1u] = temporal.r[neighbours.index[k]];
  }
  GiStream combined = giStream();
  for (uint i = 0u; i < inputs; ++i) {
    if (!taken[i]) continue;
    float u = sample1D(stream, i == 0u ? RESTIR_DIMENSION_GI_SPATIAL : RESTIR_DIMENSION_GI_SPATIAL + 3u * i);
    GiSample y = reservoirs[i].kept;
    float target = 0.0;
    float weight = 0.0;
    if (reservoirs[i].weight > 0.0) {
      target = giTarget(vertex, y, shadowRays);
      if (target > 0.0) {
        float own = 0.0;
        float sum = 0.0;
        for (uint j = 0u; j < inputs; ++j) {
          if (!taken[j]) continue;
          float there = j == 0u ? target : giTarget(vertices[j], y, shadowRays);
          sum += reservoirs[j].count * there;
          if (j == i) own = there;
        }
        weight = sum > 0.0 ? reservoirs[i].count * own / sum * target * reservoirs[i].weight : 0.0;
      }
    }
    giStreamAdd(combined, y, weight, target, reservoirs[i].count, u);
  }
  // The weights are normalised already: W = sum / target.
  GiReservoirs(RESTIR_FRAME.giSpatial).r[index] = giStreamReservoir(combined, 1.0);
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
