#include "core/integrators/restir.h"

#include <cstring>
#include <string>

#include "core/vk/barrier.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::LightRef) == 20 && sizeof(gpu::Reservoir) == 32);
static_assert(sizeof(gpu::RestirSurface) == 72);
static_assert(sizeof(gpu::GiSample) == 36 && sizeof(gpu::GiReservoir) == 48 && sizeof(gpu::GiStart) == 56);
static_assert(offsetof(gpu::RestirFrame, previousCamera) == 72 && sizeof(gpu::RestirFrame) == 168);
static_assert(RestirOptions{}.candidates == gpu::RESTIR_DEFAULT_CANDIDATES &&
              RestirOptions{}.neighbours == gpu::RESTIR_DEFAULT_NEIGHBOURS &&
              RestirOptions{}.historyCap == float(gpu::RESTIR_DEFAULT_HISTORY_CAP));

// The passes evaluate the BSDF at the primary vertex as the path tracer's kernels do: the same
// material-class limit and the same multiple-scattering compensation.
KernelDesc passDesc(const char* shader, const GpuScene& scene, Restir restir, bool msCompensation) {
  return {.shader = shader,
          .traces = true,
          .tiled = true,
          .pushBytes = sizeof(gpu::FramePush),
          .shadedClassLimit = scene.highestMaterialClass(),
          .msCompensation = msCompensation && scene.hasMultipleScatteringLobes(),
          .restir = restirSpecialization(restir)};
}

