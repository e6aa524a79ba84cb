// The result model: what a sweep's runs measured, as the runner fills it in and reports, merge
// and summaries read it. Below all of them: it knows nothing of how runs are planned or measured.
#pragma once
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/convergence.h"
#include "core/experiment/gpu_monitor.h"
#include "core/experiment/shard.h"
#include "core/experiment/sweep.h"
#include "core/integrators/kernel.h"
#include "core/scene/bvh/software_bvh.h"
#include "core/vk/context.h"

namespace ptbench {

struct RunRecord {
  std::string id;  // r000, r001, ... in sweep order
  // Where the run sits in the whole sweep, whatever shard ran it: its spec's index in
  // expandSweep, and its place among the backends and backend options that spec resolved to.
  // `merge` orders shards' runs by them, as one process would have.
  size_t sweepIndex = 0;
  size_t variant = 0;
  RunSpec spec;
  std::string scene;                    // as written in the config
  std::string cameraPath;               // its entry's camera path (cameraPathText); empty for a fixed camera
  std::string backend;                  // resolved (rayquery, pipeline, ...), or as configured when resolving failed
  std::optional<Backend> traceBackend;  // the backend resolved; none when resolving failed
  std::string error;                    // empty when the run succeeded
  bool interrupted = false;             // stopped by Ctrl-C/SIGTERM before it finished, or never started
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
  std::vector<StageRecord> stages;    // in the order they first ran
  WorkCounts work;                    // per frame (identical every frame: the sample stream is fixed)
  std::vector<StepWork> steps;        // the wavefront's work per bounce or iteration, last frame
  uint64_t invalidSamples = 0;        // NaN or infinite samples, last frame
  std::optional<SimtCounts> simt;     // counters: simt, last frame
  std::optional<ClockCounts> clocks;  // counters: clocks, last frame
  // Against the scene's reference image, where it has one: the metrics, or why there are none.
  std::optional<ConvergenceMetrics> convergence;
  std::string convergenceProblem;
  // A camera path's frames in order, as frameGpuMs times them (empty for a fixed camera): each
  // one's error against its own reference, where the scene has them, and its image files.
  struct PathFrame {
    std::optional<ConvergenceMetrics> convergence;
    std::string png, exr;
  };
  std::vector<PathFrame> pathFrames;
  uint64_t wavefrontStateBytes = 0;
  std::string wavefrontPoolReason;  // why options.pool_size is what it is (the default's derivation)
  uint64_t launchesPerFrame = 0;    // kernel launches in the last frame, every stage
  double pipelineCreateMs = 0;
  double wallMs = 0;  // the run on the host, from its integrator's creation to its last image written
  std::vector<KernelStatistics> kernels;  // the integrator's, with the driver's statistics
  double sceneLoadMs = 0;
  std::vector<std::string> unshadedExtensions;  // SceneData::unshadedExtensions of its scene
  std::vector<std::string> notes;               // what its reader should know of it (an unlit scene)
  // Triangles (as instanced) of each material class the scene uses, by materialClassName.
  std::map<std::string, uint64_t> materialClassTriangles;
  // accelerationStructureBytes: the hardware backends' BLASes and TLAS, or the software BVH's
  // layout this run traversed.
  uint64_t sceneBufferBytes = 0, sceneTextureBytes = 0, accelerationStructureBytes = 0, filmBytes = 0;
  std::optional<SoftwareBvhStats> softwareBvh;  // the scene's build, when a software run asked for it
  std::string png, exr;                         // file names inside the results folder (a path's last frame's)

  // run --resume: the run as a previous report has it, finished there (ok or error); kept as is.
  std::optional<nlohmann::json> kept;

  bool ok() const { return error.empty() && !interrupted; }
  // A run neither measured, failed nor kept yet (a checkpoint's report is written mid-sweep) is
  // "interrupted": not finished.
  std::string status() const {
    if (kept) return kept->value("status", "error");
    if (interrupted || (error.empty() && frameGpuMs.empty())) return "interrupted";
    return error.empty() ? "ok" : "error";
  }
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
  std::optional<Shard> shard;      // --shard K/N
  size_t sweepSpecs = 0;           // expandSweep's runs in the whole sweep
  std::vector<size_t> shardSpecs;  // those this shard ran (all of them without --shard)
  bool complete = true;            // false when a stop was requested before every run finished
};

}  // namespace ptbench
