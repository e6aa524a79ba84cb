#include "core/vk/timestamps.h"

#include <string>

#include "core/errors.h"

namespace ptbench::vk {

StageTimer::StageTimer(const Context& context, uint32_t stageCapacity) : context_(context), capacity_(stageCapacity) {
  if (context.capabilities().timestampValidBits == 0)
    throw UserError(context.capabilities().name +
                    " cannot write timestamps on its compute queue, so ptbench cannot time it");
  const VkQueryPoolCreateInfo info{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                   .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                   .queryCount = 2 * stageCapacity};
  VkQueryPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateQueryPool(context.device(), &info, nullptr, &pool));
  pool_ = {context.device(), pool};
}

void StageTimer::begin(VkCommandBuffer commands) {
  vkCmdResetQueryPool(commands, pool_.get(), 0, 2 * capacity_);
  recorded_.clear();
}

void StageTimer::time(VkCommandBuffer commands, Stage stage, const std::function<void()>& body) {
  if (recorded_.size() >= capacity_)
    throw std::logic_error("StageTimer: more stages recorded than its capacity of " + std::to_string(capacity_));
  const auto query = static_cast<uint32_t>(2 * recorded_.size());
  recorded_.push_back(stage);
  const std::string label(stageName(stage));
  if (context_.debugLabels()) {
    const VkDebugUtilsLabelEXT debugLabel{.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
                                          .pLabelName = label.c_str()};
    vkCmdBeginDebugUtilsLabelEXT(commands, &debugLabel);
  }
  // ALL_COMMANDS on both ends: the first timestamp waits for earlier work to finish, the
  // second for this stage's, so a stage's time excludes what ran before it.
  vkCmdWriteTimestamp2(commands, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_.get(), query);
  body();
  vkCmdWriteTimestamp2(commands, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_.get(), query + 1);
  if (context_.debugLabels()) vkCmdEndDebugUtilsLabelEXT(commands);
}

std::vector<StageTiming> StageTimer::read() const {
  if (recorded_.empty()) return {};
  std::vector<uint64_t> ticks(2 * recorded_.size());
  VK_CHECK(vkGetQueryPoolResults(context_.device(), pool_.get(), 0, static_cast<uint32_t>(ticks.size()),
                                 ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const uint32_t validBits = context_.capabilities().timestampValidBits;
  // Bits above validBits are undefined; masking the difference also survives a counter wrap.
  const uint64_t mask = validBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << validBits) - 1;
  const double periodNs = context_.capabilities().timestampPeriodNs;
  std::vector<StageTiming> timings;
  for (size_t i = 0; i < recorded_.size(); ++i) {
    const uint64_t elapsed = (ticks[2 * i + 1] - ticks[2 * i]) & mask;
    timings.push_back({recorded_[i], static_cast<double>(elapsed) * periodNs});
  }
  return timings;
}

}  // namespace ptbench::vk
