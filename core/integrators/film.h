// The film on the GPU: per-pixel radiance sums (shared/render.h, FilmPixel) and the
// megakernel's work counters, and their readback into images.
#pragma once
#include <optional>

#include "core/integrators/integrator.h"
#include "core/vk/buffer.h"
#include "shared/render.h"

namespace ptbench {

class Film;
// The film of a frame of width x height: `film` as it is when its size matches, else a new one.
// Integrators keep one across frames; it is cleared inside every frame.
const Film& filmOfSize(std::optional<Film>& film, const vk::Context& context, uint32_t width, uint32_t height);

class Film {
 public:
  Film(const vk::Context& context, uint32_t width, uint32_t height);
  // Device memory a film of this size takes (the host-visible copies match it).
  static uint64_t deviceBytes(uint32_t width, uint32_t height) {
    return uint64_t{width} * height * (sizeof(gpu::FilmPixel) + sizeof(gpu::FilmSample) + sizeof(gpu::PixelCounters));
  }

  void recordClear(VkCommandBuffer commands) const;
  // Copies the film to host-visible memory, after a barrier that makes the kernels' writes
  // visible to the copy; the caller waits for the fence, then calls read.
  void recordReadback(VkCommandBuffer commands, VkPipelineStageFlags2 writers) const;
  // Fills the image, its variance, the sample counts and the megakernel's work counts.
  void read(FrameResult& result) const;

  VkDeviceAddress pixels() const { return pixels_.address(); }
  VkDeviceAddress samples() const { return samples_.address(); }
  VkDeviceAddress counters() const { return counters_.address(); }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

 private:
  uint32_t width_, height_;
  vk::Buffer pixels_, counters_;
  vk::Buffer samples_;  // FilmSample per pixel: a megakernel launch's, for film_resolve
  vk::Buffer pixelsHost_, countersHost_;
};

}  // namespace ptbench
