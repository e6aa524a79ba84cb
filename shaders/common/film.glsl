// Float32 accumulation of radiance and its square (for per-pixel noise estimates).
#ifndef PTBENCH_FILM_GLSL
#define PTBENCH_FILM_GLSL

struct FilmSample {
  vec3 sum;
  vec3 squaredSum;
  float count;
};

FilmSample filmSample() { return FilmSample(vec3(0.0), vec3(0.0), 0.0); }

void filmAdd(inout FilmSample film, vec3 radiance) {
  // A NaN or infinite sample would poison the pixel for good; count it as black.
  if (any(isnan(radiance)) || any(isinf(radiance))) radiance = vec3(0.0);
  film.sum += radiance;
  film.squaredSum += radiance * radiance;
  film.count += 1.0;
}

// Each pixel belongs to one thread at a time, so plain read-modify-writes suffice.
void filmCommit(FilmSample film, uint pixelIndex) {
  Vec4Array sums = Vec4Array(FRAME.radianceSum);
  Vec4Array squares = Vec4Array(FRAME.radianceSquaredSum);
  sums.v[pixelIndex] += vec4(film.sum, film.count);
  squares.v[pixelIndex] += vec4(film.squaredSum, 0.0);
}

#endif
