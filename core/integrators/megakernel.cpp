#include "core/integrators/megakernel.h"

#include <chrono>
#include <cmath>

#include "core/errors.h"
#include "core/vk/barrier.h"
#include "shared/render.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::SceneAddresses) == 88);
static_assert(sizeof(gpu::CameraParams) == 64);
static_assert(offsetof(gpu::FrameParams, radianceSum) == 152, "uint64 members must stay 8-byte aligned");
static_assert(sizeof(gpu::FramePush) == 16);
static_assert(sizeof(gpu::Material) == 124 + gpu::TEXTURE_SLOT_COUNT * sizeof(gpu::TextureRef));
static_assert(sizeof(gpu::TextureRef) == 32);
static_assert(sizeof(gpu::Vertex) == 56);
static_assert(sizeof(gpu::Instance) == 112);

gpu::vec3 toGpu(Vec3 v) {
  return {v.x, v.y, v.z};
}

}  // namespace

void fillFrameParams(gpu::FrameParams& params, const GpuScene& scene, const Film& film,
                     const RenderSettings& settings) {
  const Camera& camera = settings.camera;
  const Vec3 forward = normalize(camera.target - camera.position);
  Vec3 right = cross(forward, camera.up);
  if (length(right) < 1e-6f) right = cross(forward, std::fabs(forward.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0});
  right = normalize(right);
  const Vec3 up = cross(right, forward);
  params = {};
  params.scene = scene.addresses();
  params.camera = {.position = toGpu(camera.position),
                   .tanHalfFovY = std::tan(0.5f * camera.yfovDegrees * 3.14159265f / 180.0f),
                   .forward = toGpu(forward),
                   .aspect = float(settings.width) / float(settings.height),
                   .right = toGpu(right),
                   .up = toGpu(up)};
  params.radianceSum = film.radianceSum();
  params.radianceSquaredSum = film.radianceSquaredSum();
  params.counters = film.counters();
  params.environment = toGpu(settings.environment);
  params.width = settings.width;
  params.height = settings.height;
  params.samplesPerPixel = settings.samplesPerPixel;
  params.maxDepth = settings.maxDepth;
  params.rrDepth = settings.rrDepth;
  params.seed = settings.seed;
  params.samplerKind = settings.sampler == SamplerKind::Pcg ? gpu::SAMPLER_PCG : gpu::SAMPLER_HALTON;
}

MegakernelIntegrator::MegakernelIntegrator(const vk::Context& context, const GpuScene& scene, Backend backend,
                                           bool regenerate)
    : context_(context),
      scene_(scene),
      regenerate_(regenerate),
      kernel_(context, regenerate ? "megakernel_regen" : "megakernel", backend, scene.descriptorSetLayout(),
              sizeof(gpu::FramePush)),
      frameParams_(context, sizeof(gpu::FrameParams), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, vk::MemoryUse::Upload) {}

FrameResult MegakernelIntegrator::render(const RenderSettings& settings) {
  // Repeated frames of one size reuse the film; it is cleared inside every frame.
  if (!film_ || film_->width() != settings.width || film_->height() != settings.height)
    film_.emplace(context_, settings.width, settings.height);
  const Film& film = *film_;
  fillFrameParams(*static_cast<gpu::FrameParams*>(frameParams_.mapped()), scene_, film, settings);
  const uint32_t launches = regenerate_ ? 1 : settings.samplesPerPixel;
  vk::StageTimer timer(context_, launches);
  const VkPipelineStageFlags2 kernelStage = kernel_.pipelineStage();

  const auto start = std::chrono::steady_clock::now();
  context_.submitAndWait([&](VkCommandBuffer commands) {
    timer.begin(commands);
    film.recordClear(commands);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, kernelStage,
                      VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    for (uint32_t launch = 0; launch < launches; ++launch) {
      const gpu::FramePush push{.params = frameParams_.address(), .sampleIndex = launch};
      timer.time(commands, Stage::TraceShade,
                 [&] { kernel_.launch(commands, scene_.descriptorSet(), &push, settings.width, settings.height); });
      // Each pass adds to the film the previous one wrote.
      vk::memoryBarrier(
          commands, kernelStage, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, kernelStage | VK_PIPELINE_STAGE_2_TRANSFER_BIT,
          VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_READ_BIT);
    }
    film.recordReadback(commands);
  });
  FrameResult result;
  result.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.stages = timer.read();
  for (const auto& stage : result.stages) result.gpuMs += stage.gpuNs * 1e-6;
  film.read(result);
  return result;
}

}  // namespace ptbench
