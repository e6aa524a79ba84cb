#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, AddressSanitizer and UBSan (build-sanitize/, which
# scripts/test.sh shares), and runs each for SECONDS (default 60) on its corpus, seeded from
# tests/fuzz/corpus/. A crash leaves its input as build-sanitize/crash-* and fails the script.
#   scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DPTBENCH_FUZZ=ON -DPTBENCH_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j"$(nproc)" --target fuzz_config fuzz_gltf fuzz_hdr fuzz_report >/dev/null
# One fuzzer a core at a time (libFuzzer runs on one thread): each has SECONDS of a core.
fuzz() {
  local target=$1
  mkdir -p "build-sanitize/corpus-$target"
  (cd build-sanitize && ./fuzz_$target -max_total_time="$seconds" -print_final_stats=1 "${flags[@]}" \
     "corpus-$target" "../tests/fuzz/corpus/$target" 2>&1 |
     grep -E "^(stat::number_of_executed_units|#[0-9]+ +DONE)|ERROR|SUMMARY" | sed "s/^/fuzz: $target: /" || true)
}
flags=("$@")
running=0
for target in config gltf hdr report; do
  echo "fuzz: $target for $seconds s"
  fuzz "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$(nproc)" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
# find, not ls of three globs: ls fails when any glob matches nothing, even if another matched.
failures=$(find build-sanitize -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \) -print)
if [ -n "$failures" ]; then
  echo "fuzz: a fuzzer found a failure: $failures" >&2
  exit 1
fi
echo "fuzz: no failures"
