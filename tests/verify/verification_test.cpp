#include "core/verify/verification.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "core/integrators/create.h"
#include "gpu_test.h"

namespace ptbench::verify {
// How GoogleTest names a combination in the test list (found by argument-dependent lookup).
void PrintTo(const Combination& combination, std::ostream* out) {
  *out << integratorName(combination.integrator) << " " << backendName(combination.backend);
}
}  // namespace ptbench::verify

namespace ptbench::test {
namespace {

// The analytic cases at the quick budget, built once for the tests of this process.
const std::vector<verify::AnalyticCase>& quickCases() {
  static const std::vector<verify::AnalyticCase> cases = verify::analyticCases(verify::quickBudget);
  return cases;
}

class EveryAnalyticCase : public GpuTest, public ::testing::WithParamInterface<verify::Combination> {};
class VerificationTest : public GpuTest {};

// What `ptbench verify --quick` runs, one integrator and backend per test so that CTest runs
// them side by side: every case within its tolerance, no invalid sample, no validation message.
TEST_P(EveryAnalyticCase, Passes) {
  context = validatedContext({allBackends.begin(), allBackends.end()});
  const verify::Combination combination = GetParam();
  // megakernel-ser needs SER, which lavapipe lacks: `ptbench verify` runs it on GPUs that have it.
  if (const std::string reason =
          unsupportedReason(combination.integrator, combination.backend, RenderSettings{}, context->capabilities());
      !reason.empty())
    GTEST_SKIP() << reason;
  const verify::Verification verification = verify::verifyCases(*context, quickCases(), std::span(&combination, 1));
  for (const auto& skipped : verification.skipped) ADD_FAILURE() << "skipped: " << skipped.reason;
  ASSERT_EQ(verification.results.size(), quickCases().size());
  for (const auto& result : verification.results) {
    EXPECT_TRUE(result.passed()) << result.caseName << ": " << result.problems();
    for (const auto& region : result.check.regions)
      EXPECT_GT(region.pixels, 0u) << result.caseName << ", " << region.region;
  }
  EXPECT_TRUE(verification.passed());
}

std::string combinationName(const ::testing::TestParamInfo<verify::Combination>& combination) {
  std::string name = std::string(integratorName(combination.param.integrator)) + "_" +
                     std::string(backendName(combination.param.backend));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryIntegratorAndBackend, EveryAnalyticCase, ::testing::ValuesIn(verify::everyCombination()),
                         combinationName);

// A backend the device (here: the context) lacks is a note, not a failure, and costs no render.
TEST_F(VerificationTest, SkipsABackendTheContextLacksWithANote) {
  context = validatedContext({Backend::RayQuery});
  const std::vector<verify::Combination> combinations = {{IntegratorKind::Megakernel, Backend::Software},
                                                         {IntegratorKind::Wavefront, Backend::Pipeline}};
  const verify::Verification verification = verify::verifyCases(*context, quickCases(), combinations);
  EXPECT_TRUE(verification.results.empty());
  ASSERT_EQ(verification.skipped.size(), 2u);
  for (const auto& skipped : verification.skipped)
    EXPECT_NE(skipped.reason.find("does not support"), std::string::npos) << skipped.reason;
  EXPECT_FALSE(verification.passed()) << "nothing verified is not a pass";
}

}  // namespace
}  // namespace ptbench::test
