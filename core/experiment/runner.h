// Runs an experiment: each scene loaded and uploaded once, pipelines created outside the timed
// frames, warm-up frames dropped, repeats until the repetition policy is met. A run that fails
// becomes an error record and the sweep goes on.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/config.h"
#include "core/experiment/convergence.h"
#include "core/experiment/gpu_monitor.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/vk/context.h"

namespace ptbench {

struct RunRecord {
  std::string id;  // r000, r001, ... in sweep order
  RunSpec spec;
  std::string scene;         // as written in the config
  std::string backend;       // resolved (rayquery, pipeline, ...), or as configured when resolving failed
  std::string error;         // empty when the run succeeded
  bool interrupted = false;  // stopped by Ctrl-C/SIGTERM before it finished, or never started
  uint32_t warmupFrames = 0;
  std::vector<double> frameGpuMs;       // every measured frame
  std::vector<double> frameHostMs;      // submit to fence, beside the GPU time
  std::vector<double> frameOverheadMs;  // frame - sum of its stages
  // NVML's samples before and after each measured frame (empty without NVML): the frame's SM
  // clock is their mean, and it was throttled if either saw a throttling reason.
  std::vector<std::pair<GpuSample, GpuSample>> frameGpuSamples;
  struct StageRecord {
    Stage stage;
    std::vector<double> gpuMs;                   // each frame's total over every step
    std::vector<std::vector<double>> stepGpuMs;  // [step][frame]; a step a frame lacks counts 0
    uint32_t launchesPerFrame = 0;               // in the last frame
  };
  std::vector<StageRecord> stages;  // in the order they first ran
  WorkCounts work;                  // per frame (identical every frame: the sample stream is fixed)
  std::vector<StepWork> steps;      // the wavefront's work per bounce or iteration, last frame
  uint64_t invalidSamples = 0;      // NaN or infinite samples, last frame
  std::optional<SimtCounts> simt;   // counters: simt, last frame
  // Against the scene's reference image, where it has one: the metrics, or why there are none.
  std::optional<ConvergenceMetrics> convergence;
  std::string convergenceProblem;
  uint64_t wavefrontStateBytes = 0;
  double pipelineCreateMs = 0;
  double sceneLoadMs = 0;
  std::vector<std::string> unshadedExtensions;  // SceneData::unshadedExtensions of its scene
  // Triangles (as instanced) of each material class the scene uses, by materialClassName.
  std::map<std::string, uint64_t> materialClassTriangles;
  // accelerationStructureBytes: the hardware backends' BLASes and TLAS, or the software BVH's
  // layout this run traversed.
  uint64_t sceneBufferBytes = 0, sceneTextureBytes = 0, accelerationStructureBytes = 0, filmBytes = 0;
  std::optional<SoftwareBvhStats> softwareBvh;  // the software backend's build, on its runs
  std::string png, exr;                         // file names inside the results folder

  bool ok() const { return error.empty() && !interrupted; }
  std::string status() const { return interrupted ? "interrupted" : error.empty() ? "ok" : "error"; }
};

struct ExperimentResult {
  ExperimentConfig config;
  vk::DeviceCapabilities device;
  std::optional<GpuIdentity> gpuIdentity;  // NVML's, where it knows the device
  bool validation = false;
  uint32_t validationMessages = 0;
  std::string startedUtc;  // ISO 8601
  std::filesystem::path folder;
  std::vector<RunRecord> runs;
  std::vector<std::string> notes;  // what the sweep left out and why (megakernel-ser without SER under "all")
  bool complete = true;            // false when a stop was requested before every run finished
};

struct RunnerOptions {
  std::string device;  // --device; overrides the config's device
  bool validate = false;
  double gpuTimeoutSeconds = 0;      // --gpu-timeout (0: no limit)
  std::filesystem::path outputRoot;  // --out; overrides the config's output folder
  // Called before each run (index, count, record) and after it; for progress display.
  std::function<void(size_t, size_t, const RunRecord&, bool finished)> progress;
  // Asked between frames and runs; true stops the sweep, keeping what has finished.
  std::function<bool()> stopRequested;
};

// Creates results/<name>/<UTC stamp>/ (never reusing an existing folder), runs every point of
// the sweep, writes images as it goes, and returns the records; the caller writes the report.
ExperimentResult runExperiment(const ExperimentConfig& config, const RunnerOptions& options);

// The folder name for a run started at `time`: 20261122T031500Z.
std::string utcStamp(std::chrono::system_clock::time_point time);
std::string isoUtc(std::chrono::system_clock::time_point time);

}  // namespace ptbench
