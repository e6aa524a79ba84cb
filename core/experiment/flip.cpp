#include "core/experiment/flip.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <thread>

#include "core/scene/math.h"

namespace ptbench {
namespace {

constexpr float pi = std::numbers::pi_v<float>;

// The paper's constants: colour differences are raised to colourExponent, and those below
// colourCutoff of the largest possible one take [0, colourCutoffMapsTo], the rest the remainder,
// so that small differences spread over most of the range. Edges and points are detected at
// the scale of featureWidthDegrees; their difference, raised to featureExponent, sharpens the
// colour difference where features differ.
constexpr float colourExponent = 0.7f;
constexpr float colourCutoff = 0.4f;
constexpr float colourCutoffMapsTo = 0.95f;
constexpr float featureWidthDegrees = 0.082f;
constexpr float featureExponent = 0.5f;  // a square root, as flipOfLinear takes it

// The contrast sensitivity of each opponent channel as a sum of two Gaussians in visual degrees,
// a1 sqrt(pi / b1) exp(-pi^2 x^2 / b1) + (the same of a2, b2).
struct ContrastSensitivity {
  float a1, b1, a2, b2;
};
constexpr ContrastSensitivity achromatic{1.0f, 0.0047f, 0.0f, 1e-5f};
constexpr ContrastSensitivity redGreen{1.0f, 0.0053f, 0.0f, 1e-5f};
constexpr ContrastSensitivity blueYellow{34.1f, 0.04f, 13.5f, 0.025f};

using Rgb = std::array<float, 3>;
using Matrix = std::array<Rgb, 3>;

// sRGB primaries, D65 white.
constexpr Matrix linearRgbToXyz{{{10135552.0f / 24577794.0f, 8788810.0f / 24577794.0f, 4435075.0f / 24577794.0f},
                                 {2613072.0f / 12288897.0f, 8788810.0f / 12288897.0f, 887015.0f / 12288897.0f},
                                 {1425312.0f / 73733382.0f, 8788810.0f / 73733382.0f, 70074185.0f / 73733382.0f}}};
constexpr Matrix xyzToLinearRgb{{{3.241003275f, -1.537398934f, -0.498615861f},
                                 {-0.969224334f, 1.875930071f, 0.041554224f},
                                 {0.055639423f, -0.204011202f, 1.057148933f}}};

constexpr Rgb times(const Matrix& m, const Rgb& v) {
  return {m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2], m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
          m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2]};
}

constexpr Rgb whiteXyz = times(linearRgbToXyz, {1.0f, 1.0f, 1.0f});

float srgbToLinear(float encoded) {
  return encoded <= 0.04045f ? encoded / 12.92f : std::pow((encoded + 0.055f) / 1.055f, 2.4f);
}

// YCxCz (Johnson and Fairchild): CIELAB without its cube root, so that filtering it is linear.
Rgb linearRgbToYcxcz(const Rgb& rgb) {
  const Rgb xyz = times(linearRgbToXyz, rgb);
  const float x = xyz[0] / whiteXyz[0], y = xyz[1] / whiteXyz[1], z = xyz[2] / whiteXyz[2];
  return {116.0f * y - 16.0f, 500.0f * (x - y), 200.0f * (y - z)};
}

Rgb ycxczToLinearRgb(const Rgb& ycxcz) {
  const float y = (ycxcz[0] + 16.0f) / 116.0f;
  const Rgb xyz{(y + ycxcz[1] / 500.0f) * whiteXyz[0], y * whiteXyz[1], (y - ycxcz[2] / 200.0f) * whiteXyz[2]};
  return times(xyzToLinearRgb, xyz);
}

// The cube root of t > 0 to within a float's rounding: an estimate from the exponent's bits, then
// Newton's steps. std::cbrt is a library call per value and took a fifth of FLIP's time.
float cubeRoot(float t) {
  uint32_t bits = std::bit_cast<uint32_t>(t);
  bits = bits / 3 + 709921077u;  // a third of the exponent, rebiased: within a few percent
  float r = std::bit_cast<float>(bits);
  for (int step = 0; step < 3; ++step) r -= (r - t / (r * r)) / 3.0f;
  return r;
}

float labCurve(float t) {
  constexpr float delta = 6.0f / 29.0f;
  return t > delta * delta * delta ? cubeRoot(t) : t / (3.0f * delta * delta) + 4.0f / 29.0f;
}

