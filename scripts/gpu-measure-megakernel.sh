#!/usr/bin/env bash
# Run on the remote NVIDIA machine (see docs/gpu.md): scene statistics and megakernel renders
# of the Cornell box and DamagedHelmet through the ray-tracing-pipeline backend.
set -euo pipefail
out=${1:?usage: gpu-measure-megakernel.sh OUTDIR}
bin=build/ptbench
$bin devices
for scene in builtin:cornell scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb; do
  $bin scene-info "$scene"
done
$bin scene-info --json scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb > "$out/scene-info-damaged-helmet.json"
$bin scene-info --json builtin:cornell > "$out/scene-info-cornell.json"
for integrator in megakernel megakernel-regen; do
  # The first render of each pairing warms the driver's shader cache; the second is reported.
  for pass in warmup measured; do
    $bin render --scene builtin:cornell --integrator $integrator --backend pipeline --width 1024 --height 1024 \
      --spp 256 --max-depth 8 --seed 1 --out "$out/cornell-$integrator.png" | sed "s/^/[$pass] /"
    $bin render --scene scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb --env 1,1,1 --integrator $integrator \
      --backend pipeline --width 1024 --height 1024 --spp 64 --max-depth 8 --seed 1 \
      --out "$out/damaged-helmet-$integrator.png" | sed "s/^/[$pass] /"
  done
done
