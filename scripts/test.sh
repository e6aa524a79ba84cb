#!/usr/bin/env bash
# Sets up, builds (warnings are errors) and runs every test, on lavapipe where there is no GPU;
# then the unit and bad-input tests again under ASan and UBSan, and each fuzzer for 30 s.
# Prints each stage's time as it ends, and last a table of them and one line:
#   test.sh: N passed, N failed, N skipped (N flaky) in M min S s
# Every skipped test is named there with why. Exit 0 only when nothing failed.
set -euo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0 flaky=0
notes=()
stages=()
stage="" stage_start=0 run_start=$(date +%s)

end_stage() {
  if [ -n "$stage" ]; then
    local seconds=$(($(date +%s) - stage_start))
    stages+=("$(printf '%-34s %5d s' "$stage" "$seconds")")
    echo "test.sh: $stage took $seconds s"
  fi
  stage=""
}
begin_stage() {
  end_stage
  stage=$1
  stage_start=$(date +%s)
  echo "test.sh: == $stage"
}
# Adds what scripts/count_tests.py counted in FILE (KIND: junit, gtest or verify; junit may name
# the folder of its suites' reports).
count() {
  local counted
  counted=$(python3 scripts/count_tests.py "$@") || {
    failed=$((failed + 1))
    notes+=("failed: $stage wrote no results ($2)")
    return 0
  }
  local p f s
  read -r p f s <<<"$(head -1 <<<"$counted")"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  while IFS= read -r note; do [ -n "$note" ] && notes+=("$note ($stage)"); done < <(tail -n +2 <<<"$counted")
}
finish() {
  local status=$?
  if [ -n "$stage" ] && [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    notes+=("failed: $stage stopped with exit $status")
  fi
  end_stage
  echo
  echo "test.sh: stages"
  printf '  %s\n' "${stages[@]}"
  [ ${#notes[@]} -eq 0 ] || printf '  %s\n' "${notes[@]}"
  local total=$(($(date +%s) - run_start))
  echo "test.sh: $passed passed, $failed failed, $skipped skipped ($flaky flaky) in $((total / 60)) min $((total % 60)) s"
  if [ "$failed" -gt 0 ] && [ "$status" -eq 0 ]; then exit 1; fi
}
trap finish EXIT

# Ninja and ccache where setup installed them; a build folder keeps the generator it was made with.
# A unity build: each file of a batch of eight parses the headers (nlohmann/json, fmt, spdlog,
# Vulkan) and compiles their inline code once for all eight, less than half the cold build's time
# on two cores (core/CMakeLists.txt names the files that compile alone).
configure() {
  local folder=$1
  shift
  local generator=()
  [ -f "$folder/CMakeCache.txt" ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
  local launcher=()
  ! command -v ccache >/dev/null || launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$folder" "${generator[@]}" "${launcher[@]}" -DCMAKE_UNITY_BUILD=ON "$@" >/dev/null
}

begin_stage "setup"
scripts/setup.sh

begin_stage "build (release)"
configure build -DCMAKE_BUILD_TYPE=Release -DPTBENCH_WERROR=ON
cmake --build build -j"$(nproc)"

# The same code under AddressSanitizer and UBSan (clang): the unit tests, the bad-input tests
# and each fuzzer for a short, fixed time. (The other GPU tests stay on the plain build:
# lavapipe under ASan is slow, and its own leaks are not ours.)
begin_stage "build (sanitizers)"
configure build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DPTBENCH_SANITIZE=ON -DPTBENCH_FUZZ=ON -DPTBENCH_WERROR=ON
cmake --build build-sanitize -j"$(nproc)" --target ptbench ptbench_unit_tests ptbench_bad_input_tests fuzz_config fuzz_gltf fuzz_hdr fuzz_report

# CTest runs them side by side, as it does the plain build's; only these are built here.
begin_stage "sanitizers: unit and bad-input tests"
ctest --test-dir build-sanitize -L unit --output-on-failure -j"$(nproc)" --output-junit unit.xml || true
count junit build-sanitize/unit.xml
ctest --test-dir build-sanitize -R '^BadInputTest[.]' --output-on-failure -j"$(nproc)" --output-junit bad-input.xml ||
  true
count junit build-sanitize/bad-input.xml

begin_stage "fuzzers (4 x 30 s)"
scripts/fuzz.sh 30
passed=$((passed + 4))

# The tests of the plain build, every label (unit, gpu, slurm, scripts). A failed test runs once
# more, alone: one that fails again fails the run; one that then passes is named FLAKY at the
# end, its first failure's output (for a crash, its stack) above. One has: a bus error inside a
# lavapipe test once in many runs under CTest's load, never reproduced.
# A CTest test `Suite.*` runs a GPU test suite in one process and reports its tests in
# build/gtest-suites (cmake/GTestSuites.cmake); a rerun of it runs the whole suite again.
begin_stage "tests (ctest)"
reran=false
first_reports=build/gtest-suites  # the first run's suite reports, kept apart if a rerun rewrites them
rm -rf build/gtest-suites build/gtest-suites-first
if ! ctest --test-dir build --output-on-failure -j"$(nproc)" --output-junit ctest.xml; then
  echo "test.sh: running the failed tests once more, alone"
  first_reports=build/gtest-suites-first
  cp -r build/gtest-suites "$first_reports" 2>/dev/null || mkdir -p "$first_reports"
  ctest --test-dir build --output-on-failure --rerun-failed --output-junit ctest-rerun.xml || true
  reran=true
fi
count junit build/ctest.xml "$first_reports"
# A test that failed, then passed alone, is counted as passed and named FLAKY instead.
if $reran; then
  again=$(python3 scripts/count_tests.py junit build/ctest-rerun.xml build/gtest-suites | sed -n 's/^failed: //p' || true)
  kept=()
  for note in "${notes[@]}"; do
    name=${note#failed: }
    name=${name% ($stage)}
    if [ "$note" = "failed: $name ($stage)" ] && ! grep -qxF "$name" <<<"$again"; then
      flaky=$((flaky + 1)) passed=$((passed + 1)) failed=$((failed - 1))
      note="FLAKY: $name failed, then passed alone; its first output is above"
    fi
    kept+=("$note")
  done
  notes=("${kept[@]}")
fi

# The analytic checks with every integrator and backend lavapipe has, through the binary users
# run (docs/testing.md, "Checking a device"); exit 3 on a wrong image. One process a backend, side
# by side: each compiles its own pipelines, mostly on one core. The backends are read from their
# registration, so that a backend added there is verified here too.
begin_stage "verify (--quick)"
backends=$(sed -n 's/^PTBENCH_TRACE_BACKEND([A-Za-z]*, *\([a-z]*\),.*/\1/p' core/backends.def)
[ -n "$backends" ] || { echo "test.sh: no backend read from core/backends.def" >&2; exit 1; }
for backend in $backends; do
  build/ptbench --validate verify --quick --backend "$backend" --json "build/verify-$backend.json" \
    > "build/verify-$backend.txt" 2>&1 &
done
wait || true
for backend in $backends; do
  cat "build/verify-$backend.txt"
  count verify "build/verify-$backend.json"
done
