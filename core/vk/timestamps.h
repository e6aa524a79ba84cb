// GPU time per named stage, from timestamp queries (DESIGN.md, fairness rule 4).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/stage.h"
#include "core/vk/check.h"
#include "core/vk/context.h"

namespace ptbench::vk {

struct StageTiming {
  Stage stage;
  double gpuNs;
};

// A query pool sized for one frame's stages: two queries a stage, never wrapped around, so a
// result can't be overwritten before it is read. Reset inside the command buffer.
class StageTimer {
 public:
  StageTimer(const Context& context, uint32_t stageCapacity);

  // Resets the pool; record once per frame before the first stage.
  void begin(VkCommandBuffer commands);
  // Brackets what `body` records with timestamps and a debug label named after the stage.
  void time(VkCommandBuffer commands, Stage stage, const std::function<void()>& body);
  // After the frame's fence: each stage's GPU time, in recording order.
  std::vector<StageTiming> read() const;

 private:
  const Context& context_;
  DeviceHandle<VkQueryPool, vkDestroyQueryPool> pool_;
  uint32_t capacity_;
  std::vector<Stage> recorded_;
};

}  // namespace ptbench::vk
