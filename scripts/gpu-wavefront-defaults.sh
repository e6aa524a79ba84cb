#!/usr/bin/env bash
# On the remote NVIDIA machine (docs/gpu.md): the measurements behind the wavefront's defaults
# and the megakernel's speed. Each step is one or more `ptbench run`s and
# leaves OUTDIR/STEP.tar.gz (its report folders, no images, and its log) as soon as it ends,
# so that a step cut short loses only itself.
#   scripts/gpu-wavefront-defaults.sh OUTDIR STEP...
# STEP: pool (configs/pool.json), cornell (configs/cornell-1024.json), helmets
# (configs/helmets-640.json), paper, depth, before (the megakernels of an older build at
# build-old/ptbench on the Cornell frames, beside this build's), verify (--quick), gate (a
# performance-gate baseline for this GPU, then the gate against it).
set -uo pipefail
out=${1:?usage: gpu-wavefront-defaults.sh OUTDIR STEP...}
shift
bin=build/ptbench
$bin devices > "$out/devices.txt" 2>&1
status=0
for step in "$@"; do
  dir=$(mktemp -d)/$step
  mkdir -p "$dir"
  log=$dir/log.txt
  case $step in
    pool|paper|depth) $bin run "configs/$step.json" --out "$dir" --set images=false >"$log" 2>&1 || status=1 ;;
    cornell) $bin run configs/cornell-1024.json --out "$dir" --set images=false >"$log" 2>&1 || status=1 ;;
    helmets) $bin run configs/helmets-640.json --out "$dir" --set images=false >"$log" 2>&1 || status=1 ;;
    before)
      # The same frames, megakernels only, by the older build and by this one. The older build
      # knows no `timing` key: its config goes without (beside the others, for the scenes'
      # relative paths).
      grep -v '"timing"' configs/cornell-1024.json > configs/before.tmp.json
      for build in build-old build; do
        "$build/ptbench" run configs/before.tmp.json --out "$dir/$build" --set images=false \
          --set 'integrators=["megakernel", "megakernel-regen"]' >>"$log" 2>&1 || status=1
      done
      rm -f configs/before.tmp.json ;;
    gate)
      # A baseline for this GPU from one measurement, then the gate against it from another.
      scripts/gpu-perf-gate.sh --out "$dir/baseline" >"$log" 2>&1
      scripts/gpu-perf-gate.sh --report "$dir/baseline/report.json" --update-baseline >>"$log" 2>&1 || status=1
      scripts/gpu-perf-gate.sh --out "$dir/check" >>"$log" 2>&1 || status=1
      cp -r results/baselines "$dir/" ;;
    verify) $bin verify --quick --json "$dir/verify.json" >"$log" 2>&1 || status=1 ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
  tail -5 "$log"
  tar -C "$(dirname "$dir")" -czf "$out/$step.tar.gz" "$step"
done
exit $status
