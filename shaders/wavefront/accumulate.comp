#version 460
#extension GL_GOOGLE_include_directive : require
// accumulate: every path that ended this iteration adds its radiance to its pixel, as the
// megakernel's thread does (common/film.glsl): with atomics, unless no other path of the pixel
// can be in flight (WavefrontParams::pixelsOwned).
#define WAVEFRONT
#include "wavefront/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

void main() {
  uint index;
  if (!claimItem(LAUNCH_ACCUMULATE, QUEUE_FINISHED, index)) return;
  FilmSample film = filmSample();
  filmAdd(film, Vec3Buffer(FINISHED_ARRAYS.radiance).v[index]);
  uint pixel = UintBuffer(FINISHED_ARRAYS.pixel).u[index];
  if (WAVEFRONT_PARAMS.pixelsOwned != 0u)
    filmCommitOwned(film, pixel);
  else
    filmCommit(film, pixel);
  if (!COMPACTION) setMembership(index, MEMBER_FREE, 1u << QUEUE_FINISHED);
}
