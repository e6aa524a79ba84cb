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
#include "common/bsdf.glsl"
#include "trace/trace.glsl"
#ifdef MEGAKERNEL_SER
#include "megakernel/ser.glsl"
#endif
#include "common/lights.glsl"
#include "common/path.glsl"
#include "common/film.glsl"
#include "common/simt_counters.glsl"

// Traces one segment of the path and shades what it found; returns whether the path goes on.
// With counters: clocks, each phase is named where it starts (common/phase_clocks.glsl).
bool advancePath(inout PathState path, inout PathCounts counters) {
  counters.extensionRays += 1u;
  counters.pathSegments += 1u;
  SurfaceHit hit;
  CLOCK_PHASE(CLOCK_PHASE_TRAVERSAL);
#ifdef MEGAKERNEL_SER
  bool found = traceClosestReordered(path.origin, path.direction, path.depth + 1u, hit);
#else
  bool found = traceClosest(path.origin, path.direction, hit);
#endif
  CLOCK_PHASE(CLOCK_PHASE_REST);
#ifdef SIMT_COUNTERS
  countShadingPoint(path.depth, found ? materialClassOfHit(hit.instance, hit.geometry) : MATERIAL_CLASS_ESCAPED);
#endif
  if (!found) {
    pathEscaped(path);
    CLOCK_PHASE(CLOCK_PHASE_REST);
    return false;
  }
  ShadowRay shadow;
  bool alive = pathHit(path, hit, shadow);
  CLOCK_PHASE(CLOCK_PHASE_REST);
  if (shadow.requested) {
    counters.shadowRays += 1u;
    CLOCK_PHASE(CLOCK_PHASE_TRAVERSAL);
    vec3 transmittance = traceShadow(shadow.origin, shadow.direction, shadow.tMax);
    CLOCK_PHASE(CLOCK_PHASE_REST);
    if (maxComponent(transmittance) > 0.0) path.radiance += shadow.contribution * transmittance;
  }
  return alive;
}

// With counters: clocks, a bounce's bin takes the cycles from the end of the segment before it to
// the end of its own: the camera ray's generation (in regen, the previous path's end too) in the
// first bounce's, the film's commit at the kernel's end in the last bounce's. A lane whose path
// has ended waits for the rest of its subgroup outside every phase: the clock restarts after the
// loop (its idleness is what the SIMT counters measure).
void megakernel(uvec2 pixel) {
  if (pixel.x >= FRAME.width || pixel.y >= FRAME.height) return;
  CLOCKS_START();
  uint pixelIndex = pixel.y * FRAME.width + pixel.x;
  PathCounts counters = CounterArray(FRAME.counters).c[pixelIndex].path;
  FilmSample film = filmSample();
#ifdef MEGAKERNEL_REGEN
  uint started = 1u;
  PathState path = startPath(pixelIndex, push.sampleIndex);
  uint segment = 0u;
  while (true) {
    segment = path.depth;
    bool alive = advancePath(path, counters);
    CLOCKS_COMMIT(segment);
    if (alive) continue;
    filmAdd(film, path.radiance);
    if (started == FRAME.samplesPerPixel) break;
    path = startPath(pixelIndex, push.sampleIndex + started);
    started += 1u;
  }
  CLOCKS_START();
  counters.paths += started;
#else
  PathState path = startPath(pixelIndex, push.sampleIndex);
  if (RESTIR != RESTIR_OFF) restirNoSurface(pixelIndex, push.sampleIndex);
  uint segment = 0u;
  while (true) {
    segment = path.depth;
    bool alive = advancePath(path, counters);
    CLOCKS_COMMIT(segment);
    if (!alive) break;
  }
  CLOCKS_START();
  counters.paths += 1u;
  // With ReSTIR the sample is whole once the final shading adds the primary vertex's direct light.
  if (RESTIR != RESTIR_OFF)
    RestirRadiance(RESTIR_FRAME.pathRadiance).v[pixelIndex] = path.radiance;
  else
    filmAdd(film, path.radiance);
#endif
  // This invocation is the launch's only one at its pixel.
  if (RESTIR == RESTIR_OFF) filmCommitOwned(film, pixelIndex);
  CounterArray(FRAME.counters).c[pixelIndex].path = counters;
  CLOCKS_COMMIT(segment);
}

#ifdef RAY_GENERATION
void main() { megakernel(gl_LaunchIDEXT.xy); }
#else
layout(local_size_x = MEGAKERNEL_TILE, local_size_y = MEGAKERNEL_TILE) in;
void main() { megakernel(gl_GlobalInvocationID.xy); }
#endif
