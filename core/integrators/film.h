// The film on the GPU: per-pixel radiance sums (shared/render.h, FilmPixel), the megakernel's
// work counters and the counters a run asks for (divergence or clocks), and their readback.
#pragma once
#include <optional>
#include <span>

#include "core/integrators/integrator.h"
#include "core/vk/buffer.h"
#include "shared/render.h"

namespace ptbench {

class Film;
// The film a frame of `settings` needs (its size, and the counters the integrator was created
// with): `film` as it is when it matches, else a new one. Integrators keep one across frames; it
// is cleared inside every frame.
const Film& filmFor(std::optional<Film>& film, const vk::Context& context, const RenderSettings& settings,
                    Counters counters);

class Film {
 public:
  Film(const vk::Context& context, uint32_t width, uint32_t height, Counters counters);
  // Device memory a film of this size takes (the host-visible copies match it).
  static uint64_t deviceBytes(uint32_t width, uint32_t height) {
    return uint64_t{width} * height * (sizeof(gpu::FilmPixel) + sizeof(gpu::PixelCounters));
  }

  void recordClear(VkCommandBuffer commands) const;
  // Copies the film to host-visible memory, after a barrier that makes the kernels' writes
  // visible to the copy; the caller waits for the fence, then calls read.
  void recordReadback(VkCommandBuffer commands, VkPipelineStageFlags2 writers) const;
  // Fills the image, its variance, the sample counts, the megakernel's work counts and the
  // counters: divergence for `simtStage` (the integrator's shading stage); clocks per bounce, or,
  // where `clockStages` names them, per stage (the stage of each bin, CLOCK_BIN_*).
  void read(FrameResult& result, Stage simtStage, std::span<const Stage> clockStages) const;

  VkDeviceAddress pixels() const { return pixels_.address(); }
  VkDeviceAddress counters() const { return counters_.address(); }
  VkDeviceAddress simtCounters() const { return counterKind_ == Counters::Simt ? shaderCounters_->address() : 0; }
  VkDeviceAddress clockCounters() const { return counterKind_ == Counters::Clocks ? shaderCounters_->address() : 0; }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  Counters counterKind() const { return counterKind_; }

 private:
  uint32_t width_, height_;
  Counters counterKind_;  // which shaderCounters_ hold
  vk::Buffer pixels_, counters_;
  vk::Buffer pixelsHost_, countersHost_;
  // counters: simt: SimtCountersHeader and SIMT_MAX_BOUNCES bounces; clocks: CLOCK_MAX_BINS bins.
  std::optional<vk::Buffer> shaderCounters_, shaderCountersHost_;
};

}  // namespace ptbench
