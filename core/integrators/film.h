// The film on the GPU: per-pixel radiance sums (shared/render.h, FilmPixel), the megakernel's
// work counters and, with counters: simt, the divergence counters, and their readback.
#pragma once
#include <optional>

#include "core/integrators/integrator.h"
#include "core/vk/buffer.h"
#include "shared/render.h"

namespace ptbench {

class Film;
// The film a frame of `settings` needs (its size, and divergence counters where the integrator
// was created with them): `film` as it is when it matches, else a new one. Integrators keep one
// across frames; it is cleared inside every frame.
const Film& filmFor(std::optional<Film>& film, const vk::Context& context, const RenderSettings& settings,
                    bool simtCounters);

class Film {
 public:
  Film(const vk::Context& context, uint32_t width, uint32_t height, bool simtCounters);
  // Device memory a film of this size takes (the host-visible copies match it).
  static uint64_t deviceBytes(uint32_t width, uint32_t height) {
    return uint64_t{width} * height * (sizeof(gpu::FilmPixel) + sizeof(gpu::PixelCounters));
  }

  void recordClear(VkCommandBuffer commands) const;
  // Copies the film to host-visible memory, after a barrier that makes the kernels' writes
  // visible to the copy; the caller waits for the fence, then calls read.
  void recordReadback(VkCommandBuffer commands, VkPipelineStageFlags2 writers) const;
  // Fills the image, its variance, the sample counts, the megakernel's work counts and the
  // divergence counters (stage: the integrator's shading stage).
  void read(FrameResult& result, Stage simtStage) const;

  VkDeviceAddress pixels() const { return pixels_.address(); }
  VkDeviceAddress counters() const { return counters_.address(); }
  VkDeviceAddress simtCounters() const { return simt_ ? simt_->address() : 0; }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

 private:
  uint32_t width_, height_;
  vk::Buffer pixels_, counters_;
  vk::Buffer pixelsHost_, countersHost_;
  std::optional<vk::Buffer> simt_, simtHost_;  // SimtCountersHeader and SIMT_MAX_BOUNCES bounces
};

}  // namespace ptbench
