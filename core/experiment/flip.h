// FLIP: how different a test image looks from its reference to a viewer who flips between
// them, per pixel in [0, 1] (0: no visible difference). LDR-FLIP for display-encoded images
// (Andersson et al. 2020, "FLIP: A Difference Evaluator for Alternating Images"), HDR-FLIP for
// linear radiance (Andersson et al. 2021, "Visualizing Errors in Rendered High Dynamic Range
// Images"): the largest LDR-FLIP over a range of exposures, each tone mapped. The constants and
// the defaults are NVlabs/flip's, whose published means the tests reproduce.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/linear_image.h"

namespace ptbench {

// Pixels per degree of visual angle for a viewer `distanceMetres` from a monitor
// `monitorWidthMetres` wide showing `horizontalPixels` across it.
float pixelsPerDegree(float distanceMetres, float monitorWidthMetres, float horizontalPixels);
// NVlabs/flip's viewer: 0.7 m from a 0.7 m wide monitor of 3840 pixels, about 67.02.
inline const float defaultPixelsPerDegree = pixelsPerDegree(0.7f, 0.7f, 3840.0f);

enum class FlipErrorMap { Discard, Keep };

struct FlipResult {
  double mean = 0;              // over every pixel
  std::vector<float> errorMap;  // per pixel, rows top to bottom, where it was kept
};

// `test` against `reference`, which must be of its size and not empty (else nothing).
std::optional<FlipResult> ldrFlip(const SrgbImage& test, const SrgbImage& reference,
                                  float pixelsPerDegree = defaultPixelsPerDegree,
                                  FlipErrorMap errorMap = FlipErrorMap::Discard);

enum class ToneMapper { Aces, Hable, Reinhard };

// Exposures (log2 of the factor radiance is scaled by) from `start` to `stop`, `count` of them
// evenly spaced, ends included.
struct ExposureRange {
  float start = 0;
  float stop = 0;
  int count = 2;
};

// NVlabs/flip's choice from the reference: from the exposure at which the tone mapper takes
// the brightest pixel's luminance to 0.85, to the one at which it takes the median's there; one
// exposure per stop, and at least two. Where the median is black (a render mostly of empty
// background) the median of the pixels that are not stands in for it, and a black reference
// gets the single stop [0, 1].
ExposureRange automaticExposures(const LinearImage& reference, ToneMapper toneMapper = ToneMapper::Aces);

struct HdrFlipSettings {
  float pixelsPerDegree = defaultPixelsPerDegree;
  ToneMapper toneMapper = ToneMapper::Aces;
  std::optional<ExposureRange> exposures;  // automaticExposures of the reference where none
  FlipErrorMap errorMap = FlipErrorMap::Discard;
};

// Linear `test` against linear `reference`, which must be of its size and not empty (else nothing).
std::optional<FlipResult> hdrFlip(const LinearImage& test, const LinearImage& reference,
                                  const HdrFlipSettings& settings = {});

}  // namespace ptbench
