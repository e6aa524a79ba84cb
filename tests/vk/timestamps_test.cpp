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
  context = validatedContext();
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

// More scopes than one query pool holds, over two submissions as the pool schedule records
// them: every scope is read back, and the frame spans them all.
TEST_F(TimedKernel, TimerChainsPoolsAcrossSubmissions) {
  context = validatedContext();
  vk::StageTimer timer(*context);
  const uint32_t scopes = vk::StageTimer::queriesPerPool;  // two queries each: two pools and more
  for (int frame = 0; frame < 2; ++frame) {                // a second frame reuses the chain
    for (uint32_t submission = 0; submission < 2; ++submission)
      context->submitAndWait([&](VkCommandBuffer commands) {
        if (submission == 0) timer.begin(commands);
        for (uint32_t i = 0; i < scopes / 2; ++i)
          timer.time(
              commands, Stage::Selftest, [] {}, i, 1);
        timer.end(commands);
      });
    const vk::FrameTiming timing = timer.read();
    ASSERT_EQ(timing.stages.size(), scopes);
    double sum = 0;
    for (uint32_t i = 0; i < scopes; ++i) {
      EXPECT_EQ(timing.stages[i].step, i % (scopes / 2));
      EXPECT_GE(timing.stages[i].gpuNs, 0.0);
      sum += timing.stages[i].gpuNs;
    }
    EXPECT_GE(timing.frameNs, sum) << "the frame runs from its first timestamp to its last";
  }
}

}  // namespace
}  // namespace ptbench::test
