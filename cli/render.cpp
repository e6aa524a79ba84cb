// `ptbench render`: one image of one scene with one integrator and backend, timed.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/render_options.h"
#include "core/errors.h"
#include "core/experiment/image_output.h"
#include "core/integrators/options.h"
#include "core/integrators/profile.h"

namespace ptbench::cli {
namespace {

// One frame after the warm-up, its kernel profile, throughput and images.
void renderFrame(const RenderOptions& options, const PreparedRender& prepared) {
  const RenderSettings& settings = prepared.settings;
  Integrator& renderer = prepared.integrator;
  const vk::Context& context = prepared.context;
  const RunRecord& run = prepared.run;
  const IntegratorKind integrator = run.spec.integrator;
  const Backend backend = *run.traceBackend;
  // The first frame pays for the driver's shader compilation; warm-up frames keep it out.
  RenderSettings warmupSettings = settings;
  warmupSettings.readImage = false;  // as the runner's timed frames: no host work between frames
  for (uint32_t i = 0; i < options.warmup; ++i) renderer.render(warmupSettings);
  const FrameResult frame = renderer.render(settings);

  const double seconds = frame.gpuMs * 1e-3;
  const uint64_t rays = frame.work.extensionRays + frame.work.shadowRays;
  std::cout << fmt::format("{} | {} | {} | {}x{} | {} spp | max depth {} | {}\n", options.scene, options.integrator,
                           backendName(backend), settings.width, settings.height, settings.samplesPerPixel,
                           settings.maxDepth, context.capabilities().name);
  if (const auto used = runOptionsJson(integrator, backendName(backend), settings); !used.empty())
    std::cout << "  options " << used.dump() << "\n";
  if (!run.wavefrontPoolReason.empty())
    std::cout << fmt::format("  {:<12} {} paths in flight: {}\n", "pool", settings.wavefront.poolSize,
                             run.wavefrontPoolReason);
  std::cout << kernelProfile(frame);
  std::cout << kernelStatisticsProfile(renderer.kernels());
  std::cout << fmt::format("  {:<12} {} kernel launches{}\n", "launches", frame.launches,
                           settings.stageTimestamps ? "" : " (timing frame: no stage timestamps)");
  std::cout << fmt::format(
      "  {:<12} {:10.3f} ms GPU, {:.3f} ms host (submit to fence); pipelines created in {:.1f} ms\n", "frame",
      frame.gpuMs, frame.hostMs, renderer.pipelineCreateMs());
  std::cout << fmt::format("  {:<12} {:.3f} Mpaths/s, {:.3f} Mrays/s ({} extension + {} shadow), {:.3f} Msegments/s\n",
                           "throughput", double(frame.work.paths) / seconds * 1e-6, double(rays) / seconds * 1e-6,
                           frame.work.extensionRays, frame.work.shadowRays,
                           double(frame.work.pathSegments) / seconds * 1e-6);
  if (!isPathTracer(integrator)) {  // the raycast: its trace stage is the roofline
    double traceNs = 0;
    for (const auto& stage : frame.stages)
      if (stage.stage == Stage::Trace) traceNs += stage.gpuNs;
    std::cout << fmt::format("  {:<12} {:.3f} Mrays/s: {} {} rays in {:.3f} ms of the trace stage (the roofline)\n",
                             "raycast", traceNs > 0 ? double(rays) / traceNs * 1e3 : 0.0, rays,
                             raycastRaysName(settings.raycast.rays), traceNs * 1e-6);
  }
  if (frame.simt) std::cout << simtProfile(*frame.simt);
  if (frame.clocks) std::cout << clocksProfile(*frame.clocks);
  if (frame.invalidSamples > 0)
    spdlog::warn("{} invalid sample(s) (NaN, infinite, negative or >= 1e12) were counted as black",
                 frame.invalidSamples);
  for (const auto& out : options.outputs) {
    writeImage(out, frame.image, options.exposure);
    std::cout << "  wrote " << out << "\n";
  }
  if (!options.varianceOutput.empty()) {
    writeImage(options.varianceOutput, frame.meanVariance, 0);
    std::cout << "  wrote " << options.varianceOutput << " (variance of each pixel's mean)\n";
  }
  if (context.validationMessageCount() > 0)
    throw UserError(std::to_string(context.validationMessageCount()) + " validation message(s); see above");
}

}  // namespace

void addRenderCommand(CLI::App& app, const GlobalOptions& global) {
  auto* command = app.add_subcommand("render", "Render one image of a scene and time it");
  auto options = std::make_shared<RenderOptions>();
  addRenderOptions(command, options, false);
  command->callback([&global, options] { prepareRender(global, *options, renderFrame); });
}

}  // namespace ptbench::cli
