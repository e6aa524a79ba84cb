// Runs an experiment: each scene loaded and uploaded once, pipelines created outside the timed
// frames, warm-up frames dropped, repeats until the repetition policy is met. A run that fails
// becomes an error record and the sweep goes on.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/record.h"
#include "core/integrators/integrator.h"
#include "core/scene/gpu_scene.h"

namespace ptbench {

// Where a run is when the runner reports its progress: starting, between two of its frames (the
// record holds the frames so far), or finished (measured, failed or interrupted).
enum class RunPhase { Started, BetweenFrames, Finished };

struct RunnerOptions {
  std::string device;  // --device; overrides the config's device
  bool validate = false;
  double gpuTimeoutSeconds = 0;      // --gpu-timeout (0: no limit)
  unsigned sceneThreads = 0;         // --threads: a scene's load and software BVH build (0: every hardware thread)
  std::optional<Shard> shard;        // --shard K/N: only that part of the sweep
  std::filesystem::path outputRoot;  // --out; overrides the config's output folder
  // Called once the sweep is planned, with every run, before any runs: labels can then name the
  // settings that differ between them.
  std::function<void(const std::vector<RunRecord>&)> planned;
  // Called before each run (index, count, record), between its frames and after it; for progress display.
  std::function<void(size_t, size_t, const RunRecord&, RunPhase)> progress;
  // Asked between frames and runs; true stops the sweep, keeping what has finished.
  std::function<bool()> stopRequested;
  // Called once the runs are planned and after each finishes, with complete false: the caller
  // writes the report, so that a killed process loses at most the run in flight.
  std::function<void(const ExperimentResult&)> checkpoint;
  // run --resume: the results folder to continue, and its report. Its finished runs are kept,
  // the others run; the folder's report is rewritten. The caller holds the folder's FolderLock
  // from before it read the report.
  std::filesystem::path resumeFolder;
  nlohmann::json resumeReport;
};

// A scene of a config, ready for its runs: loaded, its entry applied (sun, environment map,
// material override), uploaded with the software BVH layouts its runs traverse. Throws what
// loading throws (UserError naming the file).
struct PreparedScene {
  std::unique_ptr<SceneData> data;
  std::unique_ptr<GpuScene> gpu;
};
// The scene read or generated with its entry applied: no GPU work, so that a bad scene is
// reported before any device is created.
std::unique_ptr<SceneData> loadSceneData(const SceneEntry& entry, unsigned threads);
// `data` uploaded, with the software BVH layouts that those of `runs` on the software backend
// traverse, built on `bvhThreads` threads (0: every hardware thread).
PreparedScene uploadScene(const vk::Context& context, std::unique_ptr<SceneData> data,
                          const std::vector<const RunRecord*>& runs, unsigned bvhThreads);

// A planned run's integrator, created for its backend and options, and the settings its frames
// take (the run's, with its scene's camera, a path's first frame's, and environment).
struct PreparedRun {
  RenderSettings settings;
  std::vector<Camera> pathCameras;  // each frame's along the entry's camera path; empty for a fixed camera
  std::unique_ptr<Integrator> integrator;
};
PreparedRun prepareRun(const vk::Context& context, const RunRecord& run, const SceneEntry& entry,
                       const PreparedScene& scene);

// Creates results/<name>/<UTC stamp>/ (never reusing an existing folder), runs every point of
// the sweep, writes images as it goes, and returns the records; the caller writes the report.
ExperimentResult runExperiment(const ExperimentConfig& config, const RunnerOptions& options);

// run --resume: the runs `previous` (a report) finished are kept as it has them, matched by
// their place in the sweep (sweep_index, variant) and their parameters; the others will run,
// those that failed there too. A finished run that matches none of `runs` is a UserError
// naming `source` (exit 65): resuming would lose it.
struct ResumedRuns {
  size_t kept = 0;     // finished runs kept
  size_t retried = 0;  // runs that failed there, to run again
};
ResumedRuns keepFinishedRuns(std::vector<RunRecord>& runs, const nlohmann::json& previous, const std::string& source);

// The folder name for a run started at `time`: 20261122T031500Z.
std::string utcStamp(std::chrono::system_clock::time_point time);
std::string isoUtc(std::chrono::system_clock::time_point time);

}  // namespace ptbench
