#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's spatial reuse: the pixel's reservoirs after temporal reuse and those of RestirFrame's
// `neighbours` pixels drawn uniformly in a disk of its `radius` pixels about it that see the same
// surface (DI and GI each draw their own), combined by generalized RIS with defensive pairwise
// MIS weights (common/restir.glsl): the pixel's reservoir canonical, paired with each
// neighbour's taken, in each pair counting for 1/taken of its confidence. Each pair evaluates the
// neighbour's sample here and the pixel's sample at the neighbour, one visibility ray each, so
// the pass traces 2 x neighbours rays a pixel (the balance heuristic over all inputs would
// trace (1 + neighbours)^2); the pixel's own sample's target here comes with its reservoir, which
// temporal reuse resampled by that target at this vertex. Its output is the reservoirs the pixel
// is shaded with and the next sample pass's history.
#include "restir/reuse.glsl"

// DI's pairs.
void spatialReuseDi(uvec2 pixel, RestirSurface surface, RestirVertex vertex, SampleStream stream,
                    inout uint visibilityRays) {
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  Reservoirs temporal = Reservoirs(RESTIR_FRAME.temporal);
  Reservoir center = temporal.r[index];
  float target = center.target;
  const uint firstDimension = RESTIR_DIMENSION_SPATIAL + 1u;
  uint taken = spatialNeighboursTaken(pixel, surface, surfaces, stream, firstDimension);
  ReservoirStream combined = reservoirStream();
  // Defensive pairwise MIS: the pixel's own technique keeps 1 / (taken + 1) of every sample's
  // weight besides its pairs' shares, so a neighbour that resampled far better cannot leave the
  // pixel's own sample with almost none.
  float techniques = float(taken + 1u);
  float centerMis = 1.0 / techniques;
  float shareCount = center.count / float(max(taken, 1u));
  for (uint k = 0u; k < RESTIR_FRAME.neighbours; ++k) {
    uint other;
    if (!spatialNeighbour(pixel, surface, surfaces, stream, firstDimension, k, other)) continue;
    Reservoir neighbour = temporal.r[other];
    RestirVertex neighbourVertex;
    restirVertex(surfaces.s[other], neighbourVertex);
    float neighbourTarget = shadowedTarget(vertex, neighbour.light, visibilityRays);
    float centerThere = shadowedTarget(neighbourVertex, center.light, visibilityRays);
    centerMis += pairwiseShare(shareCount * target, neighbour.count * centerThere) / techniques;
    float neighbourMis =
        pairwiseShare(neighbour.count * neighbour.target, shareCount * neighbourTarget) / techniques;
    streamAdd(combined, neighbour.light, neighbourMis * neighbourTarget * neighbour.weight, neighbourTarget,
              neighbour.count, sample1D(stream, RESTIR_DIMENSION_SPATIAL + 3u + 3u * k));
  }
  streamAdd(combined, center.light, centerMis * target * center.weight, target, center.count,
            sample1D(stream, RESTIR_DIMENSION_SPATIAL));
  Reservoirs(RESTIR_FRAME.spatial).r[index] = streamReservoir(combined);
}

// GI's pairs, as DI's, with GI's target (in area measure at the sample point, so that the
// targets of two vertices compare, their ratio holding the reconnection's Jacobian). A
// neighbour's sample whose point is much nearer this pixel's vertex than its own has a large
// Jacobian; its pair's MIS weight, M_n p_n / (M_n p_n + M_c p_c), cancels it, where Bitterli et
// al.'s 1/Z would let it through as a firefly.
void spatialReuseGi(uvec2 pixel, RestirSurface surface, RestirVertex vertex, SampleStream stream,
                    inout uint visibilityRays) {
  uint index = pixel.y * FRAME.width + pixel.x;
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  GiReservoirs temporal = GiReservoirs(RESTIR_FRAME.giTemporal);
  GiReservoir center = temporal.r[index];
  float target = center.weight > 0.0 ? center.target : 0.0;
  const uint firstDimension = RESTIR_DIMENSION_GI_SPATIAL + 1u;
  uint taken = spatialNeighboursTaken(pixel, surface, surfaces, stream, firstDimension);
  GiStream combined = giStream();
  // Defensive pairwise MIS: the pixel's own technique keeps 1 / (taken + 1) of every sample's
  // weight besides its pairs' shares, so a neighbour that resampled far better cannot leave the
  // pixel's own sample with almost none.
  float techniques = float(taken + 1u);
  float centerMis = 1.0 / techniques;
  float shareCount = center.count / float(max(taken, 1u));
  for (uint k = 0u; k < RESTIR_FRAME.neighbours; ++k) {
    uint other;
    if (!spatialNeighbour(pixel, surface, surfaces, stream, firstDimension, k, other)) continue;
    GiReservoir neighbour = temporal.r[other];
    RestirVertex neighbourVertex;
    restirVertex(surfaces.s[other], neighbourVertex);
    float neighbourTarget = 0.0;
    if (neighbour.weight > 0.0 && giJacobianAccepted(neighbourVertex.sp.position, vertex.sp.position, neighbour.kept))
      neighbourTarget = giTarget(vertex, neighbour.kept, visibilityRays);
    float centerThere = target > 0.0 ? giTarget(neighbourVertex, center.kept, visibilityRays) : 0.0;
    centerMis += pairwiseShare(shareCount * target, neighbour.count * centerThere) / techniques;
    float neighbourMis =
        pairwiseShare(neighbour.count * neighbour.target, shareCount * neighbourTarget) / techniques;
    giStreamAdd(combined, neighbour.kept, neighbourMis * neighbourTarget * neighbour.weight, neighbourTarget,
                neighbour.count, sample1D(stream, RESTIR_DIMENSION_GI_SPATIAL + 3u + 3u * k));
  }
  giStreamAdd(combined, center.kept, centerMis * target * center.weight, target, center.count,
              sample1D(stream, RESTIR_DIMENSION_GI_SPATIAL));
  GiReservoirs(RESTIR_FRAME.giSpatial).r[index] = giStreamReservoir(combined);
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
  uint visibilityRays = 0u;
  if (RESTIR_WITH_DI) spatialReuseDi(pixel, surface, vertex, stream, visibilityRays);
  if (RESTIR_WITH_GI) spatialReuseGi(pixel, surface, vertex, stream, visibilityRays);
  countVisibilityRays(index, RESTIR_PASS_SPATIAL, visibilityRays);
}

RESTIR_PASS_MAIN(spatialReuse)