// CIELAB with Hunt's adjustment: chroma scaled by lightness, since dark colours look less colourful.
Rgb linearRgbToHuntLab(const Rgb& rgb) {
  const Rgb xyz = times(linearRgbToXyz, rgb);
  const float fx = labCurve(xyz[0] / whiteXyz[0]), fy = labCurve(xyz[1] / whiteXyz[1]),
              fz = labCurve(xyz[2] / whiteXyz[2]);
  const float lightness = 116.0f * fy - 16.0f;
  return {lightness, 0.01f * lightness * 500.0f * (fx - fy), 0.01f * lightness * 200.0f * (fy - fz)};
}

// std::hypot guards against overflow that values this small never reach, at several times the cost.
float length(float a, float b) {
  return std::sqrt(a * a + b * b);
}

// HyAB (Abasi et al.): city-block in lightness, Euclidean in chroma, which suits large differences.
float hyab(const Rgb& a, const Rgb& b) {
  return std::abs(a[0] - b[0]) + length(a[1] - b[1], a[2] - b[2]);
}

// The largest colour difference between two colours of the sRGB gamut, green against blue,
// raised as every difference is.
float largestColourDifference() {
  return std::pow(hyab(linearRgbToHuntLab({0.0f, 1.0f, 0.0f}), linearRgbToHuntLab({0.0f, 0.0f, 1.0f})), colourExponent);
}

struct Planes {
  uint32_t width = 0;
  uint32_t height = 0;
  std::array<std::vector<float>, 3> channel;

  Planes(uint32_t w, uint32_t h) : width(w), height(h) {
    for (auto& c : channel) c.resize(size_t(w) * h);
  }
  Rgb at(size_t i) const { return {channel[0][i], channel[1][i], channel[2][i]}; }
  void set(size_t i, const Rgb& v) {
    for (int c = 0; c < 3; ++c) channel[c][i] = v[c];
  }
};

// A symmetric kernel of an odd number of taps.
using Kernel = std::vector<float>;

size_t radiusOf(const Kernel& kernel) {
  return kernel.size() / 2;
}

// Every row of `plane` convolved with each of `kernels` (all of one radius), edges clamped.
// Each output pixel sums its taps in order, one tap at a time over the whole row, so that the
// inner loop runs along contiguous memory and vectorises.
std::vector<std::vector<float>> filterRows(const std::vector<float>& plane, uint32_t width, uint32_t height,
                                           std::span<const Kernel* const> kernels) {
  const size_t radius = radiusOf(*kernels[0]);
  std::vector<std::vector<float>> out(kernels.size(), std::vector<float>(plane.size(), 0.0f));
  std::vector<float> padded(width + 2 * radius);
  for (uint32_t y = 0; y < height; ++y) {
    const float* row = plane.data() + size_t(y) * width;
    std::fill(padded.begin(), padded.begin() + radius, row[0]);
    std::copy(row, row + width, padded.begin() + radius);
    std::fill(padded.end() - radius, padded.end(), row[width - 1]);
    for (size_t k = 0; k < kernels.size(); ++k) {
      float* target = out[k].data() + size_t(y) * width;
      for (size_t tap = 0; tap < kernels[k]->size(); ++tap) {
        const float weight = (*kernels[k])[tap];
        const float* source = padded.data() + tap;
        for (uint32_t x = 0; x < width; ++x) target[x] += weight * source[x];
      }
    }
  }
  return out;
}

// Row `y` of `plane` convolved down its columns with `kernel`, edges clamped, into `out`.
void filterColumnsAt(const std::vector<float>& plane, uint32_t width, uint32_t height, uint32_t y, const Kernel& kernel,
                     float* out) {
  const long radius = long(radiusOf(kernel));
  const size_t taps = kernel.size();
  std::vector<const float*> rows(taps);
  for (size_t tap = 0; tap < taps; ++tap)
    rows[tap] = plane.data() + size_t(std::clamp(long(y) + long(tap) - radius, 0L, long(height) - 1)) * width;
  // A block of the row is summed in registers over every tap before it is stored: one pass over
  // the output rather than one a tap.
  constexpr uint32_t block = 16;
  uint32_t x = 0;
  for (; x + block <= width; x += block) {
    std::array<float, block> sum{};
    for (size_t tap = 0; tap < taps; ++tap)
      for (uint32_t i = 0; i < block; ++i) sum[i] += kernel[tap] * rows[tap][x + i];
    std::copy(sum.begin(), sum.end(), out + x);
  }
  for (; x < width; ++x) {
    float sum = 0;
    for (size_t tap = 0; tap < taps; ++tap) sum += kernel[tap] * rows[tap][x];
    out[x] = sum;
  }
}

