#include "core/experiment/measure.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "core/elapsed.h"
#include "core/experiment/statistics.h"
#include "core/integrators/film.h"

namespace ptbench {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

bool enoughFrames(const Repetition& repetition, const std::vector<double>& frames, double elapsedMs) {
  if (repetition.repeats) return frames.size() >= *repetition.repeats;
  if (elapsedMs >= repetition.timeoutSeconds * 1000.0) return true;
  return frames.size() >= repetition.minSamples && summarize(frames).cv <= repetition.maxNoise;
}

std::optional<FrameResult> measure(RunRecord& record, Integrator& integrator, const RenderSettings& settings,
                                   const ExperimentConfig& config, const GpuMonitor& monitor,
                                   const std::function<bool()>& stop, const PathFrames& path) {
  record.kernels = integrator.kernels();
  record.pipelineCreateMs = pipelineCreateMs(record.kernels);
  // Timed frames follow one another without the film's readback and resolve, which would keep
  // the GPU idle between them; one more frame, untimed, gives the image and the work counts
  // (identical in every frame: the sample stream is fixed).
  RenderSettings timedSettings = settings;
  timedSettings.readImage = false;
  if (!path.cameras.empty()) timedSettings.camera = path.cameras.front();
  // Warm-up frame i. On a path, each its own seed, past the path frames' (a renderer with
  // history, ReSTIR, would otherwise reuse the same samples frame after frame, which are no
  // history at all).
  const auto warmupSettings = [&](uint32_t i) {
    RenderSettings warmup = timedSettings;
    if (!path.cameras.empty()) warmup.seed = settings.seed + uint32_t(path.cameras.size()) + i;
    return warmup;
  };
  const auto warmupStart = Clock::now();
  record.warmupFrames = 0;
  while (record.warmupFrames < config.warmup || millisecondsSince(warmupStart) < config.warmupSeconds * 1000.0) {
    if (stop()) return std::nullopt;
    integrator.render(warmupSettings(record.warmupFrames));
    ++record.warmupFrames;
  }
  size_t frame = 0;
  // One measured frame: its times, its stages' and its GPU's samples.
  const auto timed = [&](const RenderSettings& frameSettings) {
    const std::optional<GpuSample> before = monitor.sample();
    FrameResult result = integrator.render(frameSettings);
    if (const std::optional<GpuSample> after = monitor.sample(); before && after)
      record.frameGpuSamples.emplace_back(*before, *after);
    record.frameGpuMs.push_back(result.gpuMs);
    record.frameHostMs.push_back(result.hostMs);
    double stagesMs = 0;
    for (auto& stage : record.stages) {  // a stage this frame lacks counts 0 in it
      stage.gpuMs.push_back(0);
      for (auto& step : stage.stepGpuMs) step.push_back(0);
      stage.launchesPerFrame = 0;
    }
    for (const auto& timing : result.stages) {
      auto found = std::find_if(record.stages.begin(), record.stages.end(),
                                [&](const auto& entry) { return entry.stage == timing.stage; });
      if (found == record.stages.end())
        found =
            record.stages.insert(record.stages.end(), {.stage = timing.stage, .gpuMs = std::vector<double>(frame + 1)});
      while (found->stepGpuMs.size() <= timing.step) found->stepGpuMs.emplace_back(frame + 1, 0.0);
      const double ms = timing.gpuNs * 1e-6;
      found->gpuMs.back() += ms;
      found->stepGpuMs[timing.step].back() += ms;
      found->launchesPerFrame += timing.launches;
      stagesMs += ms;
    }
    // timing: frame times no stage: then nothing is overhead but the whole frame is unsplit.
    if (frameSettings.stageTimestamps) record.frameOverheadMs.push_back(result.gpuMs - stagesMs);
    ++frame;
    return result;
  };
  FrameResult last;
  if (path.cameras.empty()) {
    const auto start = Clock::now();
    do {
      if (stop()) return std::nullopt;
      last = timed(timedSettings);
    } while (!enoughFrames(config.repetition, record.frameGpuMs, millisecondsSince(start)));
    if (stop()) return std::nullopt;
    last = integrator.render(settings);
  } else {
    // Frame k of the path: its camera, the one before it (the history's), its own seed.
    const auto pathFrame = [&](uint32_t k, bool readImage) {
      RenderSettings frameSettings = settings;
      frameSettings.readImage = readImage;
      frameSettings.camera = path.cameras[k];
      if (k > 0) frameSettings.previousCamera = path.cameras[k - 1];
      frameSettings.seed = settings.seed + k;
      return frameSettings;
    };
    // Timed, the path's frames follow one another as a real-time renderer's would: reading each
    // one back (and writing its files) between them would let the GPU idle and lower its clocks.
    for (uint32_t k = 0; k < path.cameras.size(); ++k) {
      if (stop()) return std::nullopt;
      timed(pathFrame(k, false));
    }
    // Then the path again from the same start, each frame read back for its image and error:
    // the warm-up's frames again (a path tracer with history, ReSTIR, starts from the same
    // state), so the images are those of the timed frames (the sample streams are fixed).
    for (uint32_t warmup = 0; warmup < record.warmupFrames; ++warmup) {
      if (stop()) return std::nullopt;
      integrator.render(warmupSettings(warmup));
    }
    for (uint32_t k = 0; k < path.cameras.size(); ++k) {
      if (stop()) return std::nullopt;
      last = integrator.render(pathFrame(k, true));
      if (path.frameDone) path.frameDone(k, last);
    }
  }
  record.work = last.work;
  record.steps = last.steps;
  record.invalidSamples = last.invalidSamples;
  record.simt = last.simt;
  record.clocks = last.clocks;
  record.wavefrontStateBytes = last.stateBytes;
  record.launchesPerFrame = last.launches;
  if (last.invalidSamples > 0)
    spdlog::warn("run {}: {} invalid sample(s) a frame (NaN, infinite, negative or >= 1e12), counted as black",
                 record.id, last.invalidSamples);
  record.filmBytes = Film::deviceBytes(settings.width, settings.height);
  return last;
}

}  // namespace ptbench
