// Sample generation: every value is a pure function of (seed, pixel, sample index, dimension),
// never of the thread or kernel that asks (DESIGN.md, fairness rule 2).
#ifndef PTBENCH_SAMPLING_GLSL
#define PTBENCH_SAMPLING_GLSL

const float PI = 3.14159265358979;

uint pcgHash(uint v) {
  uint state = v * 747796405u + 2891336453u;
  uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

uint hashCombine(uint seed, uint value) { return pcgHash(seed ^ (value + 0x9e3779b9u + (seed << 6) + (seed >> 2))); }

// The top 24 bits as a float in [0, 1).
float unitFloat(uint bits) { return float(bits >> 8) * (1.0 / 16777216.0); }

const uint HALTON_DIMENSIONS = 32;
const uint PRIMES[HALTON_DIMENSIONS] = uint[](2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
                                              73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131);

float radicalInverse(uint base, uint index) {
  float inverseBase = 1.0 / float(base);
  float factor = inverseBase;
  float result = 0.0;
  while (index > 0u) {
    result += float(index % base) * factor;
    index /= base;
    factor *= inverseBase;
  }
  return min(result, 0.99999994);
}

// One (pixel, sample)'s stream: the hash chains' prefixes over (seed, pixel, sample), taken once
// where a path or vertex starts, so that a draw costs one hash of (key, dimension) rather than a
// chain of four. The values are those of the whole chains, bit for bit.
struct SampleStream {
  uint sampleKey;    // (seed, pixel, sample): PCG draws
  uint bitsKey;      // (seed', pixel, sample): 32-bit draws
  uint rotationKey;  // (seed'', pixel): Halton's per-pixel rotation
  uint sampleIndex;
  uint samplerKind;
};

SampleStream sampleStream(uint pixel, uint sampleIndex) {
  SampleStream s;
  s.sampleKey = hashCombine(hashCombine(pcgHash(FRAME.seed), pixel), sampleIndex);
  s.bitsKey = hashCombine(hashCombine(pcgHash(FRAME.seed ^ 0x2c1b3c6du), pixel), sampleIndex);
  s.rotationKey = hashCombine(pcgHash(FRAME.seed ^ 0x68bc21ebu), pixel);
  s.sampleIndex = sampleIndex;
  s.samplerKind = FRAME.samplerKind;
  return s;
}

// Halton with a per-pixel Cranley-Patterson rotation in the first dimensions; PCG beyond them
// and for the independent sampler.
float sample1D(SampleStream s, uint dimension) {
  if (s.samplerKind == SAMPLER_PCG || dimension >= HALTON_DIMENSIONS) return unitFloat(hashCombine(s.sampleKey, dimension));
  float rotation = unitFloat(hashCombine(s.rotationKey, dimension));
  return fract(radicalInverse(PRIMES[dimension], s.sampleIndex) + rotation);
}

vec2 sample2D(SampleStream s, uint dimension) { return vec2(sample1D(s, dimension), sample1D(s, dimension + 1u)); }

uint bounceDimension(uint depth, uint offset) { return DIMENSION_FIRST_BOUNCE + depth * DIMENSIONS_PER_BOUNCE + offset; }

// 32 random bits, for choices among more items than a float's 24 bits resolve.
uint sampleBits(SampleStream s, uint dimension) { return hashCombine(s.bitsKey, dimension); }

// Orthonormal basis around n (Duff et al. 2017).
void basis(vec3 n, out vec3 t, out vec3 b) {
  float s = n.z >= 0.0 ? 1.0 : -1.0;
  float a = -1.0 / (s + n.z);
  float c = n.x * n.y * a;
  t = vec3(1.0 + s * n.x * n.x * a, s * c, -s * n.x);
  b = vec3(c, s + n.y * n.y * a, -n.y);
}

vec3 cosineHemisphere(vec2 u) {
  float r = sqrt(u.x);
  float phi = 2.0 * PI * u.y;
  return vec3(r * cos(phi), r * sin(phi), sqrt(max(0.0, 1.0 - u.x)));
}

float powerHeuristic(float a, float b) {
  float a2 = a * a;
  float b2 = b * b;
  return a2 + b2 > 0.0 ? a2 / (a2 + b2) : 0.0;
}

float maxComponent(vec3 v) { return max(v.x, max(v.y, v.z)); }

#endif