long spatialFilterRadius(float pixelsPerDegree) {
  float widest = 0;
  for (const ContrastSensitivity& s : {achromatic, redGreen, blueYellow}) widest = std::max({widest, s.b1, s.b2});
  // Three standard deviations of the widest Gaussian, sqrt(b / (2 pi^2)) degrees.
  return long(std::ceil(3.0f * std::sqrt(widest / (2.0f * pi * pi)) * pixelsPerDegree));
}

// exp(-pi^2 x^2 / b) at each tap, x in degrees, times `scale`.
Kernel gaussianKernel(long radius, float pixelsPerDegree, float scale, float b) {
  Kernel kernel(2 * radius + 1);
  for (long i = -radius; i <= radius; ++i) {
    const float degrees = float(i) / pixelsPerDegree;
    kernel[i + radius] = scale * std::exp(-pi * pi * degrees * degrees / b);
  }
  return kernel;
}

void normalise(Kernel& kernel, float sum) {
  for (float& w : kernel) w /= sum;
}

float sumOf(const Kernel& kernel) {
  float sum = 0;
  for (float w : kernel) sum += w;
  return sum;
}

struct SpatialKernels {
  Kernel achromatic, redGreen;
  // Blue-yellow's sensitivity is a sum of two Gaussians, which is not separable as a whole: each
  // is a product of two 1-D kernels, filtered on its own and the two results added.
  Kernel blueYellowFirst, blueYellowSecond;
};

SpatialKernels spatialKernels(float pixelsPerDegree) {
  const long radius = spatialFilterRadius(pixelsPerDegree);
  auto single = [&](const ContrastSensitivity& s) {
    Kernel kernel = gaussianKernel(radius, pixelsPerDegree, s.a1 * std::sqrt(pi / s.b1), s.b1);
    normalise(kernel, sumOf(kernel));
    return kernel;
  };
  // Square roots of the 2-D Gaussians' weights, so that the product of a kernel with itself
  // across rows and columns is the Gaussian; scaled together so that the sum of both products
  // over the plane is 1.
  Kernel first =
      gaussianKernel(radius, pixelsPerDegree, std::sqrt(blueYellow.a1 * std::sqrt(pi / blueYellow.b1)), blueYellow.b1);
  Kernel second =
      gaussianKernel(radius, pixelsPerDegree, std::sqrt(blueYellow.a2 * std::sqrt(pi / blueYellow.b2)), blueYellow.b2);
  const float firstSum = sumOf(first), secondSum = sumOf(second);
  const float both = std::sqrt(firstSum * firstSum + secondSum * secondSum);
  normalise(first, both);
  normalise(second, both);
  return {single(achromatic), single(redGreen), std::move(first), std::move(second)};
}

// A Gaussian and its first and second derivatives, each lobe normalised on its own (the
// Gaussian to 1, the positive and negative lobes of the derivatives to 1 and -1), so that a
// uniform image has neither edges nor points.
struct FeatureKernels {
  Kernel gaussian, first, second;
};

FeatureKernels featureKernels(float pixelsPerDegree) {
  const float sigma = 0.5f * featureWidthDegrees * pixelsPerDegree;  // pixels
  const long radius = long(std::ceil(3.0f * sigma));
  FeatureKernels k{Kernel(2 * radius + 1), Kernel(2 * radius + 1), Kernel(2 * radius + 1)};
  float gaussianSum = 0;
  std::array<float, 2> firstLobes{}, secondLobes{};  // positive, negative
  for (long i = -radius; i <= radius; ++i) {
    const float x = float(i);
    const float g = std::exp(-x * x / (2.0f * sigma * sigma));
    const float first = -x * g;
    const float second = (x * x / (sigma * sigma) - 1.0f) * g;
    k.gaussian[i + radius] = g;
    k.first[i + radius] = first;
    k.second[i + radius] = second;
    gaussianSum += g;
    (first > 0 ? firstLobes[0] : firstLobes[1]) += std::abs(first);
    (second > 0 ? secondLobes[0] : secondLobes[1]) += std::abs(second);
  }
  normalise(k.gaussian, gaussianSum);
  for (float& w : k.first) w /= w > 0 ? firstLobes[0] : firstLobes[1];
  for (float& w : k.second) w /= w > 0 ? secondLobes[0] : secondLobes[1];
  return k;
}

