#include "core/verify/verification.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/integrators/create.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

// The analytic cases at the quick budget, built once for the tests of this process.
const std::vector<verify::AnalyticCase>& quickCases() {
  static const std::vector<verify::AnalyticCase> cases = verify::analyticCases(verify::quickBudget);
  return cases;
}

class VerificationTest : public GpuTest {};

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
