#include "core/experiment/runner.h"

#include <spdlog/spdlog.h>

#include <ctime>
#include <numeric>
#include <set>

#include "core/elapsed.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/image_output.h"
#include "core/experiment/measure.h"
#include "core/experiment/plan.h"
#include "core/experiment/report.h"
#include "core/integrators/create.h"
#include "core/scene/builtin_scenes.h"
#include "core/trace/registry.h"
#include "core/vk/check.h"

namespace ptbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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

// `image` against `reference`, where there is one; a reference of another size is the run's
// convergence problem.
std::optional<ConvergenceMetrics> errorAgainst(RunRecord& record, const LinearImage& image,
                                               const RenderSettings& settings, const LinearImage* reference,
                                               WithFlip withFlip = WithFlip::Yes) {
  if (!reference) return std::nullopt;
  for (const auto& [what, checked] : {std::pair{"the run's image", &image}, std::pair{"the reference", reference}})
    if (const size_t bad = nonFiniteValues(*checked); bad > 0) {
      record.convergenceProblem = std::string(what) + " has " + std::to_string(bad) +
                                  " value(s) that are NaN or infinite: no error against the reference is measured";
      return std::nullopt;
    }
  std::optional<ConvergenceMetrics> metrics = convergenceMetrics(image, *reference, withFlip);
  if (!metrics)
    record.convergenceProblem = "the reference is " + std::to_string(reference->width) + "x" +
                                std::to_string(reference->height) + ", the run renders " +
                                std::to_string(settings.width) + "x" + std::to_string(settings.height) +
                                ": render a reference of the run's size (ptbench reference)";
  return metrics;
}

// The run's image files (frame k's of a camera path: frameImagePath), where the config keeps images.
void writeImages(RunRecord& record, const LinearImage& image, const ExperimentConfig& config, const fs::path& folder,
                 std::optional<uint32_t> pathFrame) {
  if (!config.images) return;
  for (auto [name, extension] : {std::pair{&record.png, ".png"}, std::pair{&record.exr, ".exr"}}) {
    *name = runImageName(record.id, record.scene, integratorName(record.spec.integrator), record.backend, extension);
    if (pathFrame) *name = frameImagePath(*name, *pathFrame).string();
  }
  writePng(folder / record.png, image, config.exposure);
  writeExr(folder / record.exr, image);
}

// The last frame's image against the scene's reference, where it has one, and the image files.
void keepImage(RunRecord& record, const FrameResult& last, const RenderSettings& settings,
               const ExperimentConfig& config, const fs::path& folder, const LinearImage* reference) {
  record.convergence = errorAgainst(record, last.image, settings, reference);
  writeImages(record, last.image, config, folder, std::nullopt);
}