// Per pixel, the colour difference of the two images (YCxCz) as the eye filters them, in [0, 1].
std::vector<float> colourDifference(const Planes& test, const Planes& reference, const SpatialKernels& kernels) {
  const uint32_t width = test.width, height = test.height;
  const float largest = largestColourDifference();
  const float cutoff = colourCutoff * largest;
  const std::array<const Kernel*, 2> single{&kernels.achromatic, &kernels.redGreen};
  const std::array<const Kernel*, 2> pair{&kernels.blueYellowFirst, &kernels.blueYellowSecond};
  struct Rows {
    std::vector<float> y, cx, czFirst, czSecond;
  };
  auto filterImageRows = [&](const Planes& image) {
    auto yRows = filterRows(image.channel[0], width, height, std::span(single.data(), 1));
    auto cxRows = filterRows(image.channel[1], width, height, std::span(single.data() + 1, 1));
    auto czRows = filterRows(image.channel[2], width, height, pair);
    return Rows{std::move(yRows[0]), std::move(cxRows[0]), std::move(czRows[0]), std::move(czRows[1])};
  };
  const std::array<Rows, 2> rows{filterImageRows(test), filterImageRows(reference)};

  std::vector<float> difference(size_t(width) * height);
  std::array<std::array<std::vector<float>, 4>, 2> filtered;
  for (auto& image : filtered)
    for (auto& row : image) row.resize(width);
  for (uint32_t y = 0; y < height; ++y) {
    for (int i = 0; i < 2; ++i) {
      filterColumnsAt(rows[i].y, width, height, y, kernels.achromatic, filtered[i][0].data());
      filterColumnsAt(rows[i].cx, width, height, y, kernels.redGreen, filtered[i][1].data());
      filterColumnsAt(rows[i].czFirst, width, height, y, kernels.blueYellowFirst, filtered[i][2].data());
      filterColumnsAt(rows[i].czSecond, width, height, y, kernels.blueYellowSecond, filtered[i][3].data());
    }
    for (uint32_t x = 0; x < width; ++x) {
      std::array<Rgb, 2> lab;
      for (int i = 0; i < 2; ++i) {
        Rgb rgb = ycxczToLinearRgb({filtered[i][0][x], filtered[i][1][x], filtered[i][2][x] + filtered[i][3][x]});
        // Filtering can leave the gamut; the difference is of colours a display can show.
        for (float& c : rgb) c = std::clamp(c, 0.0f, 1.0f);
        lab[i] = linearRgbToHuntLab(rgb);
      }
      const float raised = std::pow(hyab(lab[0], lab[1]), colourExponent);
      difference[size_t(y) * width + x] =
          raised < cutoff ? raised * colourCutoffMapsTo / cutoff
                          : colourCutoffMapsTo + (raised - cutoff) / (largest - cutoff) * (1.0f - colourCutoffMapsTo);
    }
  }
  return difference;
}

