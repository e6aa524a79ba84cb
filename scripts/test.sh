#!/usr/bin/env bash
# Sets up, builds (warnings are errors) and runs every test, on lavapipe where there is no GPU;
# then the unit and bad-input tests again under ASan and UBSan, and each fuzzer for 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPTBENCH_WERROR=ON
cmake --build build -j"$(nproc)"
# The same code under AddressSanitizer and UBSan (clang): the unit tests, the bad-input tests
# and each fuzzer for a short, fixed time. (The other GPU tests stay on the plain build:
# lavapipe under ASan is slow, and its own leaks are not ours.)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DPTBENCH_SANITIZE=ON -DPTBENCH_FUZZ=ON -DPTBENCH_WERROR=ON
cmake --build build-sanitize -j"$(nproc)" --target ptbench ptbench_unit_tests ptbench_gpu_tests fuzz_config fuzz_gltf fuzz_hdr
build-sanitize/ptbench_unit_tests --gtest_brief=1
ASAN_OPTIONS=detect_leaks=0 build-sanitize/ptbench_gpu_tests --gtest_brief=1 --gtest_filter='BadInputTest.*'
scripts/fuzz.sh 30
# A failed test runs once more, alone: one that fails again fails the run; one that then passes
# is named as flaky at the end, its first failure's output (for a crash, its stack) above. One
# has: a bus error inside a lavapipe test once in many runs under CTest's load, never reproduced.
if ! ctest --test-dir build --output-on-failure -j"$(nproc)"; then
  echo "test.sh: running the failed tests once more, alone"
  ctest --test-dir build --output-on-failure --rerun-failed
  echo "test.sh: FLAKY: the tests CTest listed as failed above passed when run again alone;" \
    "their first output is above"
fi
# The analytic checks with every integrator and backend lavapipe has, through the binary users
# run (README, "Checking a device"); exit 3 on a wrong image.
build/ptbench --validate verify --quick
