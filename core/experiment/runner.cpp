#include "core/experiment/runner.h"

#include <spdlog/spdlog.h>

#include <ctime>
#include <numeric>
#include <set>

#include "core/errors.h"
#include "core/experiment/image_output.h"
#include "core/experiment/report.h"
#include "core/experiment/statistics.h"
#include "core/integrators/create.h"
#include "core/integrators/film.h"
#include "core/integrators/options.h"
#include "core/scene/builtin_scenes.h"
#include "core/vk/check.h"

namespace ptbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The backends a configured name stands for on this device; empty with a reason when none.
std::vector<std::string> resolveBackends(const vk::DeviceCapabilities& device, IntegratorKind integrator,
                                         const std::string& configured, const std::vector<std::string>& named,
                                         std::string& reason) {
  // megakernel-ser has one backend: "auto" and "all" mean it, where the device has it.
  if (integrator == IntegratorKind::MegakernelSer && (configured == "auto" || configured == "all")) {
    if (configured == "all" && std::find(named.begin(), named.end(), backendName(Backend::Pipeline)) != named.end())
      return {};
    if (device.supports(Backend::Pipeline)) return {std::string(backendName(Backend::Pipeline))};
    reason = unsupportedReason(integrator, device.supports(Backend::RayQuery) ? Backend::RayQuery : Backend::Software,
                               RenderSettings{}, device);
    return {};
  }
  if (configured == "all") {
    // Every backend the device has that the config does not name as well: `all` and `software`
    // in one list run the software runs once.
    std::vector<std::string> supported;
    for (Backend backend : device.supportedBackends())
      if (std::find(named.begin(), named.end(), backendName(backend)) == named.end())
        supported.emplace_back(backendName(backend));
    if (device.supportedBackends().empty()) reason = device.name + " supports no backend";
    return supported;
  }
  try {
    return {std::string(backendName(resolveBackend(device, configured)))};
  } catch (const UserError& error) {
    reason = error.what();
    return {};
  }
}

bool enoughFrames(const Repetition& repetition, const std::vector<double>& frames, Clock::time_point start) {
  if (repetition.repeats) return frames.size() >= *repetition.repeats;
  if (millisecondsSince(start) >= repetition.timeoutSeconds * 1000.0) return true;
  return frames.size() >= repetition.minSamples && summarize(frames).cv <= repetition.maxNoise;
}

fs::path createResultsFolder(const fs::path& root, const std::string& name, const std::string& stamp) {
  const fs::path parent = root / name;
  try {
    fs::create_directories(parent);
    // Resolved (links followed, ".." taken), the results folder must still lie inside the
    // output folder: a name that is a link out of it, or any path trick, is refused.
    const fs::path resolvedRoot = fs::canonical(root), resolvedParent = fs::canonical(parent);
    if (resolvedParent.parent_path() != resolvedRoot)
      throw UserError("the results folder " + parent.string() + " resolves to " + resolvedParent.string() +
                      ", outside the output folder " + resolvedRoot.string() +
                      " (a link?); remove it or choose another --out");
    for (int attempt = 0; attempt < 100; ++attempt) {
      const fs::path folder = parent / (attempt == 0 ? stamp : stamp + "-" + std::to_string(attempt + 1));
      // create_directory is false when the folder already exists: never reuse one.
      if (fs::create_directory(folder)) return folder;
    }
  } catch (const fs::filesystem_error& error) {
    throw UserError("cannot create the results folder under " + parent.string() + ": " + error.code().message() +
                    " (choose another with --out)");
  }
  throw UserError("cannot create a new results folder under " + parent.string() + ": 100 exist for this second");
}

