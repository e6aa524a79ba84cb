#include "core/vk/selftest.h"

#include "core/vk/barrier.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"
#include "core/vk/timestamps.h"
#include "shared/selftest.h"

namespace ptbench::vk {
SelftestResult runSelftestKernel(const Context& context, uint32_t count, uint32_t multiplier) {
  Buffer output(
      context, VkDeviceSize{count} * sizeof(uint32_t),
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      MemoryUse::DeviceOnly);
  Buffer readback(context, output.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::Readback);
  const auto pipeline = createComputePipeline(context, "selftest_fill", sizeof(gpu::SelftestPush));
  StageTimer timer(context);

  context.submitAndWait([&](VkCommandBuffer commands) {
    timer.begin(commands);
    vkCmdFillBuffer(commands, output.get(), 0, VK_WHOLE_SIZE, selftestPoison);
    // The fill must land before the kernel overwrites it, or a skipped element could still
    // hold a correct value from nowhere.
    memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    timer.time(commands, Stage::Selftest, [&] {
      const gpu::SelftestPush push{.values = output.address(), .count = count, .multiplier = multiplier};
      vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline.get());
      vkCmdPushConstants(commands, pipeline.layout.get(), VK_SHADER_STAGE_ALL, 0, sizeof(push), &push);
      vkCmdDispatch(commands, (count + gpu::WORKGROUP_SIZE_1D - 1) / gpu::WORKGROUP_SIZE_1D, 1, 1);
    });
    memoryBarrier(commands, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    const VkBufferCopy region{.size = output.bytes()};
    vkCmdCopyBuffer(commands, output.get(), readback.get(), 1, &region);
    memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });

  const auto values = readback.view<const uint32_t>();
  return {.values = {values.begin(), values.begin() + count}, .gpuNs = timer.read().stages.at(0).gpuNs};
}

}  // namespace ptbench::vk
