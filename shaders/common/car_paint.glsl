// The car paint's procedural layers: in the spirit of Laine, Karras and Aila's four-layer car
// paint ("Megakernels Considered Harmful", 2013), two glossy flake layers whose normals and
// colours come from fractal value noise, under a clear coat (bsdf.glsl) and over a diffuse base
// whose colour turns from the face colour to the flop colour at grazing view. The noise's
// octaves are the cost knob: each octave of each of the eight noise channels hashes the eight
// corners of a lattice cell, so shading cost grows linearly with them while geometry stays fixed.
#ifndef PTBENCH_CAR_PAINT_GLSL
#define PTBENCH_CAR_PAINT_GLSL

// Flakes per scene unit: the first octave's lattice spacing.
const float CAR_PAINT_FLAKE_FREQUENCY = 24.0;
// How far the noise tilts a flake's normal from the surface's.
const float CAR_PAINT_FLAKE_TILT = 0.35;
// Shares of what the coat lets through: two flake layers, then the diffuse base.
const float CAR_PAINT_FLAKE_WEIGHT = 0.2;
const float CAR_PAINT_BASE_WEIGHT = 0.6;

struct CarPaintLayers {
  vec3 flakeNormal0;
  vec3 flakeNormal1;
  vec3 flakeColor0;
  vec3 flakeColor1;
  vec3 faceColor;  // the base at normal view
  vec3 flopColor;  // the base at grazing view
};

uint carPaintHash(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

float latticeValue(ivec3 cell, uint channel) {
  uint h = carPaintHash(uint(cell.x) * 0x8da6b343u ^ uint(cell.y) * 0xd8163841u ^ uint(cell.z) * 0xcb1ab31fu ^
                        channel * 0x165667b1u);
  return float(h >> 8) * (1.0 / 16777216.0);
}

// Trilinear value noise with a smoothstep fade, in [0, 1).
float valueNoise(vec3 p, uint channel) {
  vec3 floorP = floor(p);
  ivec3 cell = ivec3(floorP);
  vec3 f = p - floorP;
  f = f * f * (3.0 - 2.0 * f);
  float x00 = mix(latticeValue(cell, channel), latticeValue(cell + ivec3(1, 0, 0), channel), f.x);
  float x10 = mix(latticeValue(cell + ivec3(0, 1, 0), channel), latticeValue(cell + ivec3(1, 1, 0), channel), f.x);
  float x01 = mix(latticeValue(cell + ivec3(0, 0, 1), channel), latticeValue(cell + ivec3(1, 0, 1), channel), f.x);
  float x11 = mix(latticeValue(cell + ivec3(0, 1, 1), channel), latticeValue(cell + ivec3(1, 1, 1), channel), f.x);
  return mix(mix(x00, x10, f.y), mix(x01, x11, f.y), f.z);
}

// Octaves of noise at doubling frequency and halving amplitude, normalised to [0, 1); 0.5
// (flat) with no octaves.
float fractalNoise(vec3 p, uint octaves, uint channel) {
  float sum = 0.0;
  float amplitude = 1.0;
  float total = 0.0;
  for (uint octave = 0u; octave < octaves; ++octave) {
    sum += amplitude * valueNoise(p, channel + 8u * octave);
    total += amplitude;
    amplitude *= 0.5;
    p = p * 2.03 + vec3(17.1, 5.3, 11.7);
  }
  return total > 0.0 ? sum / total : 0.5;
}

vec3 tiltedNormal(vec3 n, vec3 p, uint octaves, uint firstChannel) {
  vec3 tilt = vec3(fractalNoise(p, octaves, firstChannel), fractalNoise(p, octaves, firstChannel + 1u),
                   fractalNoise(p, octaves, firstChannel + 2u)) *
                  2.0 -
              1.0;
  vec3 tilted = normalize(n + CAR_PAINT_FLAKE_TILT * tilt);
  return dot(tilted, n) > 0.1 ? tilted : n;
}

CarPaintLayers carPaintLayers(vec3 position, vec3 normal, vec3 faceColor, vec3 flopColor, uint octaves) {
  octaves = min(octaves, CAR_PAINT_MAX_OCTAVES);
  vec3 p = position * CAR_PAINT_FLAKE_FREQUENCY;
  CarPaintLayers layers;
  layers.flakeNormal0 = tiltedNormal(normal, p, octaves, 0u);
  layers.flakeNormal1 = tiltedNormal(normal, p, octaves, 3u);
  layers.flakeColor0 = min(faceColor * (0.6 + 0.8 * fractalNoise(p, octaves, 6u)), vec3(1.0));
  layers.flakeColor1 = mix(flopColor, vec3(0.9), fractalNoise(p, octaves, 7u));
  layers.faceColor = faceColor;
  layers.flopColor = flopColor;
  return layers;
}

vec3 carPaintBaseColor(CarPaintLayers layers, float cosView) {
  float grazing = 1.0 - clamp(cosView, 0.0, 1.0);
  return mix(layers.faceColor, layers.flopColor, grazing * grazing);
}

#endif
