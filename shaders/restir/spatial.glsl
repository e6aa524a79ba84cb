#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// ReSTIR's spatial reuse: the pixel's reservoir after temporal reuse and those of
// RESTIR_SPATIAL_NEIGHBOURS pixels drawn uniformly in a disk of RESTIR_SPATIAL_RADIUS pixels
// about it that see the same surface. Its output is the reservoir the pixel is shaded with and
// the next sample pass's history.
#include "restir/reuse.glsl"

void spatialReuse(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint index = pixel.y * FRAME.width + pixel.x;
  Reservoirs reused = Reservoirs(RESTIR_FRAME.spatial);
  RestirSurfaces surfaces = restirSurfaces(push.sampleIndex);
  RestirSurface surface = surfaces.s[index];
  RestirVertex vertex;
  if (!restirVertex(surface, vertex)) {
    reused.r[index] = emptyReservoir();
    return;
  }
  Reservoirs temporal = Reservoirs(RESTIR_FRAME.temporal);
  SampleStream stream = sampleStream(index, push.sampleIndex);
  uint shadowRays = 0u;
  Reservoir center = temporal.r[index];
  float target = shadowedTarget(vertex, center.light, shadowRays);

  // The neighbours that see the pixel's surface, chosen by geometry alone.
  uint neighbours[RESTIR_SPATIAL_NEIGHBOURS];
  uint taken = 0u;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    vec2 offset = concentricDisk(sample2D(stream, RESTIR_DIMENSION_SPATIAL + 1u + 3u * k)) * RESTIR_SPATIAL_RADIUS;
    ivec2 other = ivec2(pixel) + ivec2(round(offset));
    if (any(lessThan(other, ivec2(0))) || other.x >= int(FRAME.width) || other.y >= int(FRAME.height) ||
        all(equal(other, ivec2(pixel))))
      continue;
    uint neighbour = uint(other.y) * FRAME.width + uint(other.x);
    if (sameSurface(surface, surfaces.s[neighbour], FRAME.camera.position)) neighbours[taken++] = neighbour;
  }
  // Pairwise MIS (common/restir.glsl): the pixel's reservoir is canonical, paired with each
  // neighbour's, where it counts for 1/K of its confidence.
  ReservoirStream combined = reservoirStream();
  float centerMis = taken == 0u ? 1.0 : 0.0;
  float shareCount = center.count / float(max(taken, 1u));
  for (uint k = 0u; k < taken; ++k) {
    Reservoir neighbour = temporal.r[neighbours[k]];
    RestirVertex neighbourVertex;
    restirVertex(surfaces.s[neighbours[k]], neighbourVertex);
    float neighbourTarget = shadowedTarget(vertex, neighbour.light, shadowRays);
    float centerAtNeighbour = shadowedTarget(neighbourVertex, center.light, shadowRays);
    centerMis += pairwiseShare(shareCount * target, neighbour.count * centerAtNeighbour) / float(taken);
    float neighbourMis =
        pairwiseShare(neighbour.count * neighbour.target, shareCount * neighbourTarget) / float(taken);
    streamAdd(combined, neighbour.light, neighbourMis * neighbourTarget * neighbour.weight, neighbourTarget,
              neighbour.count, sample1D(stream, RESTIR_DIMENSION_SPATIAL + 3u + 3u * k));
  }
  streamAdd(combined, center.light, centerMis * target * center.weight, target, center.count,
            sample1D(stream, RESTIR_DIMENSION_SPATIAL));
  reused.r[index] = streamReservoir(combined);
  countShadowRays(index, shadowRays);
}

RESTIR_PASS_MAIN(spatialReuse)