// FLIP per pixel of two linear images in [0, 1]: the colour difference, raised to 1 less the
// difference of the images' edges and points (of their luminance), so that a difference in
// features shows more.
std::vector<float> flipOfLinear(const Planes& testLinear, const Planes& referenceLinear, float pixelsPerDegree) {
  const uint32_t width = testLinear.width, height = testLinear.height;
  const size_t pixels = size_t(width) * height;
  std::array<Planes, 2> ycxcz{Planes(width, height), Planes(width, height)};
  for (size_t i = 0; i < pixels; ++i) {
    ycxcz[0].set(i, linearRgbToYcxcz(testLinear.at(i)));
    ycxcz[1].set(i, linearRgbToYcxcz(referenceLinear.at(i)));
  }
  std::vector<float> error = colourDifference(ycxcz[0], ycxcz[1], spatialKernels(pixelsPerDegree));

  const FeatureKernels kernels = featureKernels(pixelsPerDegree);
  const std::array<const Kernel*, 3> rowKernels{&kernels.first, &kernels.second, &kernels.gaussian};
  std::array<std::vector<std::vector<float>>, 2> rows;
  for (int i = 0; i < 2; ++i) {
    // Features are found in luminance relative to white, in [0, 1].
    std::vector<float>& luminance = ycxcz[i].channel[0];
    for (float& y : luminance) y = (y + 16.0f) / 116.0f;
    rows[i] = filterRows(luminance, width, height, rowKernels);
  }
  // Per image: d/dx, d2/dx2, d/dy, d2/dy2 of the Gaussian-smoothed luminance.
  std::array<std::array<std::vector<float>, 4>, 2> derivatives;
  for (auto& image : derivatives)
    for (auto& row : image) row.resize(width);
  const float inverseSqrt2 = 1.0f / std::sqrt(2.0f);
  for (uint32_t y = 0; y < height; ++y) {
    for (int i = 0; i < 2; ++i) {
      filterColumnsAt(rows[i][0], width, height, y, kernels.gaussian, derivatives[i][0].data());
      filterColumnsAt(rows[i][1], width, height, y, kernels.gaussian, derivatives[i][1].data());
      filterColumnsAt(rows[i][2], width, height, y, kernels.first, derivatives[i][2].data());
      filterColumnsAt(rows[i][2], width, height, y, kernels.second, derivatives[i][3].data());
    }
    for (uint32_t x = 0; x < width; ++x) {
      std::array<float, 2> edge, point;
      for (int i = 0; i < 2; ++i) {
        edge[i] = length(derivatives[i][0][x], derivatives[i][2][x]);
        point[i] = length(derivatives[i][1][x], derivatives[i][3][x]);
      }
      const float feature =
          std::sqrt(inverseSqrt2 * std::max(std::abs(edge[0] - edge[1]), std::abs(point[0] - point[1])));
      float& e = error[size_t(y) * width + x];
      e = std::pow(e, 1.0f - feature);
    }
  }
  return error;
}

FlipResult resultOf(std::vector<float> error, FlipErrorMap keep) {
  double sum = 0;
  for (float e : error) sum += e;
  FlipResult result{.mean = sum / double(error.size())};
  if (keep == FlipErrorMap::Keep) result.errorMap = std::move(error);
  return result;
}

// Each tone mapper as a ratio of quadratics per channel, (c0 x^2 + c1 x + c2) / (c3 x^2 + c4 x + c5),
// as the exposures are chosen; Reinhard's divides by luminance rather than by each channel.
using ToneCurve = std::array<float, 6>;
ToneCurve toneCurve(ToneMapper toneMapper) {
  switch (toneMapper) {
    case ToneMapper::Aces:  // Narkowicz's fit, with its 0.6 pre-exposure taken out
      return {0.6f * 0.6f * 2.51f, 0.6f * 0.03f, 0.0f, 0.6f * 0.6f * 2.43f, 0.6f * 0.59f, 0.14f};
    case ToneMapper::Hable:
      return {0.231683f, 0.013791f, 0.0f, 0.18f, 0.3f, 0.018f};
    case ToneMapper::Reinhard:
      break;
  }
  return {0.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f};
}

Rgb toneMap(const Rgb& rgb, ToneMapper toneMapper, const ToneCurve& c) {
  if (toneMapper == ToneMapper::Reinhard) {
    const float scale = 1.0f / (1.0f + luminance({rgb[0], rgb[1], rgb[2]}));
    return {rgb[0] * scale, rgb[1] * scale, rgb[2] * scale};
  }
  Rgb out;
  for (int i = 0; i < 3; ++i) {
    const float x = rgb[i];
    out[i] = (c[0] * x * x + c[1] * x + c[2]) / (c[3] * x * x + c[4] * x + c[5]);
  }
  return out;
}

bool sameSize(uint32_t width, uint32_t height, size_t testValues, const auto& reference) {
  return width == reference.width && height == reference.height && testValues == reference.rgb.size() &&
         testValues == size_t(width) * height * 3 && testValues > 0;
}

}  // namespace

float pixelsPerDegree(float distanceMetres, float monitorWidthMetres, float horizontalPixels) {
  return distanceMetres * (horizontalPixels / monitorWidthMetres) * (pi / 180.0f);
}

std::optional<FlipResult> ldrFlip(const SrgbImage& test, const SrgbImage& reference, float pixelsPerDegree,
                                  FlipErrorMap errorMap) {
  if (!sameSize(test.width, test.height, test.rgb.size(), reference)) return std::nullopt;
  std::array<Planes, 2> linear{Planes(test.width, test.height), Planes(test.width, test.height)};
  const std::array<const SrgbImage*, 2> images{&test, &reference};
  for (int i = 0; i < 2; ++i)
    for (size_t p = 0; p < size_t(test.width) * test.height; ++p)
      for (int c = 0; c < 3; ++c)
        linear[i].channel[c][p] = std::clamp(srgbToLinear(images[i]->rgb[3 * p + c]), 0.0f, 1.0f);
  return resultOf(flipOfLinear(linear[0], linear[1], pixelsPerDegree), errorMap);
}