// Frame k of a camera path: its error against its own reference (read now, so that one frame's
// is held at a time) and its image files.
void keepPathFrame(RunRecord& record, uint32_t frame, const FrameResult& result, const RenderSettings& settings,
                   const ExperimentConfig& config, const fs::path& folder, const SceneEntry& entry) {
  RunRecord::PathFrame kept;
  // A frame reference that cannot be read costs that frame's error, never the run's times.
  std::optional<LinearImage> reference;
  if (entry.reference) {
    const fs::path file = frameImagePath(*entry.reference, frame);
    try {
      reference = readLinearImage(file);
    } catch (const UserError& error) {
      record.convergenceProblem = "frame " + std::to_string(frame) + "'s reference " + file.string() +
                                  " could not be read (" + error.what() + "): no error is measured for that frame";
    }
  }
  if (reference) {
    const bool flipHere = config.flipEvery != 0 && frame % config.flipEvery == 0;
    kept.convergence =
        errorAgainst(record, result.image, settings, &*reference, flipHere ? WithFlip::Yes : WithFlip::No);
  }
  writeImages(record, result.image, config, folder, frame);
  kept.png = record.png;
  kept.exr = record.exr;
  record.pathFrames.push_back(kept);
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

ResumedRuns keepFinishedRuns(std::vector<RunRecord>& runs, const nlohmann::json& previous, const std::string& source) {
  // By place in the sweep and parameters both: one scene listed twice (another camera, say)
  // gives runs of equal parameters at different places.
  auto key = [](size_t sweepIndex, size_t variant, const std::string& parameters) {
    return std::to_string(sweepIndex) + "/" + std::to_string(variant) + " " + parameters;
  };
  std::map<std::string, const nlohmann::json*> finished;
  ResumedRuns resumed;
  if (!previous.contains("runs")) return resumed;
  for (const auto& run : previous.at("runs")) {  // the report's own runs: `finished` points into them
    const std::string status = run.value("status", "");
    // A failed run runs again: its failure (a full disk, a GPU timeout since raised) may be gone.
    if (status == "error") ++resumed.retried;
    if (status == "ok")
      finished[key(run.value("sweep_index", size_t{0}), run.value("variant", size_t{0}), runKey(run))] = &run;
  }
  for (RunRecord& record : runs) {
    const auto found = finished.find(
        key(record.sweepIndex, record.variant, runKey(nlohmann::json{{"parameters", runParametersJson(record)}})));
    if (found == finished.end()) continue;
    record.kept = *found->second;
    finished.erase(found);
    ++resumed.kept;
  }
  // A kept run keeps its id, which names its images: an incomplete merge numbers its runs
  // compactly, so the plan may give that id to a run still to do, whose images would replace
  // the finished run's. Such a run takes the first id no other run holds.
  std::set<std::string> taken;
  for (RunRecord& record : runs)
    if (record.kept) taken.insert(record.id = record.kept->value("id", record.id));
  size_t next = 0;
  for (RunRecord& record : runs) {
    if (record.kept) continue;
    if (taken.count(record.id)) {
      while (taken.count(runId(next))) ++next;
      record.id = runId(next);
    }
    taken.insert(record.id);
  }
  // A finished run that is no run of the sweep (the report's config edited, or another build's
  // plan) would be dropped from the report and its images written over by the run taking its id.
  if (!finished.empty()) {
    const nlohmann::json& run = *finished.begin()->second;
    throw UserError(source + ": its finished run " + run.value("id", "?") + " (" + runKey(run) + ") is no run of " +
                        "its config's sweep (was the report's config edited?), and " + std::to_string(finished.size()) +
                        " finished run(s) would be lost; start the sweep again in a new folder",
                    exitReportMalformed);
  }
  return resumed;
}

std::string utcStamp(std::chrono::system_clock::time_point time) {
  return formatUtc(time, "%Y%m%dT%H%M%SZ");
}
std::string isoUtc(std::chrono::system_clock::time_point time) {
  return formatUtc(time, "%Y-%m-%dT%H:%M:%SZ");
}

std::unique_ptr<SceneData> loadSceneData(const SceneEntry& entry, unsigned threads) {
  auto data = std::make_unique<SceneData>(loadScene(entry.load, threads));
  applySceneEntry(entry, *data);
  return data;
}

PreparedScene uploadScene(const vk::Context& context, std::unique_ptr<SceneData> data,
                          const std::vector<const RunRecord*>& runs, unsigned bvhThreads) {
  // Each builder asked for builds every layout asked for: runs rarely mix both.
  std::set<BvhLayout> softwareLayouts;
  std::set<BvhBuilder> softwareBuilders;
  for (const RunRecord* run : runs)
    if (trace::tracesSoftwareBvh(*run->traceBackend)) {
      softwareLayouts.insert(run->spec.settings.softwareBvh);
      softwareBuilders.insert(run->spec.settings.softwareBuilder);
    }
  PreparedScene prepared{.data = std::move(data)};
  prepared.gpu = std::make_unique<GpuScene>(
      context, *prepared.data, std::vector<BvhLayout>(softwareLayouts.begin(), softwareLayouts.end()), bvhThreads,
      std::vector<BvhBuilder>(softwareBuilders.begin(), softwareBuilders.end()));
  return prepared;
}

PreparedRun prepareRun(const vk::Context& context, const RunRecord& run, const SceneEntry& entry,
                       const PreparedScene& scene) {
  if (!run.traceBackend) throw std::logic_error("run " + run.id + " has no backend to prepare");
  PreparedRun prepared{.settings = run.spec.settings};
  prepared.settings.camera = cameraFor(entry, *scene.data);
  prepared.pathCameras = cameraPathFrames(entry, *scene.data);
  if (!prepared.pathCameras.empty()) prepared.settings.camera = prepared.pathCameras.front();
  if (entry.environment) prepared.settings.environment = *entry.environment;
  prepared.integrator =
      createIntegrator(run.spec.integrator, context, *scene.gpu,
                       TraceTarget(*run.traceBackend, prepared.settings.softwareBvh, prepared.settings.softwareBuilder),
                       prepared.settings);
  return prepared;
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
  ExperimentPlan plan = planExperiment(config, result.device, options.shard);
  result.runs = std::move(plan.runs);
  result.notes = std::move(plan.notes);
  result.shard = options.shard;
  result.sweepSpecs = plan.sweepSpecs;
  result.shardSpecs = std::move(plan.shardSpecs);
  for (const std::string& note : result.notes) spdlog::info("{}", note);
  if (!options.resumeFolder.empty()) {
    const ResumedRuns resumed =
        keepFinishedRuns(result.runs, options.resumeReport, (options.resumeFolder / "report.json").string());
    spdlog::info("--resume {}: {} finished run(s) kept, {} that failed run again", options.resumeFolder.string(),
                 resumed.kept, resumed.retried);
  }
  if (options.planned) options.planned(result.runs);

  const fs::path root = options.outputRoot.empty() ? config.output : options.outputRoot;
  result.folder =
      options.resumeFolder.empty() ? createResultsFolder(root, config.name, utcStamp(now)) : options.resumeFolder;
  // A resumed folder is locked by the caller, before it reads the report it continues.
  std::optional<FolderLock> lock;
  if (options.resumeFolder.empty()) lock.emplace(result.folder);
  const auto checkpoint = [&] {
    if (!options.checkpoint) return;
    result.complete = false;
    options.checkpoint(result);
  };
  checkpoint();
  vk::Context context(vk::ContextOptions{.validation = options.validate,
                                         .deviceSelector = deviceSelector,
                                         .backends = trace::deviceNeeds(plan.backends),
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
    std::optional<LinearImage> reference;
    PreparedScene prepared;
    const auto loadStart = Clock::now();
    try {
      // A camera path's references are one a frame, each read as its frame is kept.
      if (entry.reference && !entry.cameraPath) reference = readLinearImage(*entry.reference);
      prepared = uploadScene(context, loadSceneData(entry, options.sceneThreads),
                             std::vector<const RunRecord*>(sceneRuns.begin(), sceneRuns.end()), options.sceneThreads);
    } catch (const std::exception& error) {
      for (RunRecord* record : sceneRuns) record->error = error.what();
      checkpoint();
      continue;
    }
    const double loadMs = millisecondsSince(loadStart);
    const SceneData& scene = *prepared.data;
    const std::string unlit = unlitSceneWarning(entry, scene);
    if (!unlit.empty()) spdlog::warn("{}", unlit);
    const GpuScene& gpuScene = *prepared.gpu;
    for (RunRecord* record : sceneRuns) {
      if (context.lost()) break;
      if (stop()) {
        record->interrupted = true;
        continue;
      }
      const size_t index = size_t(record - result.runs.data());
      if (options.progress) options.progress(index, total, *record, RunPhase::Started);
      const auto runStart = Clock::now();
      record->sceneLoadMs = loadMs;
      if (!unlit.empty()) record->notes.push_back(unlit);
      record->unshadedExtensions = scene.unshadedExtensions;
      record->materialClassTriangles = materialClassTrianglesByName(scene);
      record->sceneBufferBytes = gpuScene.bufferBytes();
      record->sceneTextureBytes = gpuScene.textureBytes();
      record->accelerationStructureBytes =
          gpuScene.accelerationStats().blasBytes + gpuScene.accelerationStats().tlasBytes;
      const RenderSettings& settings = record->spec.settings;
      record->softwareBvh = gpuScene.softwareBvhStats(settings.softwareBuilder);
      if (trace::tracesSoftwareBvh(*record->traceBackend)) {
        record->accelerationStructureBytes = gpuScene.softwareBvhBytes(settings.softwareBvh, settings.softwareBuilder);
        if (const std::string& error = gpuScene.softwareBvhError(settings.softwareBvh, settings.softwareBuilder);
            !error.empty()) {
          record->error = error;
          if (options.progress) options.progress(index, total, *record, RunPhase::Finished);
          continue;
        }
      }
      try {
        const PreparedRun run = prepareRun(context, *record, entry, prepared);
        PathFrames path{.cameras = run.pathCameras};
        if (!run.pathCameras.empty())
          path.frameDone = [&](uint32_t frame, const FrameResult& rendered) {
            keepPathFrame(*record, frame, rendered, run.settings, config, result.folder, entry);
          };
        // measure asks before every frame whether to stop: the moment to say how far the run got.
        const std::function<bool()> betweenFrames = [&] {
          if (options.progress) options.progress(index, total, *record, RunPhase::BetweenFrames);
          return stop();
        };
        std::optional<FrameResult> last =
            measure(*record, *run.integrator, run.settings, config, monitor, betweenFrames, path);
        record->interrupted = !last;
        if (last && run.pathCameras.empty())
          keepImage(*record, *last, run.settings, config, result.folder, reference ? &*reference : nullptr);
      } catch (const vk::VulkanError& error) {
        record->error = error.what();
      } catch (const UserError& error) {
        record->error = error.what();
      } catch (const std::exception& error) {
        // A broken invariant ends this run, not the sweep: the report still gets written.
        record->error = std::string("internal error: ") + error.what();
      }
      record->wallMs = millisecondsSince(runStart);
      if (options.progress) options.progress(index, total, *record, RunPhase::Finished);
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
