// A frame's kernel profile as text, after pbrt-v4's: per stage its launches, total GPU time,
// share of the frame and mean per launch, the frame's overhead, then the work per step.
#pragma once
#include <string>

#include "core/integrators/integrator.h"
#include "core/integrators/kernel.h"

namespace ptbench {

std::string kernelProfile(const FrameResult& frame);

// The divergence counters (counters: simt) as text: utilisation and coherence, overall and per
// bounce.
std::string simtProfile(const SimtCounts& simt);

// The phase clocks (counters: clocks) as text: each phase's share of the clocked cycles, overall
// and per bounce or stage.
std::string clocksProfile(const ClockCounts& clocks);

// The integrator's kernels as text: per kernel its registers per thread and the warps per SM they
// allow, or why the device does not say, then every statistic the driver gives.
std::string kernelStatisticsProfile(const std::vector<KernelStatistics>& kernels);

}  // namespace ptbench
