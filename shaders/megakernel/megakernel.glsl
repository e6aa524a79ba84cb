#version 460
#extension GL_GOOGLE_include_directive : require
// Compiled as compute or, with RAY_GENERATION (the pipeline backend), as ray generation.
#ifdef RAY_GENERATION
#extension GL_EXT_ray_tracing : require
#endif
// The megakernel: one thread carries a path from the camera to its end (Laine et al. 2013's
// baseline). With MEGAKERNEL_REGEN, a thread whose path ended starts its pixel's next sample
// in the same loop, until the pixel's budget is spent. With MEGAKERNEL_SER (ray generation
// only), each hit is traced into a hit object and the threads reordered by it before shading.
#include "common/frame.glsl"
layout(push_constant, scalar) uniform PushBlock { FramePush push; };
#include "common/sampling.glsl"
#include "common/camera.glsl"
#include "common/surface.glsl"
#include "trace/trace.glsl"
#ifdef MEGAKERNEL_SER
#include "megakernel/ser.glsl"
#endif
#include "common/bsdf.glsl"
#include "common/lights.glsl"
#include "common/path.glsl"
#include "common/film.glsl"
#include "common/simt_counters.glsl"

// Traces one segment of the path and shades what it found; returns whether the path goes on.
bool advancePath(inout PathState path, inout PixelCounters counters) {
  counters.extensionRays += 1u;
  counters.pathSegments += 1u;
  SurfaceHit hit;
#ifdef MEGAKERNEL_SER
  bool found = traceClosestReordered(path.origin, path.direction, path.depth + 1u, hit);
#else
  bool found = traceClosest(path.origin, path.direction, hit);
#endif
#ifdef SIMT_COUNTERS
  countShadingPoint(path.depth, found ? materialClassOfHit(hit.instance, hit.geometry) : MATERIAL_CLASS_ESCAPED);
#endif
  if (!found) {
    pathEscaped(path);
    return false;
  }
  ShadowRay shadow;
  bool alive = pathHit(path, hit, shadow);
  if (shadow.requested) {
    counters.shadowRays += 1u;
    if (!traceAny(shadow.origin, shadow.direction, shadow.tMax)) path.radiance += shadow.contribution;
  }
  return alive;
}

void megakernel(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  uint pixelIndex = pixel.y * FRAME.width + pixel.x;
  PixelCounters counters = CounterArray(FRAME.counters).c[pixelIndex];
  FilmSample film = filmSample();
#ifdef MEGAKERNEL_REGEN
  uint started = 1u;
  PathState path = startPath(pixelIndex, push.sampleIndex);
  while (true) {
    if (advancePath(path, counters)) continue;
    filmAdd(film, path.radiance);
    if (started == FRAME.samplesPerPixel) break;
    path = startPath(pixelIndex, push.sampleIndex + started);
    started += 1u;
  }
  counters.paths += started;
#else
  PathState path = startPath(pixelIndex, push.sampleIndex);
  while (advancePath(path, counters)) {
  }
  filmAdd(film, path.radiance);
  counters.paths += 1u;
#endif
  // This invocation is the launch's only one at its pixel.
  filmCommitOwned(film, pixelIndex);
  CounterArray(FRAME.counters).c[pixelIndex] = counters;
}

#ifdef RAY_GENERATION
void main() { megakernel(gl_LaunchIDEXT.xy); }
#else
layout(local_size_x = MEGAKERNEL_TILE, local_size_y = MEGAKERNEL_TILE) in;
void main() { megakernel(gl_GlobalInvocationID.xy); }
#endif
