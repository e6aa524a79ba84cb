// How far a run's image is from a reference (a scene's `reference`), and what that costs in
// time: "faster per frame, but as good per second?"
#pragma once
#include <optional>

#include "core/experiment/image_output.h"

namespace ptbench {

struct ConvergenceMetrics {
  double rmse = 0;    // over every pixel and channel
  double relmse = 0;  // mean of (x - r)^2 / (r^2 + 0.01): relative, and bounded where r is dark
  // Mean HDR-FLIP (flip.h): how visible the difference is, in [0, 1]; none where not asked for
  // (a camera path's frames between config.flip_every's).
  std::optional<double> flip;
};

enum class WithFlip { No, Yes };

// The metrics of `image` against `reference`, which must be of its size (else nothing). FLIP
// costs about 0.6 s of one core per exposure of a 1920x1080 frame; relMSE, milliseconds.
std::optional<ConvergenceMetrics> convergenceMetrics(const LinearImage& image, const LinearImage& reference,
                                                     WithFlip withFlip = WithFlip::Yes);

// relMSE falls as 1/samples for an unbiased estimator: the seconds a run whose frame takes
// `frameSeconds` and reaches `relmse` would need to reach `target` (more frames of the same
// cost, or fewer), and its efficiency 1 / (relMSE x seconds).
double secondsToReach(double relmse, double frameSeconds, double target);
double efficiency(double relmse, double frameSeconds);

}  // namespace ptbench