// Returns false when a stop was requested before the run had its frames.
bool measure(RunRecord& record, Integrator& integrator, const RenderSettings& settings, const ExperimentConfig& config,
             const fs::path& folder, const GpuMonitor& monitor, const LinearImage* reference,
             const std::function<bool()>& stop) {
  record.kernels = integrator.kernels();
  record.pipelineCreateMs = pipelineCreateMs(record.kernels);
  // Timed frames follow one another without the film's readback and resolve, which would keep
  // the GPU idle between them; one more frame, untimed, gives the image and the work counts
  // (identical in every frame: the sample stream is fixed).
  RenderSettings timedSettings = settings;
  timedSettings.readImage = false;
  const auto warmupStart = Clock::now();
  record.warmupFrames = 0;
  while (record.warmupFrames < config.warmup || millisecondsSince(warmupStart) < config.warmupSeconds * 1000.0) {
    if (stop()) return false;
    integrator.render(timedSettings);
    ++record.warmupFrames;
  }
  const auto start = Clock::now();
  FrameResult last;
  size_t frame = 0;
  do {
    if (stop()) return false;
    const std::optional<GpuSample> before = monitor.sample();
    last = integrator.render(timedSettings);
    if (const std::optional<GpuSample> after = monitor.sample(); before && after)
      record.frameGpuSamples.emplace_back(*before, *after);
    record.frameGpuMs.push_back(last.gpuMs);
    record.frameHostMs.push_back(last.hostMs);
    double stagesMs = 0;
    for (auto& stage : record.stages) {  // a stage this frame lacks counts 0 in it
      stage.gpuMs.push_back(0);
      for (auto& step : stage.stepGpuMs) step.push_back(0);
      stage.launchesPerFrame = 0;
    }
    for (const auto& timing : last.stages) {
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
    if (timedSettings.stageTimestamps) record.frameOverheadMs.push_back(last.gpuMs - stagesMs);
    ++frame;
  } while (!enoughFrames(config.repetition, record.frameGpuMs, start));
  if (stop()) return false;
  last = integrator.render(settings);
  record.work = last.work;
  record.steps = last.steps;
  record.invalidSamples = last.invalidSamples;
  record.simt = last.simt;
  if (reference) {
    record.convergence = convergenceMetrics(last.image, *reference);
    if (!record.convergence)
      record.convergenceProblem = "the reference is " + std::to_string(reference->width) + "x" +
                                  std::to_string(reference->height) + ", the run renders " +
                                  std::to_string(settings.width) + "x" + std::to_string(settings.height) +
                                  ": render a reference of the run's size (ptbench reference)";
  }
  record.wavefrontStateBytes = last.stateBytes;
  record.launchesPerFrame = last.launches;
  if (last.invalidSamples > 0)
    spdlog::warn("run {}: {} invalid sample(s) a frame (NaN, infinite, negative or >= 1e12), counted as black",
                 record.id, last.invalidSamples);
  record.filmBytes = Film::deviceBytes(settings.width, settings.height);
  if (config.images) {
    record.png = runImageName(record.id, record.scene, integratorName(record.spec.integrator), record.backend, ".png");
    record.exr = runImageName(record.id, record.scene, integratorName(record.spec.integrator), record.backend, ".exr");
    writePng(folder / record.png, last.image, config.exposure);
    writeExr(folder / record.exr, last.image);
  }
  return true;
}

}  // namespace

namespace {

std::string formatUtc(std::chrono::system_clock::time_point time, const char* format) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

}  // namespace

void keepFinishedRuns(std::vector<RunRecord>& runs, const nlohmann::json& previous) {
  // By place in the sweep and parameters both: one scene listed twice (another camera, say)
  // gives runs of equal parameters at different places.
  auto key = [](size_t sweepIndex, size_t variant, const std::string& parameters) {
    return std::to_string(sweepIndex) + "/" + std::to_string(variant) + " " + parameters;
  };
  std::map<std::string, const nlohmann::json*> finished;
  if (!previous.contains("runs")) return;
  for (const auto& run : previous.at("runs"))  // the report's own runs: `finished` points into them
    if (run.value("status", "") == "ok" || run.value("status", "") == "error")
      finished[key(run.value("sweep_index", size_t{0}), run.value("variant", size_t{0}), runKey(run))] = &run;
  for (RunRecord& record : runs) {
    const auto found = finished.find(
        key(record.sweepIndex, record.variant, runKey(nlohmann::json{{"parameters", runParametersJson(record)}})));
    if (found == finished.end()) continue;
    record.kept = *found->second;
    if ((*found->second)["status"] == "error") record.error = (*found->second).value("error", "error");
  }
}

std::string utcStamp(std::chrono::system_clock::time_point time) {
  return formatUtc(time, "%Y%m%dT%H%M%SZ");
}
std::string isoUtc(std::chrono::system_clock::time_point time) {
  return formatUtc(time, "%Y-%m-%dT%H:%M:%SZ");
}

