// Runs the analytic cases (core/verify/analytic_cases.h) with integrators and backends on one
// device and collects the verdicts: what `ptbench verify` prints and the GPU tests assert.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/verify/analytic_cases.h"
#include "core/vk/context.h"

namespace ptbench::verify {

struct Combination {
  IntegratorKind integrator;
  Backend backend;
};

// Every path tracer with every backend, in the order verify prints them (raycast renders no
// light transport: it has no known answers to meet).
std::vector<Combination> everyCombination();

struct CaseResult {
  std::string caseName;
  Combination combination;
  CaseCheck check;                  // empty when error is set
  uint32_t validationMessages = 0;  // while this case rendered
  std::string error;                // a Vulkan error or a broken invariant: the case failed
  bool passed() const { return error.empty() && check.passed() && validationMessages == 0; }
  // What failed, in words; empty when it passed.
  std::string problems() const;
};

// A combination the device or ptbench cannot run: not a failure, a note.
struct SkippedCombination {
  Combination combination;
  std::string reason;
};

struct Verification {
  std::vector<CaseResult> results;  // case by case, each case's combinations in the order given
  std::vector<SkippedCombination> skipped;
  bool passed() const;
};

// Renders every case with every combination on the context (created with every backend the
// device supports). A combination the device lacks, or whose integrator refuses the device
// (a UserError, such as the software backend's "not implemented yet"), is skipped; any other
// error fails its case and the next one runs. onResult, when given, sees each result as it comes.
Verification verifyCases(const vk::Context& context, std::span<const AnalyticCase> cases,
                         std::span<const Combination> combinations,
                         const std::function<void(const CaseResult&)>& onResult = {});

}  // namespace ptbench::verify
