// The self-test kernel: one dispatch that proves compilation, device addresses, dispatch,
// readback and timing work on a device (`ptbench selftest`, and the tests).
#pragma once
#include <cstdint>
#include <vector>

#include "core/vk/context.h"

namespace ptbench::vk {

struct SelftestResult {
  std::vector<uint32_t> values;  // read back from a buffer poisoned before the dispatch
  double gpuNs = 0;
};

constexpr uint32_t selftestPoison = 0xdeadbeefu;

// What the kernel must write at `index` (the C++ twin of shaders/selftest_fill.comp).
constexpr uint32_t selftestExpectedValue(uint32_t index, uint32_t multiplier) {
  return index * multiplier + (index ^ 0x5bd1e995u);
}

SelftestResult runSelftestKernel(const Context& context, uint32_t count, uint32_t multiplier);

}  // namespace ptbench::vk
