#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/errors.h"
#include "core/trace/registry.h"
#include "core/vk/barrier.h"
#include "core/vk/buffer.h"
#include "core/vk/check.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

// CI and development machines run lavapipe from Mesa 25, which has both hardware-style backends.
TEST(DeviceProbe, LavapipeReportsRayQueriesPipelinesAndTimestamps) {
  const auto devices = vk::listDevices();
  ASSERT_FALSE(devices.empty());
  const auto lavapipe = std::find_if(devices.begin(), devices.end(),
                                     [](const auto& d) { return d.name.find("llvmpipe") != std::string::npos; });
  ASSERT_NE(lavapipe, devices.end()) << "lavapipe (llvmpipe) not found; is mesa-vulkan-drivers installed?";
  EXPECT_EQ(lavapipe->type, VK_PHYSICAL_DEVICE_TYPE_CPU);
  EXPECT_TRUE(trace::supports(*lavapipe, Backend::RayQuery));
  EXPECT_TRUE(trace::supports(*lavapipe, Backend::Pipeline));
  EXPECT_TRUE(trace::supports(*lavapipe, Backend::Software));
  EXPECT_GT(lavapipe->timestampValidBits, 0u);
  EXPECT_GT(lavapipe->timestampPeriodNs, 0.0f);
  EXPECT_GE(lavapipe->rayTracingProperties.shaderGroupHandleSize, 16u);
}

class ContextTest : public GpuTest {};

TEST_F(ContextTest, CreatesDeviceWithEveryBackendLavapipeHas) {
  context = validatedContext({Backend::RayQuery, Backend::Pipeline, Backend::Software});
  EXPECT_NE(context->device(), VK_NULL_HANDLE);
  EXPECT_TRUE(context->validationEnabled());
}

TEST(ContextErrors, UnknownDeviceNameListsTheDevices) {
  try {
    vk::Context context(vk::ContextOptions{.deviceSelector = "no-such-gpu"});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("the device \"no-such-gpu\" (from --device, PTBENCH_DEVICE"), std::string::npos) << message;
    EXPECT_NE(message.find("llvmpipe"), std::string::npos) << message;
  }
}

TEST(ContextErrors, UnknownDeviceIndexListsTheDevices) {
  EXPECT_THROW(vk::Context(vk::ContextOptions{.deviceSelector = "99"}), UserError);
}

TEST(ContextErrors, SelectsByIndexAndByNameSubstring) {
  vk::Context byIndex(vk::ContextOptions{.deviceSelector = "0"});
  EXPECT_EQ(byIndex.capabilities().index, 0u);
  vk::Context byName(vk::ContextOptions{.deviceSelector = "LLVMPIPE"});
  EXPECT_NE(byName.capabilities().name.find("llvmpipe"), std::string::npos);
}

// uploadBuffer stages a chunk at a time (pinning a large array's host memory whole cost more than
// the copy): an upload of two chunks and a part gives the device every byte in place.
TEST_F(ContextTest, UploadsLargerThanAChunkArriveWhole) {
  context = validatedContext({Backend::Software});
  std::vector<uint32_t> words((2 * vk::uploadChunkBytes + 4 * 12345) / 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = static_cast<uint32_t>(i * 2654435761u);
  const vk::Buffer uploaded =
      vk::uploadBuffer(*context, std::span<const uint32_t>(words), VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  const vk::Buffer back(*context, uploaded.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback);
  context->submitAndWait([&](VkCommandBuffer commands) {
    const VkBufferCopy region{.size = uploaded.bytes()};
    vkCmdCopyBuffer(commands, uploaded.get(), back.get(), 1, &region);
    vk::memoryBarrier(commands, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  });
  EXPECT_EQ(std::memcmp(back.mapped(), words.data(), uploaded.bytes()), 0);
}

// No validation here: the point is the driver's refusal, which the layer would flag first.
TEST(ContextErrors, OutOfMemoryIsAVulkanErrorThatSaysWhatToDo) {
  vk::Context context(vk::ContextOptions{.deviceSelector = testDevice});
  try {
    vk::Buffer impossible(context, VkDeviceSize{1} << 52, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                          vk::MemoryUse::DeviceOnly);
    FAIL() << "a 4 PiB buffer was allocated";
  } catch (const vk::VulkanError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out of memory: use a smaller resolution or scene"), std::string::npos) << message;
    // What the callers that free memory and try again (the GPU builder's pool, the layouts'
    // upload) test.
    EXPECT_TRUE(error.outOfMemory()) << message;
  }
  EXPECT_FALSE(vk::VulkanError(VK_ERROR_DEVICE_LOST, "vkQueueSubmit2", __FILE__, __LINE__).outOfMemory());
}

}  // namespace
}  // namespace ptbench::test
