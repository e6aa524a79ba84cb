#include "core/integrators/wavefront_state.h"

namespace ptbench {
namespace {

constexpr uint32_t vec3Bytes = sizeof(gpu::vec3);
constexpr uint32_t wordBytes = sizeof(uint32_t);

}  // namespace

WavefrontStateLayout wavefrontStateLayout(uint32_t poolSize, const WavefrontOptions& options, uint64_t base) {
  WavefrontStateLayout layout{.arena = DeviceArena(poolSize)};
  gpu::WavefrontParams& params = layout.params;
  auto place = [&](uint64_t& address, uint64_t bytesPerSlot) { address = base + layout.arena.place(bytesPerSlot); };
  const uint32_t sets = options.compaction ? 2 : 1;
  for (uint32_t set = 0; set < sets; ++set) gpu::forEachPathArray(params.paths[set], place);
  place(params.hits, sizeof(gpu::HitRecord));
  gpu::forEachShadowArray(params.shadow, place);
  if (options.compaction) {
    place(params.finished.radiance, vec3Bytes);
    place(params.finished.pixel, wordBytes);
  } else {
    place(params.membership, wordBytes);
    params.paths[1] = params.paths[0];
    params.finished = {.radiance = params.paths[0].radiance, .pixel = params.paths[0].pixel};
  }
  if (options.compaction && options.materialQueues) place(params.queues, gpu::MATERIAL_CLASS_COUNT * wordBytes);
  return layout;
}

const std::vector<StageTraffic>& wavefrontStageTraffic() {
  constexpr uint32_t path = gpu::PATH_STATE_BYTES;  // loadPath / storePath
  constexpr uint32_t ray = 2 * vec3Bytes;
  constexpr uint32_t hit = sizeof(gpu::HitRecord);
  constexpr uint32_t shadowRay = gpu::SHADOW_RAY_BYTES;
  constexpr uint32_t entry = wordBytes;  // a material queue's position, read or pushed
  constexpr uint32_t radiance = vec3Bytes;
  constexpr uint32_t finished = radiance + wordBytes;
  constexpr uint32_t filmAtomics = sizeof(gpu::FilmPixel) - 2 * wordBytes;  // sums and count
  static const std::vector<StageTraffic> traffic = {
      {.stage = Stage::Generate, .bytesPerPathStarted = path},
      {.stage = Stage::Extend, .bytesPerLivePath = ray + hit},
      {.stage = Stage::Classify, .bytesPerLivePath = hit + entry},
      {.stage = Stage::Shade, .bytesPerLivePath = path + hit + path, .bytesPerShadowRay = shadowRay},
      {.stage = Stage::Shadow, .bytesPerShadowRay = shadowRay + 2 * radiance},
      {.stage = Stage::Accumulate, .bytesPerPathStarted = finished + filmAtomics},
  };
  return traffic;
}

}  // namespace ptbench
