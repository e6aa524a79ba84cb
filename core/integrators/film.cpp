#include "core/integrators/film.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "core/vk/barrier.h"
#include "shared/render.h"

namespace ptbench {
namespace {

constexpr VkBufferUsageFlags filmUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

constexpr VkDeviceSize simtBytes =
    sizeof(gpu::SimtCountersHeader) + VkDeviceSize{gpu::SIMT_MAX_BOUNCES} * sizeof(gpu::SimtBounce);
constexpr VkDeviceSize clockBytes = VkDeviceSize{gpu::CLOCK_MAX_BINS} * sizeof(gpu::ClockBin);
static_assert(sizeof(gpu::ClockBin) == 32 && gpu::CLOCK_PHASES == phaseNames.size());

}  // namespace

const Film& filmFor(std::optional<Film>& film, const vk::Context& context, const RenderSettings& settings,
                    Counters counters) {
  if (!film || film->width() != settings.width || film->height() != settings.height || film->counterKind() != counters)
    film.emplace(context, settings.width, settings.height, counters);
  return *film;
}

Film::Film(const vk::Context& context, uint32_t width, uint32_t height, Counters counters)
    : width_(width),
      height_(height),
      counterKind_(counters),
      pixels_(context, VkDeviceSize{width} * height * sizeof(gpu::FilmPixel), filmUsage, vk::MemoryUse::DeviceOnly),
      counters_(context, VkDeviceSize{width} * height * sizeof(gpu::PixelCounters), filmUsage,
                vk::MemoryUse::DeviceOnly),
      pixelsHost_(context, pixels_.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback),
      countersHost_(context, counters_.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback) {
  if (counters == Counters::Off) return;
  const VkDeviceSize bytes = counters == Counters::Simt ? simtBytes : clockBytes;
  shaderCounters_.emplace(context, bytes, filmUsage, vk::MemoryUse::DeviceOnly);
  shaderCountersHost_.emplace(context, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
}

void Film::recordClear(VkCommandBuffer commands) const {
  for (const auto* buffer : {&pixels_, &counters_}) vkCmdFillBuffer(commands, buffer->get(), 0, VK_WHOLE_SIZE, 0);
  if (shaderCounters_) vkCmdFillBuffer(commands, shaderCounters_->get(), 0, VK_WHOLE_SIZE, 0);
}

void Film::recordReadback(VkCommandBuffer commands, VkPipelineStageFlags2 writers) const {
  vk::memoryBarrier(commands, writers, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_TRANSFER_BIT,
                    VK_ACCESS_2_TRANSFER_READ_BIT);
  const VkBufferCopy pixels{.size = pixels_.bytes()};
  vkCmdCopyBuffer(commands, pixels_.get(), pixelsHost_.get(), 1, &pixels);
  const VkBufferCopy counts{.size = counters_.bytes()};
  vkCmdCopyBuffer(commands, counters_.get(), countersHost_.get(), 1, &counts);
  if (shaderCounters_) {
    const VkBufferCopy shaderCounters{.size = shaderCounters_->bytes()};
    vkCmdCopyBuffer(commands, shaderCounters_->get(), shaderCountersHost_->get(), 1, &shaderCounters);
  }
  // A fence alone does not make device writes visible to the host (the specification's
  // memory model): the copies' writes need a barrier to HOST_READ.
  vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

void Film::read(FrameResult& result, Stage simtStage, std::span<const Stage> clockStages) const {
  const size_t pixels = size_t(width_) * height_;
  const auto film = pixelsHost_.view<const gpu::FilmPixel>();
  const auto counters = countersHost_.view<const gpu::PixelCounters>();
  result.image = {width_, height_, std::vector<float>(pixels * 3)};
  result.meanVariance = {width_, height_, std::vector<float>(pixels * 3)};
  result.work = {};
  result.invalidSamples = 0;
  result.pixelSamplesMin = pixels > 0 ? std::numeric_limits<uint32_t>::max() : 0;
  result.pixelSamplesMax = 0;
  for (size_t i = 0; i < pixels; ++i) {
    const gpu::FilmPixel& pixel = film[i];
    const double n = pixel.sampleCount;
    for (int c = 0; c < 3; ++c) {
      const double sum = double(pixel.radianceSum[c]) / double(gpu::FILM_FIXED_POINT_SCALE);
      const double square = std::bit_cast<float>(pixel.radianceSquaredSumBits[c]);
      const double mean = n > 0 ? sum / n : 0.0;
      result.image.rgb[3 * i + c] = float(mean);
      // Sample variance over n, then divided by n again: the variance of the mean.
      const double variance = n > 1 ? std::max(0.0, (square - n * mean * mean) / (n - 1)) : 0.0;
      result.meanVariance.rgb[3 * i + c] = float(n > 0 ? variance / n : 0.0);
    }
    result.invalidSamples += pixel.invalidSamples;
    result.pixelSamplesMin = std::min(result.pixelSamplesMin, pixel.sampleCount);
    result.pixelSamplesMax = std::max(result.pixelSamplesMax, pixel.sampleCount);
    result.work.extensionRays += counters[i].path.extensionRays;
    result.work.shadowRays += counters[i].path.shadowRays;
    result.work.pathSegments += counters[i].path.pathSegments;
    result.work.paths += counters[i].path.paths;
    for (size_t pass = 0; pass < result.work.restirRays.size(); ++pass)
      result.work.restirRays[pass] += counters[i].restirRays[pass];
  }
  result.simt.reset();
  result.clocks.reset();
  if (counterKind_ == Counters::Clocks) {
    const auto* bins = static_cast<const gpu::ClockBin*>(shaderCountersHost_->mapped());
    auto cycles = [&](size_t bin) {
      PhaseCycles phases;
      std::copy(std::begin(bins[bin].cycles), std::end(bins[bin].cycles), phases.cycles.begin());
      return phases;
    };
    ClockCounts& clocks = result.clocks.emplace();
    for (size_t bin = 0; bin < clockStages.size(); ++bin) clocks.stages.emplace_back(clockStages[bin], cycles(bin));
    if (clockStages.empty()) {
      size_t used = gpu::CLOCK_MAX_BINS;
      while (used > 0 && cycles(used - 1).total() == 0) --used;
      for (size_t bin = 0; bin < used; ++bin) clocks.bounces.push_back(cycles(bin));
    }
  }
  if (counterKind_ != Counters::Simt) return;
  const auto* bytes = static_cast<const uint8_t*>(shaderCountersHost_->mapped());
  const auto* header = reinterpret_cast<const gpu::SimtCountersHeader*>(bytes);
  const auto* bounces = reinterpret_cast<const gpu::SimtBounce*>(bytes + sizeof(gpu::SimtCountersHeader));
  SimtCounts& simt = result.simt.emplace(SimtCounts{.stage = simtStage, .subgroupSize = header->subgroupSize});
  size_t used = gpu::SIMT_MAX_BOUNCES;
  while (used > 0 && bounces[used - 1].lanes == 0) --used;
  for (size_t b = 0; b < used; ++b)
    simt.bounces.push_back({.subgroups = double(bounces[b].subgroupShare) / gpu::SIMT_SHARE_SCALE,
                            .lanes = bounces[b].lanes,
                            .classes = double(bounces[b].classShare) / gpu::SIMT_SHARE_SCALE});
}

}  // namespace ptbench
