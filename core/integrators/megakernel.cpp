#include "core/integrators/megakernel.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "core/integrators/frame.h"
#include "core/vk/barrier.h"
#include "shared/render.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::SimtBounce) == 24 && sizeof(gpu::SimtCountersHeader) == 8);
static_assert(sizeof(gpu::FilmSample) == 48);
static_assert(sizeof(gpu::FilmPixel) == 48 && offsetof(gpu::FilmPixel, radianceSquaredSumBits) == 24);
static_assert(sizeof(gpu::Material) == 136 + gpu::TEXTURE_SLOT_COUNT * sizeof(gpu::TextureRef));
static_assert(sizeof(gpu::TextureRef) == 32);
static_assert(sizeof(gpu::Vertex) == 64 && offsetof(gpu::Vertex, color) == 56);
static_assert(sizeof(gpu::Instance) == 116);

}  // namespace

namespace {

KernelDesc megakernelDesc(IntegratorKind kind, const RenderSettings& settings, const GpuScene& scene) {
  std::string shader = kind == IntegratorKind::MegakernelRegen ? "megakernel_regen"
                       : kind == IntegratorKind::MegakernelSer ? "megakernel_ser"
                                                               : "megakernel";
  if (settings.counters != Counters::Off) shader += "_" + std::string(countersName(settings.counters));
  std::vector<uint32_t> specialization;
  if (kind == IntegratorKind::MegakernelSer) {
    specialization.resize(2);
    specialization[gpu::SPEC_SER_HINT] =
        settings.ser.hint == SerHint::Material ? gpu::SER_HINT_MATERIAL : gpu::SER_HINT_NONE;
    specialization[gpu::SPEC_SER_REORDER_FROM] = settings.ser.reorderFrom;
  }
  return {.shader = shader,
          .traces = true,
          .tiled = true,
          .pushBytes = sizeof(gpu::FramePush),
          .specialization = std::move(specialization),
          .shadedClassLimit = scene.highestMaterialClass(),
          .msCompensation = settings.msCompensation && scene.hasMultipleScatteringLobes(),
          .restir = restirSpecialization(settings.restir)};
}

}  // namespace

MegakernelIntegrator::MegakernelIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target,
                                           IntegratorKind kind, const RenderSettings& settings)
    : context_(context),
      scene_(scene),
      regenerate_(kind == IntegratorKind::MegakernelRegen),
      kernel_(context, megakernelDesc(kind, settings, scene), target, scene),
      frame_(context, scene, target, settings.counters) {
  if (settings.restir == Restir::Off) return;
  // Only the plain megakernel's launches are sample passes ReSTIR's passes can follow (its
  // registry entry alone declares the option).
  if (kind != IntegratorKind::Megakernel)
    throw std::logic_error(std::string(integratorName(kind)) +
                           " was given restir: " + std::string(restirName(settings.restir)));
  restir_.emplace(context, scene, target, settings.restir, settings.msCompensation);
}

std::vector<KernelStatistics> MegakernelIntegrator::kernels() const {
  std::vector<KernelStatistics> kernels{kernel_.statistics(Stage::TraceShade)};
  if (restir_)
    for (KernelStatistics& pass : restir_->kernels()) kernels.push_back(std::move(pass));
  return kernels;
}

FrameResult MegakernelIntegrator::render(const RenderSettings& settings) {
  frame_.prepare(settings);
  if (restir_) restir_->prepare(settings, frame_);
  const uint32_t launches = regenerate_ ? 1 : settings.samplesPerPixel;
  const VkPipelineStageFlags2 kernelStage = kernel_.pipelineStage();
  context_.submitAndWait([&](VkCommandBuffer commands) {
    frame_.begin(commands, kernelStage, settings.stageTimestamps, [&] {
      if (restir_) restir_->upload(commands);
    });
    for (uint32_t launch = 0; launch < launches; ++launch) {
      const gpu::FramePush push{.params = frame_.paramsAddress(), .sampleIndex = launch};
      const auto trace = [&] {
        kernel_.launch(commands, scene_.descriptorSet(), &push, settings.width, settings.height);
      };
      if (restir_) {
        // The passes read the kernel's vertices and reservoirs, and the next launch their history.
        frame_.stage(commands, kernelStage, Stage::TraceShade, trace);
        restir_->record(commands, frame_, kernelStage, launch);
        continue;
      }
      frame_.time(commands, Stage::TraceShade, trace);
      // Each launch adds to the film and counters the one before wrote.
      if (launch + 1 < launches)
        vk::memoryBarrier(commands, kernelStage, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, kernelStage,
                          VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    // The frame ends with its last kernel: copying the film to the host is output, the same
    // for every integrator, and would time the bus rather than the renderer.
    frame_.end(commands);
    frame_.recordOutput(commands, kernelStage);
  });
  FrameResult result = frame_.times();
  frame_.readOutput(result, Stage::TraceShade);
  return result;
}

}  // namespace ptbench
