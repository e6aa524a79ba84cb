// The film: samples summed per pixel with atomics (shared/render.h, FilmPixel), so the
// megakernel's one thread per pixel and the wavefront's many paths of one pixel in flight
// write it the same way.
#ifndef PTBENCH_FILM_GLSL
#define PTBENCH_FILM_GLSL

layout(buffer_reference, scalar) buffer FilmPixels { FilmPixel p[]; };

// A thread's samples of one pixel, summed before they reach memory.
struct FilmSample {
  u64vec3 sum;  // fixed point, FILM_FIXED_POINT_SCALE
  vec3 squaredSum;
  uint count;
  uint invalid;
};

FilmSample filmSample() { return FilmSample(u64vec3(0ul), vec3(0.0), 0u, 0u); }

void filmAdd(inout FilmSample film, vec3 radiance) {
  film.count += 1u;
  // A NaN or infinite sample would poison the pixel for good: it counts as black, and is counted.
  if (any(isnan(radiance)) || any(isinf(radiance)) || any(lessThan(radiance, vec3(0.0)))) {
    film.invalid += 1u;
    return;
  }
  // Rounded to nearest, so the quantisation has no bias.
  film.sum += u64vec3(radiance * FILM_FIXED_POINT_SCALE + 0.5);
  film.squaredSum += radiance * radiance;
}

// Adds a float by compare-and-swap: portable where float atomics are an optional feature.
void atomicAddFloatBits(FilmPixels film, uint pixelIndex, uint channel, float value) {
  uint expected = film.p[pixelIndex].radianceSquaredSumBits[channel];
  while (true) {
    uint found = atomicCompSwap(film.p[pixelIndex].radianceSquaredSumBits[channel], expected,
                                floatBitsToUint(uintBitsToFloat(expected) + value));
    if (found == expected) break;
    expected = found;
  }
}

void filmCommit(FilmSample film, uint pixelIndex) {
  FilmPixels pixels = FilmPixels(FRAME.film);
  for (uint c = 0u; c < 3u; ++c) {
    if (film.sum[c] != 0ul) atomicAdd(pixels.p[pixelIndex].radianceSum[c], film.sum[c]);
    if (film.squaredSum[c] != 0.0) atomicAddFloatBits(pixels, pixelIndex, c, film.squaredSum[c]);
  }
  atomicAdd(pixels.p[pixelIndex].sampleCount, film.count);
  if (film.invalid != 0u) atomicAdd(pixels.p[pixelIndex].invalidSamples, film.invalid);
}

#endif