ExperimentResult runExperiment(const ExperimentConfig& config, const RunnerOptions& options) {
  ExperimentResult result;
  result.config = config;
  result.validation = options.validate;
  const auto now = std::chrono::system_clock::now();
  result.startedUtc = isoUtc(now);
  const std::string deviceSelector = options.device.empty() ? config.device : options.device;
  result.device = vk::selectDevice(deviceSelector);
  if (!options.resumeFolder.empty()) {
    // Kept runs were measured on the report's device: the rest must be too.
    const nlohmann::json was = options.resumeReport.value("device", nlohmann::json::object());
    if (was.value("name", "") != result.device.name || was.value("driver_info", "") != result.device.driverInfo)
      throw UserError("--resume " + options.resumeFolder.string() + ": its runs ran on " + was.value("name", "?") +
                      " (driver " + was.value("driver_info", "?") + "), this is " + result.device.name + " (driver " +
                      result.device.driverInfo + "); resume on that device, or start the sweep again");
  }

  // Every run, its backend resolved against the device; unresolvable ones are error records.
  std::set<Backend> needed;
  std::set<std::string> notes;
  const std::vector<RunSpec> specs = expandSweep(config);
  result.shard = options.shard;
  result.sweepSpecs = specs.size();
  if (options.shard) {
    result.shardSpecs = shardSpecs(specs, *options.shard);
  } else {
    result.shardSpecs.resize(specs.size());
    std::iota(result.shardSpecs.begin(), result.shardSpecs.end(), size_t{0});
  }
  for (const size_t sweepIndex : result.shardSpecs) {
    const RunSpec& spec = specs[sweepIndex];
    size_t variant = 0;
    std::string reason;
    const auto backends = resolveBackends(result.device, spec.integrator, spec.backend, config.backends, reason);
    auto add = [&](const std::string& backend, const std::string& error) {
      // integrators: ["all"] means those the device can run: megakernel-ser where it has SER.
      if (!error.empty() && config.integratorsAll && spec.integrator == IntegratorKind::MegakernelSer) {
        notes.insert("megakernel-ser skipped: " + error);
        return;
      }
      RunRecord record;
      record.id = runId(result.runs.size());
      record.spec = spec;
      record.scene = config.scenes[spec.scene].spec;
      record.backend = backend;
      record.error = error;
      record.sweepIndex = sweepIndex;
      record.variant = variant++;
      result.runs.push_back(record);
    };
    if (backends.empty() && !reason.empty()) add(spec.backend, reason);
    for (const auto& name : backends) {
      const Backend backend = *parseBackend(name);
      // A named backend took its options in expandSweep; "auto" and "all" take them here.
      const std::vector<RenderSettings> variants =
          parseBackend(spec.backend) ? std::vector{spec.settings} : withBackendOptions(config, backend, spec.settings);
      for (const RenderSettings& settings : variants) {
        const std::string unsupported = unsupportedReason(spec.integrator, backend, settings, result.device);
        const size_t before = result.runs.size();
        add(name, unsupported);
        if (result.runs.size() == before) continue;
        RunRecord& added = result.runs.back();
        added.spec.settings = settings;
        if (spec.integrator == IntegratorKind::Wavefront) {
          // The default pool is the device's: reports and run keys carry the size it came to.
          added.wavefrontPoolReason = resolveWavefrontPool(added.spec.settings, result.device).reason;
        }
        if (unsupported.empty()) needed.insert(backend);
      }
    }
  }
  result.notes.assign(notes.begin(), notes.end());
  for (const std::string& note : result.notes) spdlog::info("{}", note);
  if (!options.resumeFolder.empty()) keepFinishedRuns(result.runs, options.resumeReport);

  const fs::path root = options.outputRoot.empty() ? config.output : options.outputRoot;
  result.folder =
      options.resumeFolder.empty() ? createResultsFolder(root, config.name, utcStamp(now)) : options.resumeFolder;
  const auto checkpoint = [&] {
    if (!options.checkpoint) return;
    result.complete = false;
    options.checkpoint(result);
  };
  checkpoint();
  vk::Context context(vk::ContextOptions{.validation = options.validate,
                                         .deviceSelector = deviceSelector,
                                         .backends = std::vector<Backend>(needed.begin(), needed.end()),
                                         .submitTimeoutSeconds = options.gpuTimeoutSeconds});

  const GpuMonitor monitor(result.device.uuid);
  result.gpuIdentity = monitor.identity();
  const size_t total = result.runs.size();
  const std::function<bool()> stop = [&] { return options.stopRequested && options.stopRequested(); };
  for (size_t sceneIndex = 0; sceneIndex < config.scenes.size(); ++sceneIndex) {
    if (context.lost()) break;
    std::vector<RunRecord*> sceneRuns;
    for (auto& record : result.runs)
      if (record.spec.scene == sceneIndex && record.ok() && !record.kept) sceneRuns.push_back(&record);
    if (sceneRuns.empty()) continue;
    if (stop()) {
      for (RunRecord* record : sceneRuns) record->interrupted = true;
      continue;
    }
    const SceneEntry& entry = config.scenes[sceneIndex];
    std::unique_ptr<SceneData> scene;
    std::unique_ptr<GpuScene> gpuScene;
    const auto loadStart = Clock::now();
    std::set<BvhLayout> softwareLayouts;
    for (const RunRecord* record : sceneRuns)
      if (record->backend == backendName(Backend::Software)) softwareLayouts.insert(record->spec.settings.softwareBvh);
    std::optional<LinearImage> reference;
    try {
      if (entry.reference) reference = readLinearImage(*entry.reference);
      scene = std::make_unique<SceneData>(loadScene(entry.load));
      applySceneEntry(entry, *scene);
      gpuScene = std::make_unique<GpuScene>(context, *scene,
                                            std::vector<BvhLayout>(softwareLayouts.begin(), softwareLayouts.end()));
    } catch (const std::exception& error) {
      for (RunRecord* record : sceneRuns) record->error = error.what();
      checkpoint();
      continue;
    }
    const double loadMs = millisecondsSince(loadStart);
    for (RunRecord* record : sceneRuns) {
      if (context.lost()) break;
      if (stop()) {
        record->interrupted = true;
        continue;
      }
      const size_t index = size_t(record - result.runs.data());
      if (options.progress) options.progress(index, total, *record, false);
      record->sceneLoadMs = loadMs;
      record->unshadedExtensions = scene->unshadedExtensions;
      record->materialClassTriangles = materialClassTrianglesByName(*scene);
      record->sceneBufferBytes = gpuScene->bufferBytes();
      record->sceneTextureBytes = gpuScene->textureBytes();
      record->accelerationStructureBytes =
          gpuScene->accelerationStats().blasBytes + gpuScene->accelerationStats().tlasBytes;
      if (record->backend == backendName(Backend::Software)) {
        record->softwareBvh = gpuScene->softwareBvhStats();
        record->accelerationStructureBytes = gpuScene->softwareBvhBytes(record->spec.settings.softwareBvh);
        if (const std::string& error = gpuScene->softwareBvhError(record->spec.settings.softwareBvh); !error.empty()) {
          record->error = error;
          if (options.progress) options.progress(index, total, *record, true);
          continue;
        }
      }
      try {
        RenderSettings settings = record->spec.settings;
        settings.camera = cameraFor(entry, *scene);
        if (entry.environment) settings.environment = *entry.environment;
        const auto integrator =
            createIntegrator(record->spec.integrator, context, *gpuScene,
                             TraceTarget(*parseBackend(record->backend), settings.softwareBvh), settings);
        record->interrupted = !measure(*record, *integrator, settings, config, result.folder, monitor,
                                       reference ? &*reference : nullptr, stop);
      } catch (const vk::VulkanError& error) {
        record->error = error.what();
      } catch (const UserError& error) {
        record->error = error.what();
      } catch (const std::exception& error) {
        // A broken invariant ends this run, not the sweep: the report still gets written.
        record->error = std::string("internal error: ") + error.what();
      }
      if (options.progress) options.progress(index, total, *record, true);
      checkpoint();
    }
  }
  result.complete =
      std::none_of(result.runs.begin(), result.runs.end(), [](const RunRecord& r) { return r.interrupted; });
  for (const auto& record : result.runs)
    if (!record.ok() && !record.interrupted)
      spdlog::error("run {} ({}, {}, {}) failed: {}", record.id, record.scene, integratorName(record.spec.integrator),
                    record.backend, record.error);
  // After a lost or hung device nothing more could run: say so rather than leave runs empty.
  if (context.lost()) {
    size_t notRun = 0;
    // Not finished, so interrupted: --resume runs them again on a working device.
    for (RunRecord& record : result.runs)
      if (record.ok() && !record.kept && record.frameGpuMs.empty()) {
        record.error = "not run: the device was lost or hung (see the first failed run)";
        record.interrupted = true;
        ++notRun;
      }
    result.complete = false;
    if (notRun > 0) spdlog::error("{} run(s) not run: the device was lost or hung", notRun);
  }
  result.validationMessages = context.validationMessageCount();
  if (result.validationMessages > 0)
    spdlog::error("{} validation message(s) during the experiment", context.validationMessageCount());
  return result;
}

}  // namespace ptbench
