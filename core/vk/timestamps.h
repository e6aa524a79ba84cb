// GPU time per named stage, from timestamp queries (DESIGN.md, fairness rule 4).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/stage.h"
#include "core/vk/check.h"
#include "core/vk/context.h"

namespace ptbench::vk {

// One timed scope: a stage at a step (the bounce of a depth-synchronous wavefront, the
// iteration of a persistent pool; 0 where a stage has no steps) over `launches` dispatches.
struct StageTiming {
  Stage stage;
  uint32_t step = 0;
  uint32_t launches = 1;
  double gpuNs = 0;
};

struct FrameTiming {
  // From the timestamp before the first command to the one after the last: barriers, gaps
  // and, across several submissions, the host's waits all count (DESIGN.md, "honest").
  double frameNs = 0;
  std::vector<StageTiming> stages;  // in recording order; none without stage timestamps
  uint64_t launches = 0;            // dispatches and trace-rays calls in the frame's stages
};

// Timestamps in a chain of fixed-size query pools, so that a frame whose number of stages is
// known only while it runs (the persistent pool) never runs out. A frame may span several
// command buffers submitted in order on one queue; each pool is reset inside the command
// buffer that first writes it in the frame.
class StageTimer {
 public:
  explicit StageTimer(const Context& context);

  // Starts a frame: the frame's first timestamp. Record before anything else. Without
  // `stageTimestamps` (timing: frame) only the frame's two timestamps are written: stages are
  // labelled and their launches counted, not timed, so that the cost of timing each stage (a
  // timestamp waits for all earlier work) can be measured against it.
  void begin(VkCommandBuffer commands, bool stageTimestamps = true);
  // Brackets what `body` records with timestamps and a debug label named after the stage.
  void time(VkCommandBuffer commands, Stage stage, const std::function<void()>& body, uint32_t step = 0,
            uint32_t launches = 1);
  // Ends the frame: its last timestamp. Without it, read() reports frameNs as the sum of stages.
  void end(VkCommandBuffer commands);
  // After the last submission's fence.
  FrameTiming read() const;

  static constexpr uint32_t queriesPerPool = 1024;

 private:
  struct Query {
    uint32_t pool;
    uint32_t index;
  };
  Query nextQuery(VkCommandBuffer commands);
  void write(VkCommandBuffer commands, Query query);

  const Context& context_;
  std::vector<DeviceHandle<VkQueryPool, vkDestroyQueryPool>> pools_;
  uint32_t queriesUsed_ = 0;  // in this frame, over the whole chain
  struct Scope {
    StageTiming timing;
    Query begin, end;
  };
  std::vector<Scope> scopes_;
  std::optional<Query> frameBegin_, frameEnd_;
  bool stageTimestamps_ = true;
  uint64_t launches_ = 0;
};

}  // namespace ptbench::vk
