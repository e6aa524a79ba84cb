#include "core/vk/timestamps.h"

#include <gtest/gtest.h>

#include "core/vk/selftest.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

class TimedKernel : public GpuTest {};

// A real kernel, its every element checked against the C++ formula, its stage time positive.
// runSelftestKernel poisons the buffer first, so an element the kernel skipped fails.
TEST_F(TimedKernel, WritesEveryElementAndIsTimed) {
  context = makeValidatedContext();
  constexpr uint32_t count = 1'000'003;  // not a multiple of the workgroup: the bounds check matters
  constexpr uint32_t multiplier = 2654435761u;
  const auto result = vk::runSelftestKernel(*context, count, multiplier);
  ASSERT_EQ(result.values.size(), count);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t expected = vk::selftestExpectedValue(i, multiplier);
    if (result.values[i] != expected && wrong++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << result.values[i] << ", expected " << expected;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(result.gpuNs, 0.0);
  EXPECT_LT(result.gpuNs, 10e9) << "a million-element fill cannot take ten seconds";
}

TEST_F(TimedKernel, TimerRefusesMoreStagesThanItsCapacity) {
  context = makeValidatedContext();
  vk::StageTimer timer(*context, 1);
  context->submitAndWait([&](VkCommandBuffer commands) {
    timer.begin(commands);
    timer.time(commands, Stage::Selftest, [] {});
    EXPECT_THROW(timer.time(commands, Stage::Selftest, [] {}), std::logic_error);
  });
}

}  // namespace
}  // namespace ptbench::test