bool sameCamera(const gpu::CameraParams& a, const gpu::CameraParams& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

uint32_t restirSpecialization(Restir restir) {
  switch (restir) {
    case Restir::Di:
      return gpu::RESTIR_DI;
    case Restir::Gi:
      return gpu::RESTIR_GI;
    case Restir::DiGi:
      return gpu::RESTIR_DI | gpu::RESTIR_GI;
    case Restir::Off:
      break;
  }
  return gpu::RESTIR_OFF;
}

RestirPasses::RestirPasses(const vk::Context& context, const GpuScene& scene, TraceTarget target, Restir restir,
                           bool msCompensation)
    : context_(context),
      scene_(scene),
      restir_(restir),
      temporal_(context, passDesc("restir_temporal", scene, restir, msCompensation), target, scene),
      spatial_(context, passDesc("restir_spatial", scene, restir == Restir::DiGi ? Restir::Di : restir, msCompensation),
               target, scene),
      shade_(context, passDesc("restir_shade", scene, restir, msCompensation), target, scene),
      frameBuffer_(context, sizeof(gpu::RestirFrame),
                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::DeviceOnly) {
  if (restir == Restir::DiGi)
    spatialGi_.emplace(context, passDesc("restir_spatial", scene, Restir::Gi, msCompensation), target, scene);
}

void RestirPasses::prepare(const RenderSettings& settings, FrameRecorder& frame) {
  const uint64_t pixels = uint64_t{settings.width} * settings.height;
  if (pixels != pixels_) {
    const bool di = (restirSpecialization(restir_) & gpu::RESTIR_DI) != 0;
    const bool gi = (restirSpecialization(restir_) & gpu::RESTIR_GI) != 0;
    DeviceArena arena(pixels);
    const uint64_t surfaces[2] = {arena.place(sizeof(gpu::RestirSurface)), arena.place(sizeof(gpu::RestirSurface))};
    // Each part's arrays where its bit is on (so that DI's state is what it was before GI).
    const auto place = [&](bool part, uint64_t bytes) {
      return part ? std::optional(arena.place(bytes)) : std::nullopt;
    };
    const std::optional<uint64_t> initial = place(di, sizeof(gpu::Reservoir));
    const std::optional<uint64_t> temporal = place(di, sizeof(gpu::Reservoir));
    const std::optional<uint64_t> spatial = place(di, sizeof(gpu::Reservoir));
    const uint64_t radiance = arena.place(sizeof(gpu::vec3));
    const std::optional<uint64_t> giStart = place(gi, sizeof(gpu::GiStart));
    const std::optional<uint64_t> giTemporal = place(gi, sizeof(gpu::GiReservoir));
    const std::optional<uint64_t> giSpatial = place(gi, sizeof(gpu::GiReservoir));
    state_ = {};
    state_ = arena.allocate(context_, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            "ReSTIR's reservoirs and surfaces for " + std::to_string(pixels) + " pixels",
                            "render fewer pixels");
    const VkDeviceAddress base = state_.address();
    const auto address = [&](std::optional<uint64_t> offset) { return offset ? base + *offset : 0; };
    frame_ = {.surfaces = {base + surfaces[0], base + surfaces[1]},
              .initial = address(initial),
              .temporal = address(temporal),
              .spatial = address(spatial),
              .pathRadiance = base + radiance,
              .giStart = address(giStart),
              .giTemporal = address(giTemporal),
              .giSpatial = address(giSpatial)};
    pixels_ = pixels;
    historyCamera_.reset();
  }
  RenderSettings before = settings;
  before.camera = settings.previousCamera.value_or(settings.camera);
  const gpu::CameraParams previous = cameraParams(before);
  frame_.historyValid = historyCamera_ && sameCamera(*historyCamera_, previous) ? 1 : 0;
  frame_.previousCamera = previous;
  frame_.firstPass = passes_;
  const RestirOptions& options = settings.restirOptions;
  frame_.candidates = options.candidates;
  frame_.neighbours = options.neighbours;
  frame_.radius = gpu::RESTIR_DEFAULT_RADIUS;
  frame_.historyCap = options.historyCap;
  frame_.giJacobianLimit = options.giJacobianLimit;
  frame_.bsdfCandidate = options.bsdfCandidate ? 1 : 0;
  passes_ += settings.samplesPerPixel;
  historyCamera_ = cameraParams(settings);
  frame.setRestirFrame(frameBuffer_.address());
}

void RestirPasses::upload(VkCommandBuffer commands) const {
  vkCmdUpdateBuffer(commands, frameBuffer_.get(), 0, sizeof frame_, &frame_);
}

void RestirPasses::record(VkCommandBuffer commands, FrameRecorder& frame, VkPipelineStageFlags2 stages,
                          uint32_t sampleIndex) const {
  const gpu::FramePush push{.params = frame.paramsAddress(), .sampleIndex = sampleIndex};
  const uint32_t width = frame.film().width();
  const uint32_t height = frame.film().height();
  // Each pass reads what the one before wrote, at other pixels too (neighbours, history). DI's
  // and GI's spatial kernels touch disjoint reservoirs but count their rays into the same pixel
  // counters: a barrier between them.
  const auto launch = [&](const Kernel& kernel) {
    kernel.launch(commands, scene_.descriptorSet(), &push, width, height);
  };
  frame.stage(commands, stages, Stage::RestirTemporal, [&] { launch(temporal_); });
  frame.stage(
      commands, stages, Stage::RestirSpatial,
      [&] {
        launch(spatial_);
        if (!spatialGi_) return;
        vk::memoryBarrier(commands, stages, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, stages,
                          VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        launch(*spatialGi_);
      },
      0, spatialGi_ ? 2 : 1);
  frame.stage(commands, stages, Stage::RestirShade, [&] { launch(shade_); });
}

std::vector<KernelStatistics> RestirPasses::kernels() const {
  std::vector<KernelStatistics> kernels = {temporal_.statistics(Stage::RestirTemporal),
                                           spatial_.statistics(Stage::RestirSpatial)};
  if (spatialGi_) kernels.push_back(spatialGi_->statistics(Stage::RestirSpatial));
  kernels.push_back(shade_.statistics(Stage::RestirShade));
  return kernels;
}

}  // namespace ptbench
