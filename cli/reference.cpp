// `ptbench reference`: a converged image of a scene with the megakernel, for a config's `reference`.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/render_options.h"
#include "core/errors.h"
#include "core/experiment/image_output.h"

namespace ptbench::cli {
namespace {

// A reference shares no samples with the runs measured against it. Runs draw from their config's
// seed (frame k of a camera path from seed + k); a reference drawing from seed, seed + 1, ... had
// a run's samples in its first frame, and the run's error against it read too low. Its frames
// draw from seeds after a hash of the seed (PCG's output permutation), which meets a run's seed
// by a chance of about one in 2^32 per frame.
uint32_t referenceFrameSeed(uint32_t seed, uint32_t frame) {
  const uint32_t state = seed * 747796405u + 2891336453u;
  const uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return ((word >> 22u) ^ word) + frame;
}

// One converged image: spp samples in frames of at most samplesPerReferenceFrame, each with
// its own seed (referenceFrameSeed), averaged in double precision, so that no submission runs long however many
// samples are asked. Progress (frames done, ETA) goes to stderr, each line led by `label`.
LinearImage converge(const RenderOptions& options, Integrator& renderer, const RenderSettings& settings,
                     const std::string& label, uint64_t& invalid) {
  using Clock = std::chrono::steady_clock;
  const uint32_t frames =
      (settings.samplesPerPixel + options.samplesPerReferenceFrame - 1) / options.samplesPerReferenceFrame;
  const bool terminal = isatty(STDERR_FILENO);
  const auto start = Clock::now();
  auto lastReport = start;
  std::vector<double> sum;
  uint32_t done = 0;
  for (uint32_t frame = 0; frame < frames; ++frame) {
    RenderSettings part = settings;
    part.samplesPerPixel = std::min(options.samplesPerReferenceFrame, settings.samplesPerPixel - done);
    part.seed = referenceFrameSeed(settings.seed, frame);
    const FrameResult result = renderer.render(part);
    if (sum.empty()) sum.assign(result.image.rgb.size(), 0.0);
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += double(result.image.rgb[i]) * part.samplesPerPixel;
    invalid += result.invalidSamples;
    done += part.samplesPerPixel;
    // At most one line a second (and the last): a log stays short, a terminal stays current.
    const auto now = Clock::now();
    if ((now - lastReport >= std::chrono::seconds(1) || frame + 1 == frames) &&
        spdlog::should_log(spdlog::level::info)) {
      lastReport = now;
      const double elapsed = std::chrono::duration<double>(now - start).count();
      const std::string line =
          fmt::format("{}: frame {}/{} ({}/{} spp), {:.1f} s, ETA {:.0f} s", label, frame + 1, frames, done,
                      settings.samplesPerPixel, elapsed, elapsed / (frame + 1) * (frames - frame - 1));
      std::cerr << (terminal ? "\r\033[K" + line + (frame + 1 == frames ? "\n" : "") : line + "\n") << std::flush;
    }
  }
  LinearImage image{settings.width, settings.height, std::vector<float>(sum.size())};
  for (size_t i = 0; i < sum.size(); ++i) image.rgb[i] = float(sum[i] / done);
  return image;
}

// `reference`: the converged image, or one a frame of --camera-path (frame k with the camera at
// path time k, each output's name carrying k: frameImagePath). The outputs were checked writable
// before any frame, and the linear ones are written first, each whatever became of the others.
void writeReference(const RenderOptions& options, Integrator& renderer, const RenderSettings& settings,
                    const std::vector<Camera>& pathCameras, const std::string& device) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const uint32_t frames =
      (settings.samplesPerPixel + options.samplesPerReferenceFrame - 1) / options.samplesPerReferenceFrame;
  // The reference itself (.exr, .pfm) before the PNG to look at it; one output failing does not
  // cost the others.
  std::vector<std::string> outputs = options.outputs;
  std::stable_partition(outputs.begin(), outputs.end(), [](const std::string& out) {
    std::string extension = std::filesystem::path(out).extension().string();
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    return extension != ".png";
  });
  std::vector<std::string> written, failed;
  uint64_t invalid = 0;
  const size_t images = std::max<size_t>(1, pathCameras.size());
  for (size_t k = 0; k < images; ++k) {
    RenderSettings frameSettings = settings;
    std::string label = "reference";
    if (!pathCameras.empty()) {
      frameSettings.camera = pathCameras[k];
      label = fmt::format("reference of path frame {}/{}", k + 1, images);
    }
    const LinearImage image = converge(options, renderer, frameSettings, label, invalid);
    std::cout << fmt::format("{} | {} | megakernel | {}x{} | {} spp in {} frames | max depth {} | {}\n", options.scene,
                             label, settings.width, settings.height, settings.samplesPerPixel, frames,
                             settings.maxDepth, device);
    for (const auto& output : outputs) {
      const std::string out = pathCameras.empty() ? output : frameImagePath(output, uint32_t(k)).string();
      try {
        writeImage(out, image, options.exposure);
        std::cout << "  wrote " << out << "\n";
        written.push_back(out);
      } catch (const UserError& error) {
        spdlog::error("{}", error.what());
        failed.push_back(out);
      }
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (invalid > 0)
    spdlog::warn("{} invalid sample(s) (NaN, infinite, negative or >= 1e12) were counted as black", invalid);
  const auto list = [](const std::vector<std::string>& paths) {
    std::string text;
    for (const auto& path : paths) text += (text.empty() ? "" : ", ") + path;
    return text.empty() ? std::string("nothing") : text;
  };
  const std::string pathText = pathCameras.empty() ? "" : fmt::format("{} path frames, each ", images);
  std::cout << fmt::format("reference: {}{} spp in {} frames in {:.1f} s; wrote {}{}\n", pathText,
                           settings.samplesPerPixel, frames, seconds, list(written),
                           failed.empty() ? "" : "; FAILED " + list(failed));
  if (!failed.empty())
    throw UserError("reference: cannot write " + list(failed) + " (see above); " +
                    (written.empty() ? std::string("nothing was written") : list(written) + " written"));
}

}  // namespace

void addReferenceCommand(CLI::App& app, const GlobalOptions& global) {
  auto* command = app.add_subcommand(
      "reference", "Render a converged reference image of a scene with the megakernel, for a config's `reference`");
  auto options = std::make_shared<RenderOptions>();
  options->settings.samplesPerPixel = 4096;
  options->reference = true;
  addRenderOptions(command, options, true);
  command->callback([&global, options] {
    prepareRender(global, *options, [](const RenderOptions& checked, const PreparedRender& prepared) {
      writeReference(checked, prepared.integrator, prepared.settings, prepared.pathCameras,
                     prepared.context.capabilities().name);
    });
  });
}

}  // namespace ptbench::cli
