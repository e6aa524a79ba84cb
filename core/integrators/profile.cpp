#include "core/integrators/profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ptbench {

std::string kernelProfile(const FrameResult& frame) {
  struct Total {
    uint32_t launches = 0;
    double ns = 0;
  };
  std::vector<Stage> order;
  std::map<Stage, Total> totals;
  double stagesNs = 0;
  for (const auto& timing : frame.stages) {
    if (!totals.count(timing.stage)) order.push_back(timing.stage);
    totals[timing.stage].launches += timing.launches;
    totals[timing.stage].ns += timing.gpuNs;
    stagesNs += timing.gpuNs;
  }
  const double frameNs = frame.gpuMs * 1e6;
  auto share = [&](double ns) { return frameNs > 0 ? 100.0 * ns / frameNs : 0.0; };
  std::string out =
      fmt::format("  {:<12} {:>9} {:>12} {:>8} {:>14}\n", "stage", "launches", "total ms", "frame", "ms per launch");
  for (Stage stage : order) {
    const Total& total = totals[stage];
    out += fmt::format("  {:<12} {:>9} {:>12.3f} {:>7.1f}% {:>14.4f}\n", stageName(stage), total.launches,
                       total.ns * 1e-6, share(total.ns), total.launches ? total.ns * 1e-6 / total.launches : 0.0);
  }
  if (!frame.stages.empty())
    out += fmt::format("  {:<12} {:>9} {:>12.3f} {:>7.1f}%   (frame - stages: barriers, gaps, waits)\n", "overhead", "",
                       (frameNs - stagesNs) * 1e-6, share(frameNs - stagesNs));
  if (!frame.steps.empty()) {
    out += fmt::format("  {:<12} {:>14} {:>14} {:>14}\n", "step", "live paths", "shadow rays", "paths started");
    for (size_t step = 0; step < frame.steps.size(); ++step)
      out += fmt::format("  {:<12} {:>14} {:>14} {:>14}\n", step, frame.steps[step].extensionRays,
                         frame.steps[step].shadowRays, frame.steps[step].pathsStarted);
  }
  return out;
}

std::string simtProfile(const SimtCounts& simt) {
  const SimtBounceCounts total = simt.total();
  std::string out = fmt::format(
      "  simt         at {}, subgroups of {}: utilisation {:.3f} (active lanes / lanes), coherence {:.3f} "
      "(material classes per subgroup)\n",
      stageName(simt.stage), simt.subgroupSize, total.utilisation(simt.subgroupSize), total.coherence());
  out += fmt::format("  {:<12} {:>14} {:>12} {:>10}\n", "bounce", "subgroups", "utilisation", "coherence");
  for (size_t b = 0; b < simt.bounces.size(); ++b)
    out += fmt::format("  {:<12} {:>14.1f} {:>12.3f} {:>10.3f}\n", b + 1, simt.bounces[b].subgroups,
                       simt.bounces[b].utilisation(simt.subgroupSize), simt.bounces[b].coherence());
  return out;
}

std::string clocksProfile(const ClockCounts& clocks) {
  auto shares = [](const std::string& label, const PhaseCycles& cycles) {
    std::string line = fmt::format("  {:<12}", label);
    for (size_t phase = 0; phase < phaseNames.size(); ++phase) line += fmt::format(" {:>10.3f}", cycles.share(phase));
    return line + "\n";
  };
  std::string out = "  clocks       shares of the clocked lane-cycles (subgroup clocks)\n";
  out += fmt::format("  {:<12}", clocks.stages.empty() ? "bounce" : "stage");
  for (std::string_view phase : phaseNames) out += fmt::format(" {:>10}", phase);
  out += "\n" + shares("all", clocks.total());
  for (const auto& [stage, cycles] : clocks.stages) out += shares(std::string(stageName(stage)), cycles);
  for (size_t b = 0; b < clocks.bounces.size(); ++b) out += shares(std::to_string(b + 1), clocks.bounces[b]);
  return out;
}

std::string kernelStatisticsProfile(const std::vector<KernelStatistics>& kernels) {
  // Where the device says nothing of any kernel, one line says why.
  const bool silent = std::all_of(kernels.begin(), kernels.end(), [&](const KernelStatistics& kernel) {
    return kernel.executables.empty() && !kernel.occupancy.occupancy &&
           kernel.occupancy.reason == kernels[0].occupancy.reason;
  });
  if (!kernels.empty() && silent)
    return fmt::format("  {:<12} registers and occupancy unknown: {}\n", "kernels", kernels[0].occupancy.reason);
  std::string out;
  for (const auto& kernel : kernels) {
    const auto& occupancy = kernel.occupancy.occupancy;
    out += fmt::format("  {:<12} {} ({}): ", "kernel", stageName(kernel.stage), kernel.shader);
    out += occupancy ? fmt::format("{} registers/thread, {} of {} warps/SM ({:.0f}%, limited by {})\n",
                                   occupancy->registersPerThread, occupancy->warpsPerSm, occupancy->maxWarpsPerSm,
                                   100.0 * occupancy->fraction(), occupancy->limitedBy)
                     : "occupancy unknown: " + kernel.occupancy.reason + "\n";
    for (const auto& executable : kernel.executables) {
      std::string statistics;
      for (const auto& statistic : executable.statistics)
        statistics += fmt::format("{}{} {}", statistics.empty() ? "" : ", ", statistic.name, statistic.value);
      out += fmt::format("  {:<12}   {}: {}\n", "", executable.name, statistics);
    }
  }
  return out;
}

}  // namespace ptbench
