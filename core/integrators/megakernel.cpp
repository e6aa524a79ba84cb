#include "core/integrators/megakernel.h"

#include <chrono>
#include <cmath>

#include "core/errors.h"
#include "core/vk/barrier.h"
#include "shared/render.h"

namespace ptbench {
namespace {

static_assert(sizeof(gpu::SceneAddresses) == 152);
static_assert(sizeof(gpu::CameraParams) == 64);
static_assert(offsetof(gpu::FrameParams, film) == 216, "uint64 members must stay 8-byte aligned");
static_assert(sizeof(gpu::FrameParams) == 280);
static_assert(sizeof(gpu::FilmSample) == 48);
static_assert(sizeof(gpu::FilmPixel) == 48 && offsetof(gpu::FilmPixel, radianceSquaredSumBits) == 24);
static_assert(sizeof(gpu::FramePush) == 16);
static_assert(sizeof(gpu::Material) == 136 + gpu::TEXTURE_SLOT_COUNT * sizeof(gpu::TextureRef));
static_assert(sizeof(gpu::TextureRef) == 32);
static_assert(sizeof(gpu::Vertex) == 64 && offsetof(gpu::Vertex, color) == 56);
static_assert(sizeof(gpu::Instance) == 116);

}  // namespace

gpu::CameraParams cameraParams(const RenderSettings& settings) {
  const Camera& camera = settings.camera;
  const Vec3 forward = normalize(camera.target - camera.position);
  Vec3 right = cross(forward, camera.up);
  if (length(right) < 1e-6f) right = cross(forward, std::fabs(forward.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0});
  right = normalize(right);
  const Vec3 up = cross(right, forward);
  return {.position = toGpu(camera.position),
          .tanHalfFovY = std::tan(0.5f * camera.yfovDegrees * 3.14159265f / 180.0f),
          .forward = toGpu(forward),
          .aspect = float(settings.width) / float(settings.height),
          .right = toGpu(right),
          .lensRadius = 0.5f * camera.aperture,
          .up = toGpu(up),
          // The target's distance along the view direction unless told otherwise.
          .focusDistance = camera.focusDistance > 0 ? camera.focusDistance
                                                    : std::max(dot(camera.target - camera.position, forward), 1e-6f)};
}

void fillFrameParams(gpu::FrameParams& params, const GpuScene& scene, TraceTarget target, const Film& film,
                     const RenderSettings& settings) {
  params = {};
  params.scene = scene.addresses(target);
  params.camera = cameraParams(settings);
  params.film = film.pixels();
  params.filmSamples = film.samples();
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

MegakernelIntegrator::MegakernelIntegrator(const vk::Context& context, const GpuScene& scene, TraceTarget target,
                                           bool regenerate)
    : context_(context),
      scene_(scene),
      target_(target),
      regenerate_(regenerate),
      kernel_(context,
              {.shader = regenerate ? "megakernel_regen" : "megakernel",
               .traces = true,
               .tiled = true,
               .pushBytes = sizeof(gpu::FramePush),
               .shadedClassLimit = scene.highestMaterialClass()},
              target, scene.descriptorSetLayout()),
      resolve_(context, {.shader = "film_resolve", .pushBytes = sizeof(gpu::FramePush)}, target,
               scene.descriptorSetLayout()),
      frameParams_(context, sizeof(gpu::FrameParams),
                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::DeviceOnly) {}

FrameResult MegakernelIntegrator::render(const RenderSettings& settings) {
  const Film& film = filmOfSize(film_, context_, settings.width, settings.height);
  gpu::FrameParams params;
  fillFrameParams(params, scene_, target_, film, settings);
  const uint32_t launches = regenerate_ ? 1 : settings.samplesPerPixel;
  const VkPipelineStageFlags2 kernelStage = kernel_.pipelineStage();
  const VkPipelineStageFlags2 shaderStages = kernelStage | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;

  const auto start = std::chrono::steady_clock::now();
  context_.submitAndWait([&](VkCommandBuffer commands) {
    timer_.begin(commands);
    film.recordClear(commands);
    // The parameters live in device-local memory, so that no kernel reads them over the bus.
    vkCmdUpdateBuffer(commands, frameParams_.get(), 0, sizeof params, &params);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, shaderStages,
                      VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    for (uint32_t launch = 0; launch < launches; ++launch) {
      const gpu::FramePush push{.params = frameParams_.address(), .sampleIndex = launch};
      timer_.time(commands, Stage::TraceShade,
                  [&] { kernel_.launch(commands, scene_.descriptorSet(), &push, settings.width, settings.height); });
      // film_resolve reads what the launch left per pixel; the next launch overwrites it.
      vk::memoryBarrier(commands, shaderStages, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, shaderStages,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
      timer_.time(commands, Stage::Accumulate,
                  [&] { resolve_.launch(commands, scene_.descriptorSet(), &push, settings.width * settings.height); });
      if (launch + 1 < launches)
        vk::memoryBarrier(commands, shaderStages, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, shaderStages,
                          VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    // The frame ends with its last kernel: copying the film to the host is output, the same
    // for every integrator, and would time the bus rather than the renderer.
    timer_.end(commands);
    if (settings.readImage) film.recordReadback(commands, shaderStages);
  });
  FrameResult result;
  result.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const vk::FrameTiming timing = timer_.read();
  result.stages = timing.stages;
  result.gpuMs = timing.frameNs * 1e-6;
  if (settings.readImage) film.read(result);
  return result;
}

}  // namespace ptbench
