// What a config says, parsed and validated (config.h reads it): the data the sweep, the plan and
// the runner read.
#pragma once
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/experiment/scene_entry.h"
#include "core/integrators/integrator.h"

namespace ptbench {

struct Repetition {
  std::optional<uint32_t> repeats;  // fixed count; otherwise until min_samples and max_noise, or timeout
  uint32_t minSamples = 5;
  double maxNoise = 0.02;  // coefficient of variation of the frame time
  double timeoutSeconds = 30;
};

struct ExperimentConfig {
  std::filesystem::path file;
  nlohmann::json resolved;  // after --set, with every default filled in
  std::string name;
  std::filesystem::path output;
  std::string device;
  std::vector<SceneEntry> scenes;
  std::vector<IntegratorKind> integrators;
  bool integratorsAll = false;        // "all" named them: integrators a device cannot run are skipped, not errors
  std::vector<std::string> backends;  // auto, all, rayquery, pipeline or software
  // The frame sizes: width x height as a cross product, or the config's `resolution` list.
  std::vector<std::pair<uint32_t, uint32_t>> resolutions;
  std::vector<uint32_t> spps, maxDepths, rrDepths, seeds;
  std::vector<SamplerKind> samplers;
  std::vector<Counters> counters;     // counters: off, simt and/or clocks
  std::vector<bool> stageTimestamps;  // timing: stages (true) and/or frame (false)
  // options.<integrator>: each option's values, in the config's order (a list is a sweep axis).
  std::map<IntegratorKind, std::vector<std::pair<std::string, std::vector<nlohmann::json>>>> options;
  // options.<backend>: the same, for the runs on that backend (software: software_bvh).
  std::map<Backend, std::vector<std::pair<std::string, std::vector<nlohmann::json>>>> backendOptions;
  float exposure = 0;
  bool images = true;
  // A camera path's frames measure FLIP against their references every this many frames (frame
  // 0, flipEvery, 2 flipEvery, ...); 0, none. relMSE is measured on every frame.
  uint32_t flipEvery = 1;
  uint32_t warmup = 1;
  // Warm-up frames go on until this much time has passed too: a GPU idle between runs needs a
  // few hundred milliseconds of work to reach its clocks, which short frames take many to fill.
  double warmupSeconds = 0;
  Repetition repetition;
  uint32_t maxRuns = 0;        // a sweep may expand to at most this many runs
  double targetRelmse = 0.01;  // runs against a reference project their time to reach this relMSE
};

// Sweeps larger than this are refused unless the config raises max_runs: a list too many
// multiplies into runs that would take days, and it is cheaper to say so before any work.
constexpr uint32_t defaultMaxRuns = 10000;
// The largest max_runs a config may set.
constexpr uint32_t maxMaxRuns = 100'000'000;

}  // namespace ptbench