ExposureRange automaticExposures(const LinearImage& reference, ToneMapper toneMapper) {
  // The radiance the tone mapper takes to 0.85: the larger root of
  // (c0 - t c3) x^2 + (c1 - t c4) x + (c2 - t c5) = 0.
  const ToneCurve c = toneCurve(toneMapper);
  constexpr float target = 0.85f;
  const float a = c[0] - target * c[3], b = c[1] - target * c[4], k = c[2] - target * c[5];
  float brightRadiance;
  if (a == 0.0f) {
    brightRadiance = -k / b;
  } else {
    const float middle = -0.5f * b / a;
    brightRadiance = middle + std::sqrt(middle * middle - k / a);
  }

  std::vector<float> luminances(reference.rgb.size() / 3);
  for (size_t p = 0; p < luminances.size(); ++p)
    luminances[p] = luminance(Vec3{reference.rgb[3 * p], reference.rgb[3 * p + 1], reference.rgb[3 * p + 2]});
  const float brightest = luminances.empty() ? 0.0f : *std::max_element(luminances.begin(), luminances.end());
  if (!(brightest > 0.0f)) return {.start = 0.0f, .stop = 1.0f, .count = 2};
  auto median = [](std::vector<float>& values) {
    const auto middle = values.begin() + values.size() / 2;
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
  };
  float typical = median(luminances);
  if (!(typical > 0.0f)) {
    std::erase_if(luminances, [](float l) { return !(l > 0.0f); });
    typical = median(luminances);
  }
  const float start = std::log2(brightRadiance / brightest);
  const float stop = std::log2(brightRadiance / typical);
  return {.start = start, .stop = stop, .count = int(std::max(2.0f, std::ceil(stop - start)))};
}

std::optional<FlipResult> hdrFlip(const LinearImage& test, const LinearImage& reference,
                                  const HdrFlipSettings& settings) {
  if (!sameSize(test.width, test.height, test.rgb.size(), reference)) return std::nullopt;
  const ExposureRange range = settings.exposures.value_or(automaticExposures(reference, settings.toneMapper));
  const int count = std::max(range.count, 2);
  const ToneCurve curve = toneCurve(settings.toneMapper);
  const size_t pixels = size_t(test.width) * test.height;
  const std::array<const LinearImage*, 2> images{&test, &reference};
  // The exposures are independent: each thread takes every threads-th one and keeps its own
  // largest error per pixel (a 1920x1080 exposure costs about 0.6 s of one core).
  const int threads = int(std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, unsigned(count)));
  std::vector<std::vector<float>> worstOfThread(threads, std::vector<float>(pixels, 0.0f));
  const auto exposeFrom = [&](int first) {
    std::vector<float>& worst = worstOfThread[first];
    std::array<Planes, 2> exposed{Planes(test.width, test.height), Planes(test.width, test.height)};
    for (int e = first; e < count; e += threads) {
      const float exposure = range.start + float(e) * (range.stop - range.start) / float(count - 1);
      const float scale = std::exp2(exposure);
      for (int i = 0; i < 2; ++i)
        for (size_t p = 0; p < pixels; ++p) {
          const float* rgb = images[i]->rgb.data() + 3 * p;
          Rgb mapped = toneMap({rgb[0] * scale, rgb[1] * scale, rgb[2] * scale}, settings.toneMapper, curve);
          for (float& v : mapped) v = std::clamp(v, 0.0f, 1.0f);
          exposed[i].set(p, mapped);
        }
      const std::vector<float> error = flipOfLinear(exposed[0], exposed[1], settings.pixelsPerDegree);
      for (size_t p = 0; p < pixels; ++p) worst[p] = std::max(worst[p], error[p]);
    }
  };
  {
    std::vector<std::jthread> workers;
    for (int first = 1; first < threads; ++first) workers.emplace_back(exposeFrom, first);
    exposeFrom(0);
  }
  std::vector<float>& worst = worstOfThread[0];
  for (int t = 1; t < threads; ++t)
    for (size_t p = 0; p < pixels; ++p) worst[p] = std::max(worst[p], worstOfThread[t][p]);
  return resultOf(std::move(worst), settings.errorMap);
}

}  // namespace ptbench
