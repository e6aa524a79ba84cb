// The film on the GPU: radiance sums, squared sums and work counters per pixel, and their
// readback into images.
#pragma once
#include "core/integrators/integrator.h"
#include "core/vk/buffer.h"
#include "shared/render.h"

namespace ptbench {

class Film {
 public:
  Film(const vk::Context& context, uint32_t width, uint32_t height);
  // Device memory a film of this size takes (the host-visible copies match it).
  static uint64_t deviceBytes(uint32_t width, uint32_t height) {
    return uint64_t{width} * height * (2 * sizeof(gpu::vec4) + sizeof(gpu::PixelCounters));
  }

  void recordClear(VkCommandBuffer commands) const;
  // Copies the film to host-visible memory; the caller waits for the fence, then calls read.
  void recordReadback(VkCommandBuffer commands) const;
  void read(FrameResult& result) const;

  VkDeviceAddress radianceSum() const { return radianceSum_.address(); }
  VkDeviceAddress radianceSquaredSum() const { return radianceSquaredSum_.address(); }
  VkDeviceAddress counters() const { return counters_.address(); }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

 private:
  uint32_t width_, height_;
  vk::Buffer radianceSum_, radianceSquaredSum_, counters_;
  vk::Buffer radianceSumHost_, radianceSquaredSumHost_, countersHost_;
};

}  // namespace ptbench
