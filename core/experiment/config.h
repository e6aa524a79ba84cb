// Experiment configs: parsing, validation (every error in one pass) and sweep expansion.
// The format is documented in docs/config.md and configs/schema.json.
#pragma once
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/integrators/integrator.h"
#include "core/json_depth.h"
#include "core/scene/builtin_scenes.h"

namespace ptbench {

// Exit codes of the sysexits convention, as docs/cli.md documents them.
constexpr int exitConfigInvalid = 65;  // EX_DATAERR: the config is wrong
constexpr int exitConfigMissing = 66;  // EX_NOINPUT: the config file cannot be read

// A camera that moves (a scene entry's camera.path, docs/config.md): keyframes, or a glTF
// animation of the scene's camera node; a run renders `frames` frames of it, frame k at time k / fps.
struct CameraPathSpec {
  struct Keyframe {
    double time = 0;  // seconds
    Vec3 position;
    std::optional<Vec3> target, up;  // a view towards target, or
    std::optional<Quat> rotation;    // glTF's camera frame (looking down -Z) rotated
    // What a keyframe leaves out is the entry's fixed camera's (fov, aperture; the focus: the target's distance).
    std::optional<float> fovDegrees, aperture, focusDistance;
  };
  std::vector<Keyframe> keyframes;
  std::optional<uint32_t> animationIndex;  // or
  std::optional<std::string> animationName;
  PathInterpolation interpolation = PathInterpolation::CatmullRom;
  double fps = 30;
  uint32_t frames = 0;
};

// The most frames a camera path may have a run render.
constexpr uint32_t maxPathFrames = 100000;

struct SceneEntry {
  std::string spec;  // as written: a path or builtin:...
  std::string load;  // what loadScene takes: the resolved path, or the builtin spec
  std::optional<Vec3> cameraPosition, cameraTarget, cameraUp;
  std::optional<float> fovDegrees;
  std::optional<float> aperture, focusDistance;  // a thin lens (Camera::aperture)
  std::optional<Vec3> environment;
  // A directional light added to the scene: the direction its light travels, and the
  // irradiance it delivers head-on (glTF's directional light, lux).
  std::optional<Vec3> sunDirection, sunIrradiance;
  // An environment map (env as an object): the Radiance file, resolved, its scale and rotation.
  struct EnvironmentFile {
    std::filesystem::path file;
    float intensity = 1;
    float rotationDegrees = 0;
    bool uniformSampling = false;  // EnvironmentMap::uniformSampling
  };
  std::optional<EnvironmentFile> environmentMap;
  // Materials made car paint: an index or a glob on their names (applyCarPaintOverride), and
  // the paint's noise octaves.
  struct MaterialOverride {
    std::string match;
    uint32_t cost = defaultCarPaintCost;
  };
  std::optional<MaterialOverride> materialOverride;
  std::optional<CameraPathSpec> cameraPath;
  // A converged image of this scene (ptbench reference): its runs report their error against it.
  // With a camera path, the name its frames' references carry their index in
  // (frameReferencePath): each frame's error is against its own.
  std::optional<std::filesystem::path> reference;
};

// The scene's own (or framing) camera with the entry's overrides applied.
Camera cameraFor(const SceneEntry& entry, const SceneData& scene);

// The camera of each frame of the entry's path, frame k at time k / fps; none when its camera
// is fixed. A UserError names a glTF animation the scene lacks.
std::vector<Camera> cameraPathFrames(const SceneEntry& entry, const SceneData& scene);

// The entry's camera path in a few words, for reports, labels and run keys: the animation or the
// number of keyframes, the frames, fps and interpolation, and a short hash of the keyframes that
// tells two paths of the same counts apart ("3 keyframes 3f1a9c0e, 25 frames at 12 fps,
// catmull-rom"); empty for a fixed camera.
std::string cameraPathText(const SceneEntry& entry);

// A camera path from a JSON file of its own (`reference --camera-path`, or a config's
// camera.path given as a file name): validated as a config's, every problem in one UserError.
CameraPathSpec readCameraPathFile(const std::filesystem::path& file);

// What the entry changes in the scene: its sun, appended to the scene's punctual lights, its
// environment map, loaded (a UserError names a file that cannot be read), and its material
// override (a UserError when it matches no material).
void applySceneEntry(const SceneEntry& entry, SceneData& scene);

// Why the entry's scene, its entry applied, renders black: nothing in it emits light (no emissive
// material, no punctual or sun light, no environment); empty where something does. Many glTF
// files are made to be lit by their viewer and carry no light of their own.
std::string unlitSceneWarning(const SceneEntry& entry, const SceneData& scene);

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

// One point of the sweep. The backend is as configured ("auto" and "all" are resolved
// against the device by the runner).
struct RunSpec {
  size_t scene = 0;  // index into ExperimentConfig::scenes
  IntegratorKind integrator{};
  std::string backend;
  RenderSettings settings;  // camera and environment filled in by the runner
};

// Parses JSON as configs and reports are read: a syntax error, a number no double holds, a key
// given twice in one object or nesting deeper than maxJsonDepth (named by its JSON pointer) is a
// UserError naming `source`, with `exitCode`.
nlohmann::json parseJsonRefusingDuplicateKeys(std::istream& in, const std::string& source, int exitCode);
nlohmann::json parseJsonRefusingDuplicateKeys(const std::string& text, const std::string& source, int exitCode);

// The keys a config may have at its top level (configs/schema.json lists the same).
const std::set<std::string>& configKeys();

// Reads and validates a config; --set overrides ("key=value", value as JSON or a bare
// string; dotted keys reach into objects) apply first. Throws UserError with every problem
// found, each naming the file and the JSON pointer.
ExperimentConfig loadConfig(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// How many runs expandSweep makes, counted without making them.
// A config given as JSON (a report's resolved one, for run --resume); `file` is where its
// relative paths resolve from and what messages name.
ExperimentConfig configFromJson(nlohmann::json config, const std::filesystem::path& file);

// The runs expandSweep would make, counted without making them; the largest uint64_t when they
// are more than 64 bits count.
uint64_t sweepSize(const ExperimentConfig& config);

// The counters axis of `integrator`'s runs: the config's, or only off for the raycast, which has
// no shading point to count at.
std::vector<Counters> countersAxis(const ExperimentConfig& config, IntegratorKind integrator);
// The timing axis likewise: the config's for the path tracers, stages only for the raycast.
std::vector<bool> timingAxis(const ExperimentConfig& config, IntegratorKind integrator);

// The cartesian product of every list-valued parameter, scenes outermost. Runs on backend
// "all" take their backend options when the runner resolves them (withBackendOptions).
std::vector<RunSpec> expandSweep(const ExperimentConfig& config);

// `settings` under every combination of the options configured for `backend`.
std::vector<RenderSettings> withBackendOptions(const ExperimentConfig& config, Backend backend,
                                               const RenderSettings& settings);

}  // namespace ptbench
