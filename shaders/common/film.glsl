// The film (shared/render.h, FilmPixel): 64-bit fixed-point sums per pixel. Where several paths
// of one pixel may be in flight at once (the wavefront's pool schedule, or a depth pass of more
// paths than pixels) each sample is added with atomics; where one invocation is the only one at
// its pixel (a megakernel thread in its launch, the wavefront's shade and shadow when
// WavefrontParams::pixelsOwned, the raycast's resolve), with plain read-modify-writes.
#ifndef PTBENCH_FILM_GLSL
#define PTBENCH_FILM_GLSL

layout(buffer_reference, scalar) buffer FilmPixels { FilmPixel p[]; };

FilmSample filmSample() {
  FilmSample film;
  film.radianceSum = uint64_t[3](0ul, 0ul, 0ul);
  film.radianceSquaredSum = float[3](0.0, 0.0, 0.0);
  film.sampleCount = 0u;
  film.invalidSamples = 0u;
  film.pad = 0u;
  return film;
}

void filmAdd(inout FilmSample film, vec3 radiance) {
  film.sampleCount += 1u;
  // A NaN, infinite or negative sample would poison the pixel for good, and one of 10^12 or more
  // has no fixed-point value: it counts as black, and is counted. (A pixel's sum itself may
  // reach 1.1e12: radiance 10^6 at 10^6 samples.)
  if (any(isnan(radiance)) || any(isinf(radiance)) || any(lessThan(radiance, vec3(0.0))) ||
      any(greaterThanEqual(radiance, vec3(1e12)))) {
    film.invalidSamples += 1u;
    return;
  }
  for (uint c = 0u; c < 3u; ++c) {
    // Rounded to nearest, so the quantisation has no bias.
    film.radianceSum[c] += uint64_t(radiance[c] * FILM_FIXED_POINT_SCALE + 0.5);
    film.radianceSquaredSum[c] += radiance[c] * radiance[c];
  }
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

// For a pixel whose paths may be in flight at once (the wavefront).
void filmCommit(FilmSample film, uint pixelIndex) {
  FilmPixels pixels = FilmPixels(FRAME.film);
  for (uint c = 0u; c < 3u; ++c) {
    if (film.radianceSum[c] != 0ul) atomicAdd(pixels.p[pixelIndex].radianceSum[c], film.radianceSum[c]);
    if (film.radianceSquaredSum[c] != 0.0) atomicAddFloatBits(pixels, pixelIndex, c, film.radianceSquaredSum[c]);
  }
  atomicAdd(pixels.p[pixelIndex].sampleCount, film.sampleCount);
  if (film.invalidSamples != 0u) atomicAdd(pixels.p[pixelIndex].invalidSamples, film.invalidSamples);
}

// For a pixel no other invocation adds to meanwhile: plain read-modify-writes.
void filmCommitOwned(FilmSample film, uint pixelIndex) {
  FilmPixels pixels = FilmPixels(FRAME.film);
  for (uint c = 0u; c < 3u; ++c) {
    pixels.p[pixelIndex].radianceSum[c] += film.radianceSum[c];
    pixels.p[pixelIndex].radianceSquaredSumBits[c] =
        floatBitsToUint(uintBitsToFloat(pixels.p[pixelIndex].radianceSquaredSumBits[c]) + film.radianceSquaredSum[c]);
  }
  pixels.p[pixelIndex].sampleCount += film.sampleCount;
  pixels.p[pixelIndex].invalidSamples += film.invalidSamples;
}

#endif
