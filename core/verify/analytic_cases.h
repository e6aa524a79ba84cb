// Scenes whose images are known without rendering them, and the check of a rendered frame
// against its known image. `ptbench verify` and the GPU tests run the same cases.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/integrators/integrator.h"
#include "core/scene/scene_data.h"

namespace ptbench::verify {

// What the noisy cases (the furnaces and the emissive sphere) spend: more samples narrow their
// tolerances. The punctual-light cases are noise-free and always small.
struct CaseBudget {
  uint32_t resolution = 32;  // the furnaces' images are this square; the emissive sphere's half of it
  uint32_t samplesPerPixel = 256;
};
// For CPU implementations of Vulkan (lavapipe in CI): a sixteenth of the paths.
inline constexpr CaseBudget quickBudget{.resolution = 16, .samplesPerPixel = 64};

// How close a render's means must come to the known ones (docs/testing.md, "Checking a device"): within
// standardErrors of the mean's own noise, plus the floors. The noise is estimated from the
// pixels' sample variances, or from the scatter of the pixels about their answers: at one
// sample per pixel, and below 16 when that is larger; an estimate from few samples is itself
// uncertain, so the standard errors become Student's t at the same confidence, which widens
// as the degrees of freedom fall.
struct Tolerance {
  double standardErrors = 5;  // as a normal mean's: the confidence the t quantile keeps
  double relative = 2e-3;     // the sphere's tessellation and float arithmetic, a fraction of the answer
  double absolute = 1e-6;     // where the answer is zero
};

struct AnalyticCase {
  std::string name;   // "furnace, rough metal"
  std::string scene;  // what `render --scene` takes to render it, or a description of a scene built here
  SceneData sceneData;
  RenderSettings settings;
  std::vector<double> expected;  // radiance per pixel (every channel alike), rows top to bottom
  // Groups of pixels whose means are checked besides the whole image's, so that an error
  // confined to some viewing angles is not averaged away: the furnaces' environment, the
  // sphere's silhouette and bands of the viewing angle. regionOf[pixel] indexes regionNames;
  // both empty where the image is uniform.
  std::vector<std::string> regionNames;
  std::vector<uint32_t> regionOf;
  Tolerance tolerance;
};

// Every case, in the order verify runs and prints them.
std::vector<AnalyticCase> analyticCases(const CaseBudget& budget = {});

// The fewest samples per pixel that estimate every check's noise: 1 when each region holds at
// least two pixels (their scatter is the estimate), else 2.
uint32_t minimumSamplesPerPixel(const AnalyticCase& analyticCase);

// The mean of some pixels against its known value, in the channel furthest from it.
struct MeanCheck {
  std::string region;  // "image" for every pixel
  uint32_t pixels = 0;
  double expected = 0;
  double measured = 0;
  double standardError = 0;     // of measured
  double degreesOfFreedom = 0;  // of standardError
  double standardErrors = 0;    // how many of them the tolerance allows: t at the case's confidence
  double tolerance = 0;
  bool passed() const;
};

// A frame measured against its case.
struct CaseCheck {
  MeanCheck image;
  std::vector<MeanCheck> regions;
  uint64_t invalidSamples = 0;
  uint32_t regionsOff() const;
  bool passed() const { return image.passed() && regionsOff() == 0 && invalidSamples == 0; }
  // What failed, in words; empty when it passed.
  std::string problems() const;
};

CaseCheck checkFrame(const AnalyticCase& analyticCase, const FrameResult& frame);

}  // namespace ptbench::verify
