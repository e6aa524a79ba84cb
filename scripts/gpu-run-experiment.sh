#!/usr/bin/env bash
# On the remote GPU machine (docs/gpu.md): runs a config and copies what matters to OUTDIR,
# flat (the device tool brings back files at most two folders deep).
#   scripts/gpu-run-experiment.sh CONFIG OUTDIR [ptbench run options...]
set -euo pipefail
config=${1:?usage: gpu-run-experiment.sh CONFIG OUTDIR [options...]}
out=${2:?usage: gpu-run-experiment.sh CONFIG OUTDIR [options...]}
shift 2
scratch=$(mktemp -d)
status=0
build/ptbench run "$config" --out "$scratch" "$@" | tee "$out/summary.txt" || status=$?
folder=$(ls -d "$scratch"/*/*/ | head -1)
cp "$folder/report.json" "$folder/report.csv" "$out/"
for png in "$folder"/r00[0-3]-*.png; do [ -e "$png" ] && cp "$png" "$out/"; done
exit $status
