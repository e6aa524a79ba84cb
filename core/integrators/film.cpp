#include "core/integrators/film.h"

#include "shared/render.h"

namespace ptbench {
namespace {

constexpr VkBufferUsageFlags filmUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

}  // namespace

Film::Film(const vk::Context& context, uint32_t width, uint32_t height)
    : width_(width),
      height_(height),
      radianceSum_(context, VkDeviceSize{width} * height * sizeof(gpu::vec4), filmUsage, vk::MemoryUse::DeviceOnly),
      radianceSquaredSum_(context, radianceSum_.bytes(), filmUsage, vk::MemoryUse::DeviceOnly),
      counters_(context, VkDeviceSize{width} * height * sizeof(gpu::PixelCounters), filmUsage,
                vk::MemoryUse::DeviceOnly),
      radianceSumHost_(context, radianceSum_.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback),
      radianceSquaredSumHost_(context, radianceSum_.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback),
      countersHost_(context, counters_.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback) {}

void Film::recordClear(VkCommandBuffer commands) const {
  for (const auto* buffer : {&radianceSum_, &radianceSquaredSum_, &counters_})
    vkCmdFillBuffer(commands, buffer->get(), 0, VK_WHOLE_SIZE, 0);
}

void Film::recordReadback(VkCommandBuffer commands) const {
  const VkBufferCopy sums{.size = radianceSum_.bytes()};
  vkCmdCopyBuffer(commands, radianceSum_.get(), radianceSumHost_.get(), 1, &sums);
  vkCmdCopyBuffer(commands, radianceSquaredSum_.get(), radianceSquaredSumHost_.get(), 1, &sums);
  const VkBufferCopy counts{.size = counters_.bytes()};
  vkCmdCopyBuffer(commands, counters_.get(), countersHost_.get(), 1, &counts);
}

void Film::read(FrameResult& result) const {
  const size_t pixels = size_t(width_) * height_;
  const auto sums = radianceSumHost_.view<const gpu::vec4>();
  const auto squares = radianceSquaredSumHost_.view<const gpu::vec4>();
  const auto counters = countersHost_.view<const gpu::PixelCounters>();
  result.image = {width_, height_, std::vector<float>(pixels * 3)};
  result.meanVariance = {width_, height_, std::vector<float>(pixels * 3)};
  result.work = {};
  for (size_t i = 0; i < pixels; ++i) {
    const double n = sums[i].w;
    const double sum[3] = {sums[i].x, sums[i].y, sums[i].z};
    const double square[3] = {squares[i].x, squares[i].y, squares[i].z};
    for (int c = 0; c < 3; ++c) {
      const double mean = n > 0 ? sum[c] / n : 0.0;
      result.image.rgb[3 * i + c] = float(mean);
      // Sample variance over n, then divided by n again: the variance of the mean.
      const double variance = n > 1 ? std::max(0.0, (square[c] - n * mean * mean) / (n - 1)) : 0.0;
      result.meanVariance.rgb[3 * i + c] = float(n > 0 ? variance / n : 0.0);
    }
    result.work.extensionRays += counters[i].extensionRays;
    result.work.shadowRays += counters[i].shadowRays;
    result.work.pathSegments += counters[i].pathSegments;
    result.work.paths += counters[i].paths;
  }
}

}  // namespace ptbench
