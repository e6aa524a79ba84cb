#include "core/experiment/report.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/device_json.h"
#include "core/experiment/metrics.h"
#include "core/experiment/shard.h"
#include "core/experiment/statistics.h"
#include "core/integrators/options.h"
#include "core/integrators/registry.h"
#include "core/integrators/wavefront_state.h"
#include "core/version.h"

namespace ptbench {
namespace {

using nlohmann::json;

// A software BVH, or one of its layouts, that no run of the scene traverses.
constexpr const char* notBuilt = "not built";

std::string samplerName(SamplerKind kind) {
  return kind == SamplerKind::Pcg ? "pcg" : "halton";
}

json hostJson() {
  char hostname[256] = {};
  gethostname(hostname, sizeof hostname - 1);
  utsname system{};
  uname(&system);
  std::string os = std::string(system.sysname) + " " + system.release;
  std::ifstream release("/etc/os-release");
  for (std::string line; std::getline(release, line);)
    if (line.rfind("PRETTY_NAME=", 0) == 0) os = line.substr(13, line.size() - 14) + " (" + os + ")";
  return {{"hostname", hostname}, {"os", os}, {"machine", system.machine}, {"cpus", sysconf(_SC_NPROCESSORS_ONLN)}};
}

std::vector<std::string> shaderStageNames(VkShaderStageFlags stages) {
  static const std::pair<VkShaderStageFlagBits, const char*> names[] = {
      {VK_SHADER_STAGE_COMPUTE_BIT, "compute"},      {VK_SHADER_STAGE_RAYGEN_BIT_KHR, "raygen"},
      {VK_SHADER_STAGE_MISS_BIT_KHR, "miss"},        {VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR, "closest_hit"},
      {VK_SHADER_STAGE_ANY_HIT_BIT_KHR, "any_hit"},  {VK_SHADER_STAGE_INTERSECTION_BIT_KHR, "intersection"},
      {VK_SHADER_STAGE_CALLABLE_BIT_KHR, "callable"}};
  std::vector<std::string> result;
  for (const auto& [bit, name] : names)
    if (stages & bit) result.push_back(name);
  return result;
}

// A kernel's statistics: executables and occupancy null, with the reason, where the device has
// no VK_KHR_pipeline_executable_properties.
json kernelJson(const KernelStatistics& kernel) {
  json out = {{"stage", stageName(kernel.stage)}, {"shader", kernel.shader}, {"create_ms", kernel.createMs}};
  if (kernel.executables.empty()) {
    out["executables"] = nullptr;
  } else {
    json executables = json::array();
    for (const auto& executable : kernel.executables) {
      json statistics = json::object();
      for (const auto& statistic : executable.statistics) statistics[statistic.name] = statistic.value;
      executables.push_back({{"name", executable.name},
                             {"stages", shaderStageNames(executable.stages)},
                             {"subgroup_size", executable.subgroupSize},
                             {"statistics", statistics}});
    }
    out["executables"] = executables;
  }
  if (const auto& occupancy = kernel.occupancy.occupancy) {
    out["occupancy"] = {{"registers_per_thread", occupancy->registersPerThread},
                        {"warps_per_sm", occupancy->warpsPerSm},
                        {"max_warps_per_sm", occupancy->maxWarpsPerSm},
                        {"fraction", occupancy->fraction()},
                        {"limited_by", occupancy->limitedBy}};
  } else {
    out["occupancy"] = nullptr;
    out["occupancy_reason"] = kernel.occupancy.reason;
  }
  return out;
}

}  // namespace

json runParametersJson(const RunRecord& run) {
  const RenderSettings& s = run.spec.settings;
  json parameters = {{"scene", run.scene},
          {"integrator", integratorName(run.spec.integrator)},
          {"backend", run.backend},
          {"width", s.width},
          {"height", s.height},
          {"spp", s.samplesPerPixel},
          {"max_depth", s.maxDepth},
          {"rr_depth", s.rrDepth},
          {"seed", s.seed},
          {"sampler", samplerName(s.sampler)},
          {"counters", countersName(s.counters)},
          {"timing", s.stageTimestamps ? "stages" : "frame"},
          {"options", runOptionsJson(run.spec.integrator, run.backend, s)}};
  // A scene listed twice with two camera paths is two settings, not a repeat.
  if (!run.cameraPath.empty()) parameters["camera_path"] = run.cameraPath;
  return parameters;
}

namespace {

// Divergence at the shading point: utilisation = active lanes / (subgroup events x subgroup
// size), coherence = distinct material classes per event; overall and per bounce (1: the camera
// rays' hits).
json simtJson(const SimtCounts& simt) {
  auto measures = [&](const SimtBounceCounts& counts) {
    const bool any = counts.subgroups > 0 && simt.subgroupSize > 0;
    return json{{"subgroups", counts.subgroups},
                {"lanes", counts.lanes},
                {"utilisation", any ? json(counts.utilisation(simt.subgroupSize)) : json()},
                {"coherence", any ? json(counts.coherence()) : json()}};
  };
  json perBounce = json::array();
  for (size_t b = 0; b < simt.bounces.size(); ++b) {
    json entry = measures(simt.bounces[b]);
    entry["bounce"] = b + 1;
    perBounce.push_back(entry);
  }
  json out = measures(simt.total());
  out["stage"] = stageName(simt.stage);
  out["subgroup_size"] = simt.subgroupSize;
  out["per_bounce"] = perBounce;
  return out;
}

// A stage's median time over the run's frames, in seconds; none where the run did not time it.
std::optional<double> stageMedianSeconds(const RunRecord& run, Stage stage) {
  const auto found =
      std::find_if(run.stages.begin(), run.stages.end(), [&](const auto& record) { return record.stage == stage; });
  if (found == run.stages.end()) return std::nullopt;
  return summarize(found->gpuMs).median * 1e-3;
}

// The most lane-cycles a stage's clocks can count: every warp its kernels keep resident on every
// SM, busy for the stage's whole median time at the SM's highest clock. Clocks that count more are
// wrong, whatever the cause (on an H100 the clock's two words read apart once summed to 10 times
// the bound); null where the device gives no SM count, clock or occupancy (lavapipe, and
// NVIDIA's ray-tracing pipelines, whose statistics it does not list).
struct LaneCycleBound {
  uint32_t smCount = 0;
  uint32_t subgroupSize = 0;
  double smClockHz = 0;
};

json residentLaneCycleFraction(const RunRecord& run, Stage stage, uint64_t laneCycles, const LaneCycleBound& bound) {
  // A stage of several kernels (the material queues' shade kernels, launched with no barrier
  // between them) may share an SM among them: the bound is then the SM's warp slots.
  uint32_t warpsPerSm = 0, kernels = 0, warpSlots = 0;
  for (const auto& kernel : run.kernels)
    if (kernel.stage == stage && kernel.occupancy.occupancy) {
      warpsPerSm = std::max(warpsPerSm, kernel.occupancy.occupancy->warpsPerSm);
      warpSlots = std::max(warpSlots, kernel.occupancy.occupancy->maxWarpsPerSm);
      ++kernels;
    }
  if (kernels > 1) warpsPerSm = std::max(warpsPerSm, warpSlots);
  const std::optional<double> seconds = stageMedianSeconds(run, stage);
  if (warpsPerSm == 0 || bound.smCount == 0 || bound.subgroupSize == 0 || bound.smClockHz <= 0 || !seconds)
    return json();
  const double most = double(warpsPerSm) * bound.subgroupSize * bound.smCount * bound.smClockHz * *seconds;
  return most > 0 ? json(double(laneCycles) / most) : json();
}

// Where the kernels' time goes (counters: clocks): each phase's share of the clocked lane-cycles
// (they sum to 1) and the cycles themselves, over the run and per bounce (the megakernels; 1: the
// camera ray's segment) or per clocked stage (the wavefront); and, per clocked stage, the cycles
// over the most its SMs could count (`of_resident_lane_cycles`), `plausible` false where a stage
// passes implausibleLaneCycles.
json clocksJson(const RunRecord& run, const LaneCycleBound& bound) {
  const ClockCounts& clocks = *run.clocks;
  auto phases = [](const PhaseCycles& cycles) {
    json shares = json::object(), counts = json::object();
    for (size_t phase = 0; phase < phaseNames.size(); ++phase) {
      shares[std::string(phaseNames[phase])] = cycles.total() > 0 ? json(cycles.share(phase)) : json();
      counts[std::string(phaseNames[phase])] = cycles.cycles[phase];
    }
    return json{{"phases", shares}, {"cycles", counts}, {"total_cycles", cycles.total()}};
  };
  json out = phases(clocks.total());
  std::optional<bool> plausible;  // none until a stage can be judged
  auto judge = [&](json& entry, Stage stage, uint64_t laneCycles) {
    entry["of_resident_lane_cycles"] = residentLaneCycleFraction(run, stage, laneCycles, bound);
    if (entry["of_resident_lane_cycles"].is_number())
      plausible = plausible.value_or(true) && entry["of_resident_lane_cycles"].get<double>() <= implausibleLaneCycles;
  };
  if (!clocks.stages.empty()) {
    json perStage = json::array();
    for (const auto& [stage, cycles] : clocks.stages) {
      json entry = phases(cycles);
      entry["stage"] = stageName(stage);
      judge(entry, stage, cycles.total());
      perStage.push_back(entry);
    }
    out["per_stage"] = perStage;
  } else {
    judge(out, Stage::TraceShade, clocks.total().total());
    json perBounce = json::array();
    for (size_t b = 0; b < clocks.bounces.size(); ++b) {
      json entry = phases(clocks.bounces[b]);
      entry["bounce"] = b + 1;
      perBounce.push_back(entry);
    }
    out["per_bounce"] = perBounce;
  }
  out["plausible"] = plausible ? json(*plausible) : json();
  return out;
}

// Clocks, temperature, power and throttling over the measured frames (gpu_monitor.h); every
// field null where NVML did not sample.
json gpuContextJson(const RunRecord& run) {
  json context = {{"sm_clock_mhz_mean", nullptr},     {"sm_clock_mhz_min", nullptr},  {"sm_clock_mhz_max", nullptr},
                  {"memory_clock_mhz_mean", nullptr}, {"temperature_c_max", nullptr}, {"power_w_mean", nullptr},
                  {"throttled_frames", nullptr},      {"throttle_reasons", nullptr}};
  if (run.frameGpuSamples.empty()) return context;
  double smSum = 0, smMin = 1e30, smMax = 0, memorySum = 0, powerSum = 0;
  uint32_t temperature = 0;
  uint64_t reasons = 0;
  json throttled = json::array();
  for (size_t frame = 0; frame < run.frameGpuSamples.size(); ++frame) {
    const auto& [before, after] = run.frameGpuSamples[frame];
    const double sm = 0.5 * (before.smClockMhz + after.smClockMhz);
    smSum += sm;
    smMin = std::min(smMin, sm);
    smMax = std::max(smMax, sm);
    memorySum += 0.5 * (before.memoryClockMhz + after.memoryClockMhz);
    powerSum += 0.5 * (before.powerW + after.powerW);
    temperature = std::max({temperature, before.temperatureC, after.temperatureC});
    const uint64_t frameReasons = before.throttleReasons | after.throttleReasons;
    reasons |= frameReasons;
    if (frameReasons & throttlingReasonsMask) throttled.push_back(frame);
  }
  const double frames = double(run.frameGpuSamples.size());
  context["sm_clock_mhz_mean"] = smSum / frames;
  context["sm_clock_mhz_min"] = smMin;
  context["sm_clock_mhz_max"] = smMax;
  context["memory_clock_mhz_mean"] = memorySum / frames;
  context["temperature_c_max"] = temperature;
  context["power_w_mean"] = powerSum / frames;
  context["throttled_frames"] = throttled;  // indices into frame_gpu_ms_samples
  context["throttle_reasons"] = throttleReasonNames(reasons);
  return context;
}

// The wavefront's path-state and queue traffic per stage (wavefrontStageTraffic's model) over the
// frame's work, and the bandwidth it achieves in the stage's median time: a stage near the
// device's peak is memory-bound.
json memoryTrafficJson(const RunRecord& run, double peakBytesPerSecond) {
  uint64_t livePaths = 0, shadowRays = 0, started = 0;
  for (const StepWork& step : run.steps) {
    livePaths += step.extensionRays;
    shadowRays += step.shadowRays;
    started += step.pathsStarted;
  }
  json stages = json::object();
  for (const StageTraffic& traffic : wavefrontStageTraffic()) {
    const std::optional<double> seconds = stageMedianSeconds(run, traffic.stage);
    if (!seconds) continue;
    const double bytes = double(livePaths) * traffic.bytesPerLivePath + double(shadowRays) * traffic.bytesPerShadowRay +
                         double(started) * traffic.bytesPerPathStarted;
    const double rate = *seconds > 0 ? bytes / *seconds : 0;
    stages[std::string(stageName(traffic.stage))] = {
        {"bytes_per_frame", bytes},
        {"gb_per_s", rate * 1e-9},
        {"fraction_of_peak", peakBytesPerSecond > 0 ? json(rate / peakBytesPerSecond) : json()}};
  }
  return {{"model", "path state, rays, hits and queue entries per item from their layout; scene data not counted"},
          {"peak_gb_per_s", peakBytesPerSecond > 0 ? json(peakBytesPerSecond * 1e-9) : json()},
          {"stages", stages}};
}

json runJson(const RunRecord& run, double targetRelmse, double peakBytesPerSecond,
             const LaneCycleBound& laneCycleBound) {
  if (run.kept) {
    json kept = *run.kept;
    kept["id"] = run.id;
    return kept;
  }
  const RenderSettings& s = run.spec.settings;
  json out = {
      {"id", run.id},           {"sweep_index", run.sweepIndex},        {"variant", run.variant},
      {"status", run.status()}, {"parameters", runParametersJson(run)},
  };
  if (out["status"] == "interrupted") {
    if (!run.error.empty()) out["error"] = run.error;  // why it did not run (a lost device)
    return out;
  }
  if (out["status"] == "error") {
    out["error"] = run.error;
    return out;
  }
  const Summary frame = summarize(run.frameGpuMs);
  const double seconds = frame.median * 1e-3;
  const uint64_t rays = run.work.extensionRays + run.work.shadowRays;
  out["warmup_frames"] = run.warmupFrames;
  out["frames"] = run.frameGpuMs.size();
  out["frame_gpu_ms"] = toJson(frame);
  // Frames that vary by more than the noise bound: a median to read with care (metrics.h).
  out["noisy"] = isNoisy(frame.cv);
  out["frame_host_ms"] = toJson(summarize(run.frameHostMs));
  out["frame_gpu_ms_samples"] = run.frameGpuMs;
  // Absent under timing: frame, whose frames have no stages to subtract.
  if (!run.frameOverheadMs.empty()) out["overhead_gpu_ms"] = toJson(summarize(run.frameOverheadMs));
  out["gpu_context"] = gpuContextJson(run);
  json stages = json::array();
  for (const auto& stage : run.stages) {
    json entry = {{"name", stageName(stage.stage)},
                  {"launches_per_frame", stage.launchesPerFrame},
                  {"gpu_ms", toJson(summarize(stage.gpuMs))}};
    // Per bounce (depth schedule) or iteration (pool): the median over frames of each.
    if (stage.stepGpuMs.size() > 1 || integratorTraits(run.spec.integrator).perBounce) {
      json perStep = json::array();
      for (const auto& step : stage.stepGpuMs) perStep.push_back(summarize(step).median);
      entry["gpu_ms_median_per_bounce"] = perStep;
    }
    stages.push_back(entry);
  }
  out["stages"] = stages;
  if (!run.steps.empty()) {
    json live = json::array(), shadow = json::array(), started = json::array();
    for (const auto& step : run.steps) {
      live.push_back(step.extensionRays);
      shadow.push_back(step.shadowRays);
      started.push_back(step.pathsStarted);
    }
    // Every live path traces one extension ray a bounce, so live_paths is also extension rays.
    out["work_per_bounce"] = {{"live_paths", live}, {"shadow_rays", shadow}, {"paths_started", started}};
  }
  out["invalid_samples"] = run.invalidSamples;
  out["work_per_frame"] = {{"paths", run.work.paths},
                           {"extension_rays", run.work.extensionRays},
                           {"shadow_rays", run.work.shadowRays},
                           {"path_segments", run.work.pathSegments}};
  if (s.restir != Restir::Off) {
    // Per pixel and sample pass: what reuse costs in rays, which pairwise MIS keeps linear in
    // the neighbours (DESIGN.md, "ReSTIR").
    const double pixelSamples = double(s.width) * s.height * s.samplesPerPixel;
    const auto perPixel = [&](size_t pass) { return double(run.work.restirRays[pass]) / pixelSamples; };
    out["restir"] = {
        {"visibility_rays_per_pixel", {{"temporal", perPixel(0)}, {"spatial", perPixel(1)}, {"shade", perPixel(2)}}}};
  }
  out["throughput"] = {{"paths_per_s", seconds > 0 ? double(run.work.paths) / seconds : 0},
                       {"rays_per_s", seconds > 0 ? double(rays) / seconds : 0},
                       {"segments_per_s", seconds > 0 ? double(run.work.pathSegments) / seconds : 0}};
  if (!isPathTracer(run.spec.integrator)) {
    // The roofline: the rays of the trace stage over that stage's own time, nothing else.
    const double traceSeconds = stageMedianSeconds(run, Stage::Trace).value_or(0);
    out["raycast"] = {{"rays", raycastRaysName(s.raycast.rays)},
                      {"rays_traced", rays},
                      {"trace_gpu_ms_median", traceSeconds * 1e3},
                      {"rays_per_s", traceSeconds > 0 ? double(rays) / traceSeconds : 0}};
  }
  out["launches_per_frame"] = run.launchesPerFrame;
  if (!run.wavefrontPoolReason.empty()) out["wavefront_pool_reason"] = run.wavefrontPoolReason;
  out["pipeline_create_ms"] = run.pipelineCreateMs;
  // What the run took on the host, warm-up and images included: `run --dry-run` estimates a
  // sweep's time from a previous report's.
  out["wall_ms"] = run.wallMs;
  json kernels = json::array();
  for (const auto& kernel : run.kernels) kernels.push_back(kernelJson(kernel));
  out["kernels"] = kernels;
  out["scene_load_ms"] = run.sceneLoadMs;
  out["unshaded_extensions"] = run.unshadedExtensions;
  out["notes"] = run.notes;
  out["material_classes"] = run.materialClassTriangles;
  out["memory_bytes"] = {{"scene_buffers", run.sceneBufferBytes},
                         {"scene_textures", run.sceneTextureBytes},
                         {"acceleration_structures", run.accelerationStructureBytes},
                         {"film", run.filmBytes},
                         {"wavefront_state", run.wavefrontStateBytes}};
  // The scene's, whichever backend the run took: its build is part of scene_load_ms.
  out["software_bvh"] = run.softwareBvh ? softwareBvhJson(*run.softwareBvh) : json(notBuilt);
  if (integratorTraits(run.spec.integrator).pathState)
    out["memory_traffic"] = memoryTrafficJson(run, peakBytesPerSecond);
  if (run.simt) out["simt"] = simtJson(*run.simt);
  if (run.clocks) out["clocks"] = clocksJson(run, laneCycleBound);
  if (run.convergence || !run.convergenceProblem.empty()) {
    json convergence = {{"target_relmse", targetRelmse}};
    if (run.convergence) {
      convergence["rmse"] = run.convergence->rmse;
      convergence["relmse"] = run.convergence->relmse;
      if (run.convergence->flip) convergence["flip"] = *run.convergence->flip;
      // Projected from this run's relMSE and median frame time: relMSE falls as 1/samples.
      convergence["seconds_to_target"] = secondsToReach(run.convergence->relmse, seconds, targetRelmse);
      convergence["efficiency"] = efficiency(run.convergence->relmse, seconds);
    } else {
      convergence["error"] = run.convergenceProblem;
    }
    out["convergence"] = convergence;
  }
  if (!run.png.empty()) out["images"] = {{"png", run.png}, {"exr", run.exr}};
  if (!run.pathFrames.empty()) {
    // A camera path's frames in order: each one's time and its error against its own reference.
    json frames = json::array();
    std::vector<double> relmses, flips;
    for (size_t k = 0; k < run.pathFrames.size() && k < run.frameGpuMs.size(); ++k) {
      const RunRecord::PathFrame& pathFrame = run.pathFrames[k];
      json entry = {{"frame", k}, {"gpu_ms", run.frameGpuMs[k]}, {"host_ms", run.frameHostMs[k]}};
      if (pathFrame.convergence) {
        entry["rmse"] = pathFrame.convergence->rmse;
        entry["relmse"] = pathFrame.convergence->relmse;
        relmses.push_back(pathFrame.convergence->relmse);
        if (const std::optional<double> flip = pathFrame.convergence->flip) {
          entry["flip"] = *flip;
          flips.push_back(*flip);
        }
      }
      if (!pathFrame.png.empty()) entry["images"] = {{"png", pathFrame.png}, {"exr", pathFrame.exr}};
      frames.push_back(entry);
    }
    out["camera_path"] = {{"frames", frames}};
    const size_t timed = std::min(run.pathFrames.size(), run.frameGpuMs.size());
    const double gpuMsMean =
        timed == 0 ? 0 : std::accumulate(run.frameGpuMs.begin(), run.frameGpuMs.begin() + timed, 0.0) / double(timed);
    out["camera_path"]["gpu_ms_mean"] = gpuMsMean;
    if (!relmses.empty() && relmses.size() == frames.size()) {
      const Summary relmse = summarize(relmses);
      out["camera_path"]["relmse_mean"] = relmse.mean;
      out["camera_path"]["relmse_median"] = relmse.median;
      // Over the frames FLIP was measured on (config.flip_every; every frame by default).
      if (!flips.empty()) {
        const Summary flip = summarize(flips);
        out["camera_path"]["flip_mean"] = flip.mean;
        out["camera_path"]["flip_median"] = flip.median;
        out["camera_path"]["flip_frames"] = flips.size();
      }
      // Error per millisecond: ReSTIR against plain path tracing at equal time (docs/config.md).
      out["camera_path"]["efficiency"] = efficiency(relmse.mean, gpuMsMean * 1e-3);
    }
  }
  return out;
}

json levelJson(const BvhStats& level) {
  return {{"nodes", level.nodes},     {"leaves", level.leaves},    {"primitives", level.primitives},
          {"depth", level.depth},     {"sah_cost", level.sahCost}, {"bytes", level.bytes},
          {"build_ms", level.buildMs}};
}

json layoutJson(const BvhLayoutStats& layout) {
  if (!layout.built) return notBuilt;
  return {{"bytes", layout.bytes},
          {"stack_entries", layout.stackEntries},
          {"top_level", levelJson(layout.topLevel)},
          {"bottom_levels", levelJson(layout.bottomLevels)}};
}

std::string number(const json& value) {
  if (value.is_null()) return "";
  std::ostringstream out;
  out.precision(9);
  if (value.is_number_float())
    out << value.get<double>();
  else
    out << value.dump();
  return out.str();
}

// Parameters that set a run's rendering rather than what it renders on: a roofline may differ
// in them. Every other parameter (scene, backend, and any the backends add) must match.
const std::set<std::string> renderParameters = {"integrator", "options",  "width", "height", "spp",
                                                "max_depth",  "rr_depth", "seed",  "sampler"};

// A run's options that are not its integrator's own (a backend's, say): a roofline must share them.
json foreignOptions(const json& parameters) {
  json options = parameters.value("options", json::object());
  if (const auto kind = parseIntegrator(parameters.value("integrator", "")))
    for (const auto& own : integratorEntry(*kind).options) options.erase(own.info.name);
  return options;
}

bool sameTarget(const json& a, const json& b) {
  for (const auto& [key, value] : a.items())
    if (!renderParameters.count(key) && (!b.contains(key) || b[key] != value)) return false;
  for (const auto& [key, value] : b.items())
    if (!renderParameters.count(key) && !a.contains(key)) return false;
  return foreignOptions(a) == foreignOptions(b);
}

}  // namespace

const json* rooflineOf(const json& run, const json& runs) {
  const json& p = run["parameters"];
  const json* best = nullptr;
  int bestScore = -1;
  for (const auto& candidate : runs) {
    const json& c = candidate["parameters"];
    const auto integrator =
        c["integrator"].is_string() ? parseIntegrator(c["integrator"].get<std::string>()) : std::nullopt;
    if (candidate["status"] != "ok" || !integrator || isPathTracer(*integrator) || !candidate.contains("raycast") ||
        candidate["raycast"]["rays"] != "diffuse" || !sameTarget(p, c))
      continue;
    // The same resolution first (a ray's cost depends on how many share its pixels), then the same spp.
    const int score = 2 * (c["width"] == p["width"] && c["height"] == p["height"]) + (c["spp"] == p["spp"]);
    if (score > bestScore) {
      best = &candidate;
      bestScore = score;
    }
  }
  return best;
}

namespace {

// Bytes per second the device's memory can move: NVML's maximum memory clock x bus width x 2
// (double data rate); without NVML, the data sheets of the GPUs ptbench is measured on; else 0.
double peakMemoryBandwidth(const ExperimentResult& result) {
  if (const auto& identity = result.gpuIdentity;
      identity && identity->maxMemoryClockMhz && identity->memoryBusWidthBits)
    return double(identity->maxMemoryClockMhz) * 1e6 * identity->memoryBusWidthBits / 8 * 2;
  static const std::pair<const char*, double> dataSheets[] = {{"H100 80GB HBM3", 3.35e12}, {"H200", 4.8e12}};
  for (const auto& [name, bytesPerSecond] : dataSheets)
    if (result.device.name.find(name) != std::string::npos) return bytesPerSecond;
  return 0;
}

// The device block with what nvbench records of a GPU: SM count (Vulkan's, where the driver
// tells), NVML's maximum clocks, memory bus width and ECC state; null where unknown.
json withIdentity(json device, const ExperimentResult& result) {
  device["sm_count"] = result.device.smCount > 0 ? json(result.device.smCount) : json();
  const auto& identity = result.gpuIdentity;
  device["max_sm_clock_mhz"] = identity && identity->maxSmClockMhz ? json(identity->maxSmClockMhz) : json();
  device["max_memory_clock_mhz"] = identity && identity->maxMemoryClockMhz ? json(identity->maxMemoryClockMhz) : json();
  device["memory_bus_width_bits"] =
      identity && identity->memoryBusWidthBits ? json(identity->memoryBusWidthBits) : json();
  device["ecc"] = identity && identity->ecc ? json(*identity->ecc) : json();
  return device;
}

}  // namespace

json toolJson() {
  return {{"name", "ptbench"},
          {"version", std::string(version)},
          {"git_revision", std::string(gitRevision)},
          {"git_dirty", gitDirty},
          {"build_type", std::string(buildType)}};
}

json reportJson(const ExperimentResult& result) {
  json runs = json::array();
  const double peak = peakMemoryBandwidth(result);
  const LaneCycleBound laneCycleBound{.smCount = result.device.smCount,
                                      .subgroupSize = result.device.subgroupSize,
                                      .smClockHz = result.gpuIdentity ? result.gpuIdentity->maxSmClockMhz * 1e6 : 0.0};
  for (const auto& run : result.runs) runs.push_back(runJson(run, result.config.targetRelmse, peak, laneCycleBound));
  addRooflineFractions(runs);
  return {
      {"schema_version", reportSchemaVersion},
      {"tool", toolJson()},
      {"date", result.startedUtc},
      {"host", hostJson()},
      {"device", withIdentity(deviceJson(result.device), result)},
      {"validation", result.validation},
      {"validation_messages", result.validationMessages},
      // false: a Ctrl-C or SIGTERM stopped the sweep; runs it did not finish are "interrupted".
      {"complete", result.complete},
      {"config_file", result.config.file.string()},
      {"config", result.config.resolved},
      {"config_hash", configHash(result.config)},
      {"sweep",
       {{"runs_before_backends", result.sweepSpecs},
        {"shard", result.shard ? json{{"index", result.shard->index}, {"count", result.shard->count}} : json()},
        {"specs", result.shardSpecs}}},
      {"notes", result.notes},
      {"runs", runs},
  };
}

void addRooflineFractions(json& runs) {
  for (auto& run : runs) {
    const auto kind = parseIntegrator(run["parameters"].value("integrator", ""));
    if (run["status"] != "ok" || !kind || !isPathTracer(*kind)) continue;
    const json* roofline = rooflineOf(run, runs);
    const double ceiling = roofline ? (*roofline)["raycast"]["rays_per_s"].get<double>() : 0;
    run["roofline_run"] = roofline ? (*roofline)["id"] : json();
    run["roofline_fraction"] = ceiling > 0 ? json(run["throughput"]["rays_per_s"].get<double>() / ceiling) : json();
  }
}

std::string optionsText(const json& options) {
  std::string text;
  for (const auto& [key, value] : options.items())
    text += (text.empty() ? "" : " ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  return text;
}

// `object`'s member `key`, or null where it has none (or is no object): operator[] of a const
// json on a missing key is undefined behaviour, and a report checkReport accepts may leave out
// what a run did not measure (the fuzzer of reports found reportCsv reading freed memory).
const json& memberOrNull(const json& object, const char* key) {
  static const json none;
  if (!object.is_object()) return none;
  const auto found = object.find(key);
  return found == object.end() ? none : *found;
}

std::string stringOrEmpty(const json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

// Statistics of a stage's (or the frame's) GPU times, each a column of its rows.
constexpr const char* csvStageStatistics[] = {"median", "mean", "min", "max", "stddev", "cv"};

std::string reportCsv(const json& report) {
  // One flat table, tidy for pandas: a row per run and stage (and bounce); the run's settings,
  // each axis a column of its own (runAxes), then the stage's times, then the run's metrics
  // (runMetrics) on every row of the run, and the device on every row, so that a table
  // concatenated from several reports still says where each row was measured.
  const json& runs = report["runs"];
  const std::vector<Axis> axes = runAxes(runs);
  std::vector<const Metric*> metrics;
  // The frame's own statistics are its row's stage columns.
  for (const Metric& m : runMetrics())
    if (m.name != "frame_gpu_ms_median" && m.name != "frame_gpu_ms_cv" && m.name != "frames") metrics.push_back(&m);
  std::string csv = "run_id,status,device";
  for (const Axis& axis : axes) csv += "," + csvField(axis.name);
  csv += ",stage,bounce,launches_per_frame,frames";
  for (const char* statistic : csvStageStatistics) csv += std::string(",gpu_ms_") + statistic;
  for (const Metric* m : metrics) csv += "," + m->name;
  csv += ",error\n";
  const std::string device = csvField(deviceName(report));
  for (const auto& run : runs) {
    const auto& p = memberOrNull(run, "parameters");
    std::string prefix = csvField(stringOrEmpty(memberOrNull(run, "id"))) + "," +
                         csvField(stringOrEmpty(memberOrNull(run, "status"))) + "," + device;
    for (const Axis& axis : axes) prefix += "," + csvField(axis.value(p));
    if (memberOrNull(run, "status") != "ok") {
      csv += prefix + std::string(4 + std::size(csvStageStatistics) + metrics.size(), ',') + "," +
             csvField(run.value("error", "")) + "\n";
      continue;
    }
    // A statistic the summary lacks (per-bounce rows have medians only) is an empty cell. The
    // SIMT figures belong to the stage they were counted in, and its bounces' rows.
    auto row = [&](const std::string& stage, const std::string& bounce, const json& launches, const json& stats,
                   const json& simt) {
      csv += prefix + "," + csvField(stage) + "," + bounce + "," + number(launches) + "," +
             number(memberOrNull(run, "frames"));
      for (const char* statistic : csvStageStatistics) csv += "," + number(memberOrNull(stats, statistic));
      for (const Metric* m : metrics) {
        std::optional<double> value = m->value(run);
        if (m->name == "simt_utilisation" || m->name == "simt_coherence") {
          const json& counted = memberOrNull(simt, m->name == "simt_utilisation" ? "utilisation" : "coherence");
          value = counted.is_number() ? std::optional<double>(counted.get<double>()) : std::nullopt;
        }
        csv += "," + (value ? number(json(*value)) : std::string());
      }
      csv += ",\n";
    };
    const json& simt = memberOrNull(run, "simt");
    const json noSimt = json::object();
    row("frame", "", json(), memberOrNull(run, "frame_gpu_ms"), noSimt);
    if (run.contains("overhead_gpu_ms")) row("overhead", "", json(), memberOrNull(run, "overhead_gpu_ms"), noSimt);
    const json& stages = memberOrNull(run, "stages");
    for (const auto& stage : stages.is_array() ? stages : json::array()) {
      const std::string name = stringOrEmpty(memberOrNull(stage, "name"));
      row(name, "", memberOrNull(stage, "launches_per_frame"), memberOrNull(stage, "gpu_ms"),
          stringOrEmpty(memberOrNull(simt, "stage")) == name ? simt : noSimt);
      const json& perBounce = memberOrNull(stage, "gpu_ms_median_per_bounce");
      if (perBounce.is_array())
        for (size_t b = 0; b < perBounce.size(); ++b)
          row(name, std::to_string(b), json(), json{{"median", perBounce[b]}}, noSimt);
    }
    // Per path bounce (0: the camera rays' hits), in rows of their own: a wavefront's per-step
    // times above are per iteration under the pool schedule.
    const json& simtBounces = memberOrNull(simt, "per_bounce");
    if (simtBounces.is_array())
      for (const auto& bounce : simtBounces) {
        const json& index = memberOrNull(bounce, "bounce");
        row("simt_" + stringOrEmpty(memberOrNull(simt, "stage")),
            index.is_number_integer() ? std::to_string(index.get<int64_t>() - 1) : std::string(), json(),
            json::object(), bounce);
      }
  }
  return csv;
}

void writeReportFiles(const std::filesystem::path& folder, const json& report) {
  writeFileAtomically(folder / "config.json", report.at("config").dump(2) + "\n");
  writeFileAtomically(folder / "report.csv", reportCsv(report));
  // The JSON last: its presence says the folder is complete.
  writeFileAtomically(folder / "report.json", report.dump(2) + "\n");
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

namespace {

// What a field must be, and how a message says it.
enum class Kind { String, Count, Number, NumberOrNull, Boolean, Object, Array };

bool isKind(const json& value, Kind kind) {
  switch (kind) {
    case Kind::String:
      return value.is_string();
    case Kind::Count:
      return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
    case Kind::Number:
      return value.is_number();
    case Kind::NumberOrNull:
      return value.is_number() || value.is_null();
    case Kind::Boolean:
      return value.is_boolean();
    case Kind::Object:
      return value.is_object();
    case Kind::Array:
      return value.is_array();
  }
  return false;
}

const char* kindText(Kind kind) {
  switch (kind) {
    case Kind::String:
      return "a string";
    case Kind::Count:
      return "a non-negative integer";
    case Kind::Number:
      return "a number";
    case Kind::NumberOrNull:
      return "a number or null";
    case Kind::Boolean:
      return "true or false";
    case Kind::Object:
      return "an object";
    case Kind::Array:
      return "a list";
  }
  return "";
}

class ReportChecker {
 public:
  ReportChecker(std::string source, int exitCode) : source_(std::move(source)), exitCode_(exitCode) {}

  // object[key] at `pointer`: required, or checked only when present. False when absent.
  bool field(const json& object, const std::string& pointer, const char* key, Kind kind, bool required = true) const {
    const std::string at = pointer + "/" + key;
    if (!object.contains(key)) {
      if (required) fail(at, std::string(kindText(kind)) + ", and found none");
      return false;
    }
    if (!isKind(object[key], kind)) {
      std::string text = object[key].dump();
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      fail(at, std::string(kindText(kind)) + ", got " + text);
    }
    return true;
  }
  void each(const json& object, const std::string& pointer, const char* key, Kind kind) const {
    if (!field(object, pointer, key, Kind::Array, false)) return;
    for (size_t i = 0; i < object[key].size(); ++i)
      if (!isKind(object[key][i], kind))
        fail(pointer + "/" + key + "/" + std::to_string(i),
             std::string(kindText(kind)) + ", got " + object[key][i].dump().substr(0, 40));
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& expected) const {
    throw UserError(source_ + ": " + pointer + ": expected " + expected + "; is it a report.json that ptbench wrote?",
                    exitCode_);
  }

 private:
  std::string source_;
  int exitCode_;
};

}  // namespace

bool isFileNameBesideReport(const std::string& name) {
  return std::filesystem::path(name).filename() == name && name != "." && name != "..";
}

std::set<std::string> reportImageNames(const json& report) {
  std::set<std::string> names;
  const auto add = [&](const json& holder) {
    if (holder.contains("images"))
      for (const char* format : {"png", "exr"})
        if (holder["images"].contains(format)) names.insert(holder["images"][format].get<std::string>());
  };
  for (const json& run : report["runs"]) {
    add(run);
    if (run.contains("camera_path"))
      for (const json& frame : run["camera_path"]["frames"]) add(frame);
  }
  return names;
}

void checkReport(const json& report, const std::string& source, int exitCode) {
  const ReportChecker check(source, exitCode);
  if (!report.is_object()) check.fail("", "an object with a \"runs\" list");
  check.field(report, "", "runs", Kind::Array);
  check.field(report, "", "config", Kind::Object, false);
  check.field(report, "", "config_hash", Kind::String, false);
  check.field(report, "", "config_file", Kind::String, false);
  check.field(report, "", "complete", Kind::Boolean, false);
  check.field(report, "", "validation_messages", Kind::Count, false);
  check.field(report, "", "schema_version", Kind::Count, false);
  check.field(report, "", "date", Kind::String, false);
  check.field(report, "", "tool", Kind::Object, false);
  check.field(report, "", "device", Kind::Object, false);
  check.each(report, "", "notes", Kind::String);
  if (check.field(report, "", "sweep", Kind::Object, false)) {
    check.field(report["sweep"], "/sweep", "runs_before_backends", Kind::Count, false);
    check.each(report["sweep"], "/sweep", "specs", Kind::Count);
    const json& shard = report["sweep"].value("shard", json());
    if (!shard.is_null()) {
      check.field(report["sweep"], "/sweep", "shard", Kind::Object);
      check.field(shard, "/sweep/shard", "index", Kind::Count);
      check.field(shard, "/sweep/shard", "count", Kind::Count);
      // `run --resume` takes its shard from here: a part of no sweep would leave it nothing to run.
      if (!validShard(shard["index"].get<uint64_t>(), shard["count"].get<uint64_t>()))
        check.fail("/sweep/shard",
                   "a part of the sweep: an index from 1 to its count, of at most " + std::to_string(maxShards));
    }
  }
  for (size_t i = 0; i < report["runs"].size(); ++i) {
    const json& run = report["runs"][i];
    const std::string at = "/runs/" + std::to_string(i);
    if (!run.is_object()) check.fail(at, "a run, an object");
    check.field(run, at, "id", Kind::String);
    check.field(run, at, "status", Kind::String);
    if (run["status"] != "ok" && run["status"] != "error" && run["status"] != "interrupted")
      check.fail(at + "/status", "ok, error or interrupted, got " + run["status"].dump());
    check.field(run, at, "sweep_index", Kind::Count, false);
    check.field(run, at, "variant", Kind::Count, false);
    check.field(run, at, "parameters", Kind::Object);
    const json& p = run["parameters"];
    for (const char* key : {"scene", "integrator", "backend", "sampler"})
      check.field(p, at + "/parameters", key, Kind::String);
    for (const char* key : {"width", "height", "spp", "max_depth", "rr_depth", "seed"})
      check.field(p, at + "/parameters", key, Kind::Count);
    check.field(p, at + "/parameters", "options", Kind::Object);
    check.field(p, at + "/parameters", "counters", Kind::String, false);
    check.field(p, at + "/parameters", "timing", Kind::String, false);
    check.field(p, at + "/parameters", "camera_path", Kind::String, false);
    check.field(run, at, "error", Kind::String, run["status"] == "error");
    if (run["status"] != "ok") continue;
    check.field(run, at, "frames", Kind::Count);
    check.field(run, at, "warmup_frames", Kind::Count, false);
    check.field(run, at, "invalid_samples", Kind::Count);
    check.each(run, at, "notes", Kind::String);
    // What merge carries into its report and resume keeps: a field of the wrong type there
    // would pass on into every report made from this one.
    check.each(run, at, "frame_gpu_ms_samples", Kind::Number);
    check.field(run, at, "noisy", Kind::Boolean, false);
    for (const char* number : {"wall_ms", "scene_load_ms", "pipeline_create_ms"})
      check.field(run, at, number, Kind::Number, false);
    for (const char* block : {"memory_bytes", "work_per_frame"})
      if (check.field(run, at, block, Kind::Object, false))
        for (const auto& item : run[block].items())
          check.field(run[block], at + "/" + block, item.key().c_str(), Kind::Count);
    check.each(run, at, "kernels", Kind::Object);
    for (size_t k = 0; k < run.value("kernels", json::array()).size(); ++k) {
      const std::string kernelAt = at + "/kernels/" + std::to_string(k);
      const json& kernel = run["kernels"][k];
      check.field(kernel, kernelAt, "stage", Kind::String);
      // null where the device gives no register counts (occupancy_reason says why).
      if (!kernel.value("occupancy", json()).is_null() && check.field(kernel, kernelAt, "occupancy", Kind::Object))
        for (const char* count : {"registers_per_thread", "warps_per_sm", "max_warps_per_sm"})
          check.field(kernel["occupancy"], kernelAt + "/occupancy", count, Kind::Count, false);
    }
    for (const char* block : {"frame_gpu_ms", "overhead_gpu_ms"}) {
      if (!check.field(run, at, block, Kind::Object, std::string(block) == "frame_gpu_ms")) continue;
      for (const char* statistic : {"median", "cv"}) check.field(run[block], at + "/" + block, statistic, Kind::Number);
      check.field(run[block], at + "/" + block, "count", Kind::Count, false);
      for (const char* statistic : {"mean", "min", "max", "stddev"})
        check.field(run[block], at + "/" + block, statistic, Kind::Number, false);
    }
    check.field(run, at, "throughput", Kind::Object);
    for (const char* rate : {"paths_per_s", "rays_per_s", "segments_per_s"})
      check.field(run["throughput"], at + "/throughput", rate, Kind::Number);
    check.field(run, at, "stages", Kind::Array);
    for (size_t s = 0; s < run["stages"].size(); ++s) {
      const json& stage = run["stages"][s];
      const std::string stageAt = at + "/stages/" + std::to_string(s);
      if (!stage.is_object()) check.fail(stageAt, "a stage, an object");
      check.field(stage, stageAt, "name", Kind::String);
      check.field(stage, stageAt, "launches_per_frame", Kind::Count, false);
      check.field(stage, stageAt, "gpu_ms", Kind::Object);
      check.field(stage["gpu_ms"], stageAt + "/gpu_ms", "median", Kind::Number);
      check.each(stage, stageAt, "gpu_ms_median_per_bounce", Kind::Number);
    }
    if (check.field(run, at, "raycast", Kind::Object, false)) {
      check.field(run["raycast"], at + "/raycast", "rays_per_s", Kind::Number);
      check.field(run["raycast"], at + "/raycast", "rays_traced", Kind::Count);
    }
    check.field(run, at, "roofline_fraction", Kind::NumberOrNull, false);
    if (check.field(run, at, "simt", Kind::Object, false)) {
      check.field(run["simt"], at + "/simt", "stage", Kind::String, false);
      check.each(run["simt"], at + "/simt", "per_bounce", Kind::Object);
      for (size_t b = 0; b < run["simt"].value("per_bounce", json::array()).size(); ++b)
        check.field(run["simt"]["per_bounce"][b], at + "/simt/per_bounce/" + std::to_string(b), "bounce", Kind::Count);
    }
    if (check.field(run, at, "clocks", Kind::Object, false)) {
      // The phases' shares and cycles, overall and per bounce or stage; shares sum to 1.
      auto phases = [&](const json& block, const std::string& blockAt) {
        check.field(block, blockAt, "phases", Kind::Object);
        check.field(block, blockAt, "cycles", Kind::Object);
        check.field(block, blockAt, "total_cycles", Kind::Count);
        double sum = 0;
        bool any = false;
        for (std::string_view phase : phaseNames) {
          const std::string name(phase);
          check.field(block["phases"], blockAt + "/phases", name.c_str(), Kind::NumberOrNull);
          check.field(block["cycles"], blockAt + "/cycles", name.c_str(), Kind::Count);
          if (block["phases"][name].is_number()) {
            sum += block["phases"][name].get<double>();
            any = true;
          }
        }
        if (any && std::abs(sum - 1.0) > 1e-6)
          check.fail(blockAt + "/phases", "shares that sum to 1, got " + std::to_string(sum));
      };
      const json& clocks = run["clocks"];
      phases(clocks, at + "/clocks");
      check.field(clocks, at + "/clocks", "of_resident_lane_cycles", Kind::NumberOrNull, false);
      if (!clocks.value("plausible", json()).is_null()) check.field(clocks, at + "/clocks", "plausible", Kind::Boolean);
      check.each(clocks, at + "/clocks", "per_bounce", Kind::Object);
      check.each(clocks, at + "/clocks", "per_stage", Kind::Object);
      for (size_t b = 0; b < clocks.value("per_bounce", json::array()).size(); ++b) {
        const std::string bounceAt = at + "/clocks/per_bounce/" + std::to_string(b);
        check.field(clocks["per_bounce"][b], bounceAt, "bounce", Kind::Count);
        phases(clocks["per_bounce"][b], bounceAt);
      }
      for (size_t s = 0; s < clocks.value("per_stage", json::array()).size(); ++s) {
        const std::string stageAt = at + "/clocks/per_stage/" + std::to_string(s);
        check.field(clocks["per_stage"][s], stageAt, "stage", Kind::String);
        check.field(clocks["per_stage"][s], stageAt, "of_resident_lane_cycles", Kind::NumberOrNull, false);
        phases(clocks["per_stage"][s], stageAt);
      }
    }
    // Without NVML every figure is null; with it, the summary reads them all.
    if (check.field(run, at, "gpu_context", Kind::Object, false)) {
      const json& context = run["gpu_context"];
      const std::string contextAt = at + "/gpu_context";
      if (check.field(context, contextAt, "sm_clock_mhz_mean", Kind::NumberOrNull, false) &&
          context["sm_clock_mhz_mean"].is_number()) {
        for (const char* clock : {"sm_clock_mhz_min", "sm_clock_mhz_max"})
          check.field(context, contextAt, clock, Kind::Number);
        check.field(context, contextAt, "throttled_frames", Kind::Array);
        check.field(context, contextAt, "throttle_reasons", Kind::Array);
        check.each(context, contextAt, "throttle_reasons", Kind::String);
      }
    }
    // A name with a folder would have merge, report pages or embedded images read or copy a
    // file from anywhere.
    const auto checkImages = [&](const json& holder, const std::string& holderAt) {
      if (!check.field(holder, holderAt, "images", Kind::Object, false)) return;
      for (const char* format : {"png", "exr"}) {
        check.field(holder["images"], holderAt + "/images", format, Kind::String);
        const std::string name = holder["images"][format];
        if (!isFileNameBesideReport(name))
          check.fail(holderAt + "/images/" + format, "the name of a file beside the report, without a folder");
      }
    };
    checkImages(run, at);
    if (check.field(run, at, "camera_path", Kind::Object, false) &&
        check.field(run["camera_path"], at + "/camera_path", "frames", Kind::Array))
      for (size_t k = 0; k < run["camera_path"]["frames"].size(); ++k) {
        const json& frame = run["camera_path"]["frames"][k];
        const std::string frameAt = at + "/camera_path/frames/" + std::to_string(k);
        checkImages(frame, frameAt);
        for (const char* number : {"frame", "gpu_ms", "host_ms"}) check.field(frame, frameAt, number, Kind::Number);
        for (const char* number : {"rmse", "relmse", "flip"}) check.field(frame, frameAt, number, Kind::Number, false);
      }
  }
}

std::string runId(size_t position) {
  return fmt::format("r{:03}", position);
}

json softwareBvhJson(const SoftwareBvhStats& stats) {
  json out = {{"builder", bvhBuilderName(stats.builder)},
              {"build_ms", stats.buildMs},
              {"binary_build_ms", stats.binaryBuildMs},
              {"build_cpu_ms", stats.cpuMs},
              {"build_system_cpu_ms", stats.systemCpuMs},
              {"threads", stats.threads},
              {"bins", stats.binCount},
              {"cwbvh", layoutJson(stats.cwbvh)},
              {"bvh2", layoutJson(stats.bvh2)}};
  // The GPU builder's binary_build_ms split (summed over levels, which build on several threads
  // at once, and batches): the kernels, the collapses included; the boxes' upload with the
  // trees' readback, and its parts; and the waits for a batch.
  if (stats.builder == BvhBuilder::Gpu) {
    const GpuBvhBuildTimes& gpu = stats.gpuBuild;
    out["gpu_build_ms"] = gpu.gpuMs;
    json stages = json::object();
    for (const auto& [stage, ms] : gpu.stageGpuMs) stages[std::string(stageName(stage))] = ms;
    out["gpu_stage_ms"] = stages;
    out["gpu_transfer_ms"] = gpu.transferMs;
    out["gpu_transfer_parts_ms"] = {
        {"prepare", gpu.prepareMs}, {"allocate", gpu.allocateMs}, {"copy", gpu.copyMs}, {"convert", gpu.convertMs}};
    out["gpu_queue_wait_ms"] = gpu.batchWaitMs;
    out["gpu_batches"] = gpu.batches;
  }
  return out;
}

std::string runKey(const json& run) {
  const auto& p = run.at("parameters");
  std::string key;
  for (const char* name :
       {"scene", "integrator", "backend", "width", "height", "spp", "max_depth", "rr_depth", "seed", "sampler"})
    key += (key.empty() ? "" : " ") + std::string(name) + "=" +
           (p.at(name).is_string() ? p.at(name).get<std::string>() : p.at(name).dump());
  // Options make runs of one integrator distinct (a sweep over schedules, say).
  // Options at their default are left out, so that a run of today's default renderer matches the
  // same run of a report from before an option was added (the performance gate's baselines).
  json options = p.value("options", json::object());
  if (const auto kind = parseIntegrator(p.at("integrator").get<std::string>()))
    options = optionsOffDefault(*kind, options);
  if (!options.empty()) key += " " + optionsText(options);
  // Runs with counters never match runs without: their atomics and clock reads perturb the timing.
  if (p.value("counters", "off") != "off") key += " counters=" + p["counters"].get<std::string>();
  // Runs timed per frame only are distinct runs of their own (what stage timing costs).
  if (p.value("timing", "stages") != "stages") key += " timing=" + p["timing"].get<std::string>();
  if (p.contains("camera_path")) key += " camera_path=" + p["camera_path"].get<std::string>();
  return key;
}

}  // namespace ptbench
