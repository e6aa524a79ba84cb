#include "core/vk/pipeline_statistics.h"

#include <gtest/gtest.h>

namespace ptbench::vk {
namespace {

DeviceCapabilities nvidiaSm() {
  DeviceCapabilities device;
  device.vendorId = 0x10de;
  device.warpsPerSm = 64;
  device.pipelineExecutableInfo = true;
  return device;
}

std::vector<PipelineExecutable> withRegisters(double registers) {
  return {{.name = "main",
           .stages = VK_SHADER_STAGE_COMPUTE_BIT,
           .subgroupSize = 32,
           .statistics = {{"Binary Size", 4096}, {"Register Count", registers}, {"Spilled Registers", 7}}}};
}

// The register file (65,536 a SM) is allocated per warp in units of 256; workgroups are resident
// whole; warp slots bound the rest.
TEST(PipelineStatistics, OccupancyFollowsTheRegisterFileInWholeWorkgroups) {
  // 40 registers: 1,280 a warp, 51 warps by registers, 50 in workgroups of 2 warps.
  auto occupancy = vk::occupancy(nvidiaSm(), withRegisters(40), 64).occupancy;
  ASSERT_TRUE(occupancy);
  EXPECT_EQ(occupancy->registersPerThread, 40u);
  EXPECT_EQ(occupancy->warpsPerSm, 50u);
  EXPECT_EQ(occupancy->limitedBy, "registers");
  // 33 registers round up to 40 a thread (1,280 a warp): the same as 40.
  EXPECT_EQ(vk::occupancy(nvidiaSm(), withRegisters(33), 32).occupancy->warpsPerSm, 51u);
  // 32 registers: the register file holds 64 warps, every slot.
  occupancy = vk::occupancy(nvidiaSm(), withRegisters(32), 256).occupancy;
  EXPECT_EQ(occupancy->warpsPerSm, 64u);
  EXPECT_EQ(occupancy->limitedBy, "warp slots");
  EXPECT_DOUBLE_EQ(occupancy->fraction(), 1.0);
  // 255 registers: 8,160 a warp, 8 warps.
  EXPECT_EQ(vk::occupancy(nvidiaSm(), withRegisters(255), 1).occupancy->warpsPerSm, 8u);
}

TEST(PipelineStatistics, TheRegisterCountIsTheMostAnyExecutableNeedsAndNeverASpillCount) {
  auto executables = withRegisters(72);
  executables.push_back({.name = "closest hit", .statistics = {{"Spilled Registers", 500}, {"Register Count", 40}}});
  EXPECT_EQ(registersPerThread(executables), 72u);
  EXPECT_FALSE(registersPerThread({{.name = "main", .statistics = {{"Spilled Registers", 3}}}}));
}

TEST(PipelineStatistics, NoOccupancyWithoutWhatItNeedsAndTheReasonSaysWhich) {
  DeviceCapabilities lavapipe;
  EXPECT_EQ(vk::occupancy(lavapipe, {}, 64).reason, "the device lacks VK_KHR_pipeline_executable_properties");
  EXPECT_EQ(vk::occupancy(nvidiaSm(), {}, 64).reason, "the driver listed no executables for this pipeline");
  EXPECT_EQ(vk::occupancy(nvidiaSm(), {{.name = "main", .statistics = {{"Binary Size", 1}}}}, 64).reason,
            "the driver's statistics name no register count");
  DeviceCapabilities other = nvidiaSm();
  other.vendorId = 0x1002;
  EXPECT_FALSE(vk::occupancy(other, withRegisters(64), 64).occupancy);
}

}  // namespace
}  // namespace ptbench::vk
