#version 460
#extension GL_GOOGLE_include_directive : require
// resolve: each pixel's traced rays of the batch into the film, 1 or 0 a sample: hit (primary,
// diffuse) or unblocked (shadow); a sample without a ray adds 0. The image is a coverage or ambient-occlusion-like
// mask, an honest picture of what the trace stage did. Timed apart from it, as accumulate.
#include "raycast/state.glsl"
#include "common/film.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint pixel = kernelIndex();
  if (pixel >= pixelCount()) return;
  FilmSample film = filmSample();
  for (uint s = 0u; s < push.samples; ++s) {
    uint ray = UintBuffer(RAYCAST_PARAMS.rayOfSlot).u[s * pixelCount() + pixel];
    bool counted = false;
    if (ray != NO_RAY)
      counted = push.rays == RAYS_SHADOW ? UintBuffer(RAYCAST_PARAMS.occluded).u[ray] == 0u
                                         : HitBuffer(RAYCAST_PARAMS.hits).h[ray].t >= 0.0;
    filmAdd(film, vec3(counted ? 1.0 : 0.0));
  }
  filmCommitOwned(film, pixel);
}
