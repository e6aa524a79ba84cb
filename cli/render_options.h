// What `render` and `reference` share: their options, and the one run they name, planned and
// prepared as the runner prepares a sweep's runs (core/experiment/plan.h, runner.h).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.h"
#include "core/experiment/record.h"
#include "core/integrators/integrator.h"
#include "core/scene/builtin_scenes.h"

namespace ptbench::cli {

struct RenderOptions {
  std::string scene;
  std::string integrator = "megakernel";
  std::string backend = "auto";
  std::string sampler = "halton";
  std::string counters = "off";
  std::string timing = "stages";
  RenderSettings settings;
  std::string environment;  // R,G,B or a Radiance .hdr file
  float environmentIntensity = 1;
  float environmentRotation = 0;
  std::string environmentSampling = "importance";
  std::string materialOverride;
  uint32_t materialCost = defaultCarPaintCost;
  std::vector<float> cameraPosition, cameraTarget, cameraUp;
  float fov = 0;
  float aperture = 0, focusDistance = 0;
  float exposure = 0;
  uint32_t warmup = 0;
  std::vector<std::string> outputs;
  std::string varianceOutput;                  // the variance of each pixel's mean, .exr or .pfm
  std::vector<std::string> integratorOptions;  // key=value
  bool reference = false;                      // `reference`: the megakernel, frames averaged, untimed
  uint32_t samplesPerReferenceFrame = 64;
  std::string cameraPath;  // reference --camera-path: a JSON file holding a camera path
};

// The run the options name, with its scene and integrator ready: what `use` renders with.
struct PreparedRender {
  const RunRecord& run;  // planned: its backend resolved, its options and default pool applied
  const RenderSettings& settings;
  const std::vector<Camera>& pathCameras;  // each frame's along --camera-path; empty without one
  Integrator& integrator;
  const vk::Context& context;
};

// Checks the options, plans their one run (a UserError saying why it cannot run), creates the
// context, prepares the scene and the integrator, and calls `use` with them.
void prepareRender(const GlobalOptions& global, RenderOptions options,
                   const std::function<void(const RenderOptions&, const PreparedRender&)>& use);

// The options of `render`, and of `reference`, which takes the scene and its lighting the same
// way but always renders with the megakernel, untimed, in frames it averages.
void addRenderOptions(CLI::App* command, const std::shared_ptr<RenderOptions>& options, bool reference);

}  // namespace ptbench::cli
