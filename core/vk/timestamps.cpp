#include "core/vk/timestamps.h"

#include <string>

#include "core/errors.h"

namespace ptbench::vk {

StageTimer::StageTimer(const Context& context) : context_(context) {
  if (context.capabilities().timestampValidBits == 0)
    throw UserError(context.capabilities().name +
                    " cannot write timestamps on its compute queue, so ptbench cannot time it");
}

void StageTimer::begin(VkCommandBuffer commands, bool stageTimestamps) {
  stageTimestamps_ = stageTimestamps;
  launches_ = 0;
  queriesUsed_ = 0;
  scopes_.clear();
  frameEnd_.reset();
  frameBegin_ = nextQuery(commands);
  write(commands, *frameBegin_);
}

StageTimer::Query StageTimer::nextQuery(VkCommandBuffer commands) {
  const Query query{queriesUsed_ / queriesPerPool, queriesUsed_ % queriesPerPool};
  if (query.index == 0) {
    if (query.pool == pools_.size()) {
      const VkQueryPoolCreateInfo info{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                       .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                       .queryCount = queriesPerPool};
      VkQueryPool pool = VK_NULL_HANDLE;
      VK_CHECK(vkCreateQueryPool(context_.device(), &info, nullptr, &pool));
      pools_.emplace_back(context_.device(), pool);
    }
    // A pool is reset where the frame first reaches it, in the command buffer that writes it.
    vkCmdResetQueryPool(commands, pools_[query.pool].get(), 0, queriesPerPool);
  }
  ++queriesUsed_;
  return query;
}

void StageTimer::write(VkCommandBuffer commands, Query query) {
  // ALL_COMMANDS: the timestamp waits for every earlier command to finish, so a stage's time
  // excludes what ran before it and the frame's last timestamp follows all its work.
  vkCmdWriteTimestamp2(commands, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pools_[query.pool].get(), query.index);
}

void StageTimer::time(VkCommandBuffer commands, Stage stage, const std::function<void()>& body, uint32_t step,
                      uint32_t launches) {
  if (!frameBegin_) throw std::logic_error("StageTimer::time before begin");
  const std::string label(stageName(stage));
  if (context_.debugLabels()) {
    const VkDebugUtilsLabelEXT debugLabel{.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
                                          .pLabelName = label.c_str()};
    vkCmdBeginDebugUtilsLabelEXT(commands, &debugLabel);
  }
  launches_ += launches;
  if (stageTimestamps_) {
    Scope scope{.timing = {.stage = stage, .step = step, .launches = launches}};
    scope.begin = nextQuery(commands);
    write(commands, scope.begin);
    body();
    scope.end = nextQuery(commands);
    write(commands, scope.end);
    scopes_.push_back(scope);
  } else {
    body();
  }
  if (context_.debugLabels()) vkCmdEndDebugUtilsLabelEXT(commands);
}

void StageTimer::end(VkCommandBuffer commands) {
  frameEnd_ = nextQuery(commands);
  write(commands, *frameEnd_);
}

FrameTiming StageTimer::read() const {
  FrameTiming result;
  if (!frameBegin_) return result;
  std::vector<uint64_t> ticks(queriesUsed_);
  for (uint32_t pool = 0; pool * queriesPerPool < queriesUsed_; ++pool) {
    const uint32_t count = std::min(queriesPerPool, queriesUsed_ - pool * queriesPerPool);
    VK_CHECK(vkGetQueryPoolResults(context_.device(), pools_[pool].get(), 0, count, count * sizeof(uint64_t),
                                   &ticks[pool * queriesPerPool], sizeof(uint64_t),
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  }
  const uint32_t validBits = context_.capabilities().timestampValidBits;
  // Bits above validBits are undefined; masking the difference also survives a counter wrap.
  const uint64_t mask = validBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << validBits) - 1;
  const double periodNs = context_.capabilities().timestampPeriodNs;
  auto elapsedNs = [&](Query from, Query to) {
    const uint64_t elapsed =
        (ticks[to.pool * queriesPerPool + to.index] - ticks[from.pool * queriesPerPool + from.index]) & mask;
    return static_cast<double>(elapsed) * periodNs;
  };
  double stageSum = 0;
  for (const Scope& scope : scopes_) {
    StageTiming timing = scope.timing;
    timing.gpuNs = elapsedNs(scope.begin, scope.end);
    stageSum += timing.gpuNs;
    result.stages.push_back(timing);
  }
  result.frameNs = frameEnd_ ? elapsedNs(*frameBegin_, *frameEnd_) : stageSum;
  result.launches = launches_;
  return result;
}

}  // namespace ptbench::vk
