#version 460
#extension GL_GOOGLE_include_directive : require
// film_resolve: adds what a megakernel launch left per pixel (FilmSample) to the film, one
// invocation per pixel, so the film's arithmetic costs the megakernel no registers.
#include "common/frame.glsl"
#include "common/film.glsl"
#include "common/launch.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint pixel = kernelIndex();
  if (pixel >= FRAME.width * FRAME.height) return;
  filmCommitOwned(FilmSamples(FRAME.filmSamples).s[pixel], pixel);
}
