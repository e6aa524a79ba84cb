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
  ReservoirStream combined = reservoirStream();
  Reservoir center = temporal.r[index];
  float target = shadowedTarget(vertex, center.light, shadowRays);
  streamAdd(combined, center.light, target * center.weight * center.count, target, center.count,
            sample1D(stream, RESTIR_DIMENSION_SPATIAL));
  float normalisation = center.count;  // 1/Z, as in temporal.glsl

  uint neighbours[RESTIR_SPATIAL_NEIGHBOURS];
  float counts[RESTIR_SPATIAL_NEIGHBOURS];
  int chosen = -1;
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    counts[k] = 0.0;
    uint dimension = RESTIR_DIMENSION_SPATIAL + 1u + 3u * k;
    vec2 offset = concentricDisk(sample2D(stream, dimension)) * RESTIR_SPATIAL_RADIUS;
    ivec2 other = ivec2(pixel) + ivec2(round(offset));
    if (any(lessThan(other, ivec2(0))) || other.x >= int(FRAME.width) || other.y >= int(FRAME.height) ||
        all(equal(other, ivec2(pixel))))
      continue;
    neighbours[k] = uint(other.y) * FRAME.width + uint(other.x);
    if (!sameSurface(surface, surfaces.s[neighbours[k]], FRAME.camera.position)) continue;
    Reservoir neighbour = temporal.r[neighbours[k]];
    counts[k] = neighbour.count;
    float neighbourTarget = shadowedTarget(vertex, neighbour.light, shadowRays);
    if (streamAdd(combined, neighbour.light, neighbourTarget * neighbour.weight * neighbour.count, neighbourTarget,
                  neighbour.count, sample1D(stream, dimension + 2u)))
      chosen = int(k);
  }
  // Each neighbour's candidates count where its own target reaches the chosen sample.
  for (uint k = 0u; k < RESTIR_SPATIAL_NEIGHBOURS; ++k) {
    if (counts[k] == 0.0) continue;
    RestirVertex neighbourVertex;
    if (int(k) == chosen ||
        (combined.weightSum > 0.0 && restirVertex(surfaces.s[neighbours[k]], neighbourVertex) &&
         shadowedTarget(neighbourVertex, combined.light, shadowRays) > 0.0))
      normalisation += counts[k];
  }
  reused.r[index] = streamReservoir(combined, normalisation);
  countShadowRays(index, shadowRays);
}

RESTIR_PASS_MAIN(spatialReuse)
