#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/trace/registry.h"
#include "core/vk/context.h"

namespace ptbench::test {
namespace {

// What the NVIDIA H100/H200 report: ray-tracing pipelines, no ray queries.
vk::DeviceCapabilities pipelineOnlyGpu() {
  vk::DeviceCapabilities caps;
  caps.name = "Pipeline-only GPU";
  caps.apiVersion = VK_API_VERSION_1_3;
  caps.bufferDeviceAddress = caps.scalarBlockLayout = caps.descriptorIndexing = caps.synchronization2 = true;
  caps.int64Atomics = true;
  caps.accelerationStructure = caps.rayTracingPipeline = true;
  return caps;
}

TEST(ResolveBackend, AutoTakesRayQueriesWhereTheyExistElseThePipeline) {
  auto caps = pipelineOnlyGpu();
  EXPECT_EQ(trace::resolveBackend(caps, "auto"), Backend::Pipeline);
  caps.rayQuery = true;
  EXPECT_EQ(trace::resolveBackend(caps, "auto"), Backend::RayQuery);
  EXPECT_EQ(trace::resolveBackend(caps, "pipeline"), Backend::Pipeline);
}

TEST(ResolveBackend, AMissingBackendNamesTheOnesTheDeviceHas) {
  try {
    trace::resolveBackend(pipelineOnlyGpu(), "rayquery");
    FAIL() << "rayquery was accepted on a device without ray queries";
  } catch (const UserError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("backend rayquery is not supported by Pipeline-only GPU"), std::string::npos) << message;
    EXPECT_NE(message.find("it supports: pipeline, software"), std::string::npos) << message;
  }
  EXPECT_THROW(trace::resolveBackend(pipelineOnlyGpu(), "optix"), UserError);
  vk::DeviceCapabilities computeOnly = pipelineOnlyGpu();
  computeOnly.rayTracingPipeline = false;
  EXPECT_EQ(trace::resolveBackend(computeOnly, "auto"), Backend::Software) << "any Vulkan 1.3 GPU runs the benchmark";
  vk::DeviceCapabilities tooOld = computeOnly;
  tooOld.apiVersion = VK_API_VERSION_1_2;
  EXPECT_THROW(trace::resolveBackend(tooOld, "auto"), UserError);
}

}  // namespace
}  // namespace ptbench::test
