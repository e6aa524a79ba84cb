// Each trace backend's device requirements, read against lavapipe, which has them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/trace/registry.h"
#include "core/vk/device_setup.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

vk::DeviceCapabilities lavapipe() {
  return vk::selectDevice(testDevice);
}

TEST(BackendDescriptors, LavapipeMeetsEveryBackendsRequirements) {
  const vk::DeviceCapabilities device = lavapipe();
  ASSERT_TRUE(device.meetsBaseline());
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    EXPECT_TRUE(backend->supportedBy(device)) << backend->name;
    EXPECT_TRUE(trace::supports(device, backend->id)) << backend->name;
  }
  EXPECT_EQ(trace::supportedBackends(device).size(), trace::backends().size());
}

// Without ray tracing lavapipe is a compute-only device: only the software backend, which needs
// nothing beyond the baseline, is left, and each other one says what it needs.
TEST(BackendDescriptors, ADeviceWithoutRayTracingRunsOnlyWhatNeedsNoMore) {
  vk::DeviceCapabilities computeOnly = lavapipe();
  computeOnly.accelerationStructure = computeOnly.rayQuery = computeOnly.rayTracingPipeline = false;
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    const bool needsMore = !backend->needs.empty();
    EXPECT_EQ(backend->supportedBy(computeOnly), !needsMore) << backend->name;
    EXPECT_EQ(backend->scene == trace::SceneNeeds::SoftwareBvh, !needsMore) << backend->name;
  }
  vk::DeviceCapabilities noRayQueries = lavapipe();
  noRayQueries.rayQuery = false;
  EXPECT_FALSE(trace::descriptor(Backend::RayQuery).supportedBy(noRayQueries));
  EXPECT_TRUE(trace::descriptor(Backend::Pipeline).supportedBy(noRayQueries));
}

// What each backend enables: the extensions it traces with, and acceleration structures exactly
// when its scene needs them. The device is created with each alone, under the validation layer.
TEST(BackendDescriptors, EachBackendAloneEnablesWhatItTracesWith) {
  const vk::DeviceCapabilities device = lavapipe();
  const auto enabled = [](const vk::DeviceSetup& setup, const char* extension) {
    return std::any_of(setup.extensions.begin(), setup.extensions.end(),
                       [&](const char* e) { return std::strcmp(e, extension) == 0; });
  };
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    vk::DeviceSetup setup;
    backend->enable(setup, device);
    const bool accelerationStructures = backend->scene == trace::SceneNeeds::AccelerationStructures;
    EXPECT_EQ(enabled(setup, VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME), accelerationStructures) << backend->name;
    EXPECT_EQ(enabled(setup, VK_KHR_RAY_QUERY_EXTENSION_NAME), backend->id == Backend::RayQuery) << backend->name;
    EXPECT_EQ(enabled(setup, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME), backend->rayGeneration) << backend->name;

    const auto context = validatedContext({backend->id});
    EXPECT_TRUE(context->backendEnabled(backend->id)) << backend->name;
    EXPECT_EQ(context->accelerationStructuresEnabled(), accelerationStructures) << backend->name;
    EXPECT_EQ(validationMessagesOfThisTest(*context), 0u) << backend->name;
  }
}

}  // namespace
}  // namespace ptbench::test
