#!/usr/bin/env bash
# Sets up, builds (warnings are errors) and runs every test, on lavapipe where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPTBENCH_WERROR=ON
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
