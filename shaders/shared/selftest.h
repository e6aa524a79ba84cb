// The self-test kernel: proves that compilation, dispatch, device addresses and timing work.
#ifndef PTBENCH_SELFTEST_H
#define PTBENCH_SELFTEST_H
#include "shared.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

struct SelftestPush {
  uint64_t values;  // device address of uint[count]
  uint count;
  uint multiplier;
};

PTBENCH_END_NAMESPACE
#endif
