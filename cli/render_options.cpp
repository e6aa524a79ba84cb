// The options `render` and `reference` share, and their one run, planned and prepared.
#include "cli/render_options.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/config.h"
#include "core/experiment/plan.h"
#include "core/experiment/runner.h"
#include "core/experiment/statistics.h"
#include "core/integrators/options.h"
#include "core/integrators/profile.h"
#include "core/integrators/registry.h"
#include "core/scene/builtin_scenes.h"
#include "core/trace/registry.h"

namespace ptbench::cli {
namespace {

// Coordinates and radiances: any finite float (a double beyond that range would be a float's infinity).
constexpr NumberRange coordinateRange{-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
constexpr NumberRange radianceRange{0, std::numeric_limits<float>::max()};

Vec3 toVec3(const std::vector<float>& v) {
  return {v[0], v[1], v[2]};
}

}  // namespace

void prepareRender(const GlobalOptions& global, RenderOptions options,
                   const std::function<void(const RenderOptions&, const PreparedRender&)>& use) {
  const auto integrator = parseIntegrator(options.integrator);
  if (!integrator)
    throw UserError("unknown integrator '" + options.integrator + "': use " + integratorNameList(allIntegrators));
  for (const auto& out : options.outputs) {
    if (!isImageExtension(out)) throw UserError("--out " + out + ": unknown image format; use .png, .exr or .pfm");
    requireOutputFolder(out, "--out");
  }
  if (options.reference && std::none_of(options.outputs.begin(), options.outputs.end(), [](const std::string& out) {
        const std::string extension = std::filesystem::path(out).extension().string();
        return extension == ".exr" || extension == ".pfm";
      }))
    throw UserError("--out: a reference is linear radiance; give an .exr or .pfm file");
  if (!options.varianceOutput.empty()) {
    const std::string extension = std::filesystem::path(options.varianceOutput).extension().string();
    if (extension != ".exr" && extension != ".pfm")
      throw UserError("--out-variance " + options.varianceOutput + ": a linear image; use .exr or .pfm");
    requireOutputFolder(options.varianceOutput, "--out-variance");
    // One file named twice (by its name, a link, or ../) would hold the variance alone.
    for (const auto& out : options.outputs) {
      std::error_code missing, unresolved;
      const bool same = std::filesystem::equivalent(out, options.varianceOutput, missing) ||
                        std::filesystem::weakly_canonical(out, unresolved) ==
                            std::filesystem::weakly_canonical(options.varianceOutput, unresolved);
      if (same && !unresolved)
        throw UserError("--out-variance " + options.varianceOutput + " is also --out " + out +
                        ": the variance would replace the image; name another file");
    }
  }
  // --env is a constant R,G,B when it reads as three numbers, else an environment map's file.
  std::optional<Vec3> constantEnvironment;
  if (!options.environment.empty()) {
    std::vector<float> rgb;
    std::stringstream parts(options.environment);
    for (std::string part; std::getline(parts, part, ',');) {
      char* end = nullptr;
      const float value = std::strtof(part.c_str(), &end);
      if (part.empty() || *end != '\0') {
        rgb.clear();
        break;
      }
      rgb.push_back(value);
    }
    if (rgb.size() == 3) {
      for (float value : rgb)
        if (!radianceRange.contains(value))
          throw UserError("--env " + options.environment + ": a constant radiance takes finite, non-negative numbers");
      constantEnvironment = toVec3(rgb);
    }
  }
  if (options.environmentSampling == "uniform" && (options.environment.empty() || constantEnvironment))
    throw UserError("--env-sampling uniform: samples an environment map; give one with --env FILE.hdr");
  if (options.materialCost != defaultCarPaintCost && options.materialOverride.empty())
    throw UserError("--material-cost: the cost of the car paint that --material-override makes; give that too");
  options.settings.sampler = options.sampler == "pcg" ? SamplerKind::Pcg : SamplerKind::Halton;
  for (Counters counters : allCounters)
    if (countersName(counters) == options.counters) options.settings.counters = counters;
  options.settings.stageTimestamps = options.timing == "stages";
  if (options.settings.counters == Counters::Simt && !isPathTracer(*integrator))
    throw UserError("--counters simt: counts at a path tracer's shading point; raycast has none");
  if (options.settings.counters == Counters::Clocks && !isPathTracer(*integrator))
    throw UserError(
        "--counters clocks: times a path tracer's phases (traversal, material, light); raycast only traces");
  if (!options.settings.stageTimestamps && !isPathTracer(*integrator))
    throw UserError("--timing frame: the raycast's measure is its trace stage, which only --timing stages times");
  // A config's "all" runs every backend; render draws one image.
  if (options.backend == "all")
    throw UserError("--backend all: one image is drawn on one backend; give auto or one of " +
                    trace::backendNameList(" or "));
  // The run as a one-run config, planned and prepared as the runner does; render keeps its printing.
  ExperimentConfig config;
  config.name = "render";
  config.integrators = {*integrator};
  config.backends = {options.backend};
  config.resolutions = {{options.settings.width, options.settings.height}};
  config.spps = {options.settings.samplesPerPixel};
  config.maxDepths = {options.settings.maxDepth};
  config.rrDepths = {options.settings.rrDepth};
  config.seeds = {options.settings.seed};
  config.samplers = {options.settings.sampler};
  config.counters = {options.settings.counters};
  config.stageTimestamps = {options.settings.stageTimestamps};
  // The first backend option given, which needs its backend: --option software_bvh=bvh2, say.
  std::optional<std::pair<std::string, Backend>> backendOptionGiven;
  for (const auto& assignment : options.integratorOptions) {
    const size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UserError("--option " + assignment + ": expected key=value, such as schedule=pool");
    const std::string key = assignment.substr(0, equals);
    const std::string text = assignment.substr(equals + 1);
    // The value as JSON (true, 1000), else as a bare string (pool).
    const nlohmann::json value = nlohmann::json::accept(text)
                                     ? parseJsonRefusingDuplicateKeys(text, "--option " + key, 1)
                                     : nlohmann::json(text);
    const std::optional<Backend> optionBackend = trace::backendWithOption(key);
    if (optionBackend && !backendOptionGiven) backendOptionGiven = {assignment, *optionBackend};
    RenderSettings scratch;  // checked here, as loadConfig checks a config's options
    if (const std::string problem = optionBackend ? applyBackendOption(*optionBackend, key, value, scratch)
                                                  : applyOption(*integrator, key, value, scratch);
        !problem.empty())
      throw UserError("--option " + assignment + ": " + problem);
    if (optionBackend)
      config.backendOptions[*optionBackend].emplace_back(key, std::vector{value});
    else
      config.options[*integrator].emplace_back(key, std::vector{value});
  }

  // The command line's overrides, as a config's scene entry would give them.
  SceneEntry entry{.spec = options.scene, .load = options.scene};
  if (!options.cameraPosition.empty()) entry.cameraPosition = toVec3(options.cameraPosition);
  if (!options.cameraTarget.empty()) entry.cameraTarget = toVec3(options.cameraTarget);
  if (!options.cameraUp.empty()) entry.cameraUp = toVec3(options.cameraUp);
  if (options.fov > 0) entry.fovDegrees = options.fov;
  if (options.aperture > 0) entry.aperture = options.aperture;
  if (options.focusDistance > 0) entry.focusDistance = options.focusDistance;
  if (!options.environment.empty() && !constantEnvironment)
    entry.environmentMap = SceneEntry::EnvironmentFile{.file = options.environment,
                                                       .intensity = options.environmentIntensity,
                                                       .rotationDegrees = options.environmentRotation,
                                                       .uniformSampling = options.environmentSampling == "uniform"};
  if (!options.materialOverride.empty())
    entry.materialOverride =
        SceneEntry::MaterialOverride{.match = options.materialOverride, .cost = options.materialCost};
  if (constantEnvironment) entry.environment = *constantEnvironment;
  if (!options.cameraPath.empty()) {
    if (!options.cameraPosition.empty() || !options.cameraTarget.empty())
      throw UserError("--camera-path: its keyframes place the camera; leave out --camera-position and --camera-target");
    entry.cameraPath = readCameraPathFile(options.cameraPath);
  }
  config.scenes = {entry};
  // Read before any device is chosen, so that a bad scene is reported as such on any machine.
  std::unique_ptr<SceneData> sceneData = loadSceneData(entry, global.threads);
  if (const std::string unlit = unlitSceneWarning(entry, *sceneData); !unlit.empty()) spdlog::warn("{}", unlit);

  const ExperimentPlan plan = planExperiment(config, vk::selectDevice(global.device));
  if (plan.runs.size() != 1) throw std::logic_error("render planned " + std::to_string(plan.runs.size()) + " runs");
  const RunRecord& run = plan.runs.front();
  if (!run.error.empty()) throw UserError(run.error);
  if (backendOptionGiven && run.traceBackend != backendOptionGiven->second) {
    const std::string name(backendName(backendOptionGiven->second));
    throw UserError("--option " + backendOptionGiven->first + ": an option of the " + name +
                    " backend; add --backend " + name);
  }
  vk::Context context(vk::ContextOptions{.validation = global.validate,
                                         .deviceSelector = global.device,
                                         .backends = trace::deviceNeeds({{*run.traceBackend}}),
                                         .submitTimeoutSeconds = global.gpuTimeoutSeconds});
  const PreparedScene scene = uploadScene(context, std::move(sceneData), {&run}, global.threads);
  const PreparedRun prepared = prepareRun(context, run, entry, scene);
  use(options, PreparedRender{.run = run,
                              .settings = prepared.settings,
                              .pathCameras = prepared.pathCameras,
                              .integrator = *prepared.integrator,
                              .context = context});
}

void addIntegratorOptions(CLI::App* command, const std::shared_ptr<RenderOptions>& options) {
  std::string optionHelp = "an integrator option, key=value, repeatable (a key given twice takes its last value)";
  for (IntegratorKind kind : allIntegrators) {
    if (integratorEntry(kind).options.empty()) continue;
    optionHelp += "; " + std::string(integratorName(kind)) + ":";
    for (const auto& option : integratorEntry(kind).options)
      optionHelp += "\n  " + option.info.name + " (" + option.info.accepted + "): " + option.info.description;
  }
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    if (backend->options.empty()) continue;
    optionHelp += "; " + std::string(backend->name) + " backend:";
    for (const trace::BackendOption& option : backend->options)
      optionHelp += "\n  " + std::string(option.name) + " (" + std::string(option.accepted) +
                    "): " + std::string(option.description);
  }
  command->add_option("--option", options->integratorOptions, optionHelp);
}

void addRenderOptions(CLI::App* command, const std::shared_ptr<RenderOptions>& options, bool reference) {
  const std::string sceneHelp =
      "a .gltf/.glb path or builtin:cornell|furnace[?material=M&roughness=R]|spheres?n=N&subdiv=S[&materials=M&cost=K]|"
      "manylights[?n=N]|room"
      " (spheres: M materials taken in turn from diffuse, car paint, metal, tinted glass, clearcoat, sheen; the car "
      "paint at K noise octaves, 0-32, default 8)";
  if (reference) {
    command->add_option("scene", options->scene, sceneHelp)->required();
    command
        ->add_option("--spp-per-frame", options->samplesPerReferenceFrame,
                     "samples per frame: the reference averages spp / this many frames, each with its own seed, "
                     "so that no submission runs long")
        ->capture_default_str()
        ->check(CLI::Range(1u, 1u << 16));
    command->add_option("--camera-path", options->cameraPath,
                        "a JSON file holding a camera path (as a config's camera.path): one reference a frame, "
                        "each output's name carrying the frame's index (ref.exr: ref-frame000.exr, ...)");
  } else {
    command->add_option("--scene", options->scene, sceneHelp)->required();
    command
        ->add_option("--integrator", options->integrator,
                     integratorNameList(allIntegrators, " or ", IntegratorNeeds::Named))
        ->capture_default_str();
    addIntegratorOptions(command, options);
  }
  command->add_option("--backend", options->backend, trace::backendChoicesHelp())->capture_default_str();
  command->add_option("--width", options->settings.width, "image width")
      ->capture_default_str()
      ->check(CLI::Range(1u, 16384u));
  command->add_option("--height", options->settings.height, "image height")
      ->capture_default_str()
      ->check(CLI::Range(1u, 16384u));
  command->add_option("--spp", options->settings.samplesPerPixel, "samples per pixel")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  command->add_option("--max-depth", options->settings.maxDepth, "most segments a path may have (1: emitters only)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  command->add_option("--rr-depth", options->settings.rrDepth, "Russian roulette from this segment on")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  command->add_option("--seed", options->settings.seed, "seed of the sample stream")
      ->capture_default_str()
      ->check(CLI::Range(0u, 0xffffffffu));
  command->add_option("--sampler", options->sampler, "halton (with Cranley-Patterson rotation) or pcg")
      ->capture_default_str()
      ->check(CLI::IsMember({"halton", "pcg"}));
  if (!reference) {
    command
        ->add_option("--timing", options->timing,
                     "stages: timestamps around every stage (the kernel profile); frame: the frame's two only, "
                     "to measure what timing each stage costs")
        ->capture_default_str()
        ->check(CLI::IsMember({"stages", "frame"}));
    command
        ->add_option("--counters", options->counters,
                     "simt: divergence counters at the shading point (SIMT utilisation and material coherence per "
                     "bounce); clocks: each kernel's time split into traversal, material, light and the rest by "
                     "subgroup clocks; both perturb the timing")
        ->capture_default_str()
        ->check(CLI::IsMember({"off", "simt", "clocks"}));
  }
  command->add_option("--env", options->environment,
                      "constant environment radiance R,G,B, or an equirectangular Radiance .hdr environment map (up "
                      "to 65536x32768 and 2^27 texels)");
  command->add_option("--env-intensity", options->environmentIntensity, "scales the environment map's radiance")
      ->capture_default_str()
      ->check(numberIn(environmentIntensityRange, "a non-negative scale of the map's radiance"));
  command->add_option("--env-rotation", options->environmentRotation, "turns the environment map about +Y, degrees")
      ->capture_default_str()
      ->check(numberIn(environmentRotationRange, "degrees about +Y"));
  command
      ->add_option("--env-sampling", options->environmentSampling,
                   "how light samples choose the map's directions: importance (by luminance) or uniform (the baseline)")
      ->capture_default_str()
      ->check(CLI::IsMember({"importance", "uniform"}));
  command->add_option("--material-override", options->materialOverride,
                      "makes car paint of the materials this index or name glob (e.g. '*Paint*') selects");
  command
      ->add_option(
          "--material-cost", options->materialCost,
          "the car paint's noise octaves (its shading cost), 0 to " + std::to_string(gpu::CAR_PAINT_MAX_OCTAVES))
      ->capture_default_str()
      ->check(CLI::Range(0u, gpu::CAR_PAINT_MAX_OCTAVES));
  for (const auto& [flag, coordinates] :
       {std::pair{"--camera-position", &options->cameraPosition}, std::pair{"--camera-target", &options->cameraTarget},
        std::pair{"--camera-up", &options->cameraUp}})
    command->add_option(flag, *coordinates, "x,y,z")
        ->delimiter(',')
        ->expected(3)
        ->check(numberIn(coordinateRange, "x,y,z, each a float"));
  command->add_option("--fov", options->fov, "vertical field of view in degrees")
      ->check(numberIn(fovRange, "a vertical field of view in degrees"));
  command->add_option("--aperture", options->aperture, "a thin lens's diameter in scene units (default 0: a pinhole)")
      ->check(numberIn(lensLengthRange, "a lens diameter in scene units"));
  command
      ->add_option("--focus-distance", options->focusDistance,
                   "distance of the plane in focus along the view (default: the camera target's)")
      ->check(numberIn(lensLengthRange, "a distance in scene units"));
  command
      ->add_option("--exposure", options->exposure, "PNG exposure in stops (radiance x 2^exposure, then ACES filmic)")
      ->capture_default_str()
      ->check(numberIn(exposureRange, "stops"));
  if (reference) {
    command->add_option("--out", options->outputs, "the reference: .exr or .pfm (linear), and .png to look at it")
        ->required();
    return;
  }
  command->add_option("--warmup", options->warmup, "frames rendered and dropped before the timed one")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1000u));
  command->add_option("--out", options->outputs, "image files: .png (tonemapped sRGB), .exr or .pfm (linear)");
  command->add_option("--out-variance", options->varianceOutput,
                      "the variance of each pixel's mean, .exr or .pfm: with it two renders can be compared pixel by "
                      "pixel in standard errors (scripts/compare_images.py)");
}

}  // namespace ptbench::cli
