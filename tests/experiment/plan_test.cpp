#include "core/experiment/plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/experiment/config.h"
#include "core/experiment/report.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

// A device as the planner reads it, made up: no Vulkan is touched while a sweep is planned.
vk::DeviceCapabilities deviceWith(bool rayQuery, bool pipeline) {
  vk::DeviceCapabilities device;
  device.name = "a planned device";
  device.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  device.apiVersion = VK_API_VERSION_1_3;
  device.bufferDeviceAddress = device.scalarBlockLayout = device.synchronization2 = device.descriptorIndexing =
      device.int64Atomics = true;
  device.accelerationStructure = rayQuery || pipeline;
  device.rayQuery = rayQuery;
  device.rayTracingPipeline = device.rayTracingIndirect = pipeline;
  device.deviceLocalBytes = uint64_t{16} << 30;
  device.smCount = 100;
  return device;
}

ExperimentConfig configOf(const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("ptbench-plan-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  ExperimentConfig config = loadConfig(path);
  fs::remove(path);
  return config;
}

// backends: all resolves, before any GPU work, to one typed run per backend the device has, each
// with its backend's options and the wavefront's default pool; what cannot run says why.
TEST(ExperimentPlan, ASweepOverAllBackendsResolvesToTypedRunsBeforeAnyGpuWork) {
  const ExperimentConfig config = configOf(R"({"schema_version": 1, "name": "t", "scenes": ["builtin:cornell"],
      "integrators": ["megakernel", "wavefront", "megakernel-ser"], "backends": "all", "width": 64, "height": 64,
      "spp": 4, "options": {"software": {"software_bvh": ["cwbvh", "bvh2"]}}})");
  const ExperimentPlan plan = planExperiment(config, deviceWith(true, true));
  std::map<std::string, int> runsPerIntegratorAndBackend;
  for (const RunRecord& run : plan.runs) {
    SCOPED_TRACE(run.id);
    if (run.spec.integrator == IntegratorKind::MegakernelSer) {
      // "all" means the pipeline backend for it, and this device has no SER.
      EXPECT_EQ(run.traceBackend, Backend::Pipeline);
      EXPECT_NE(run.error.find("VK_NV_ray_tracing_invocation_reorder"), std::string::npos) << run.error;
      continue;
    }
    ASSERT_TRUE(run.traceBackend.has_value());
    EXPECT_EQ(run.backend, backendName(*run.traceBackend));
    EXPECT_EQ(run.error, "");
    ++runsPerIntegratorAndBackend[std::string(integratorName(run.spec.integrator)) + " " + run.backend];
    if (run.spec.integrator == IntegratorKind::Wavefront) {
      EXPECT_EQ(run.spec.settings.wavefront.poolSize, 64u * 64 * 4);  // the default, cut to the frame
      EXPECT_NE(run.wavefrontPoolReason.find("cut to the frame's paths"), std::string::npos);
    }
  }
  EXPECT_EQ(runsPerIntegratorAndBackend,
            (std::map<std::string, int>{{"megakernel rayquery", 1},
                                        {"megakernel pipeline", 1},
                                        {"megakernel software", 2},  // one per software_bvh
                                        {"wavefront rayquery", 1},
                                        {"wavefront pipeline", 1},
                                        {"wavefront software", 2}}));
  EXPECT_EQ(plan.backends, (std::vector<Backend>{Backend::RayQuery, Backend::Pipeline, Backend::Software}));
  for (size_t i = 0; i < plan.runs.size(); ++i) EXPECT_EQ(plan.runs[i].id, runId(i));
}

// A device with compute only: the same sweep plans software runs alone, and a named hardware
// backend becomes an error run naming what is missing.
TEST(ExperimentPlan, ADeviceWithoutHardwareTracingPlansSoftwareRunsAndSaysWhyTheOthersCannotRun) {
  const ExperimentConfig config = configOf(R"({"schema_version": 1, "name": "t", "scenes": ["builtin:cornell"],
      "integrators": ["megakernel"], "backends": ["all", "pipeline"], "width": 64, "height": 64, "spp": 1})");
  const ExperimentPlan plan = planExperiment(config, deviceWith(false, false));
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[0].traceBackend, Backend::Software);
  EXPECT_EQ(plan.runs[0].error, "");
  EXPECT_FALSE(plan.runs[1].traceBackend.has_value());
  EXPECT_EQ(plan.runs[1].backend, "pipeline");
  EXPECT_NE(plan.runs[1].error, "");
  EXPECT_EQ(plan.backends, (std::vector<Backend>{Backend::Software}));
}

}  // namespace
}  // namespace ptbench::test
