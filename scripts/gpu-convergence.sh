#!/usr/bin/env bash
# On the GPU machine (docs/gpu.md): a reference of ToyCar at 1080p (megakernel, 4096 spp), then
# the megakernel and the wavefront at 1, 4 and 16 spp against it: relMSE, time to a target,
# efficiency. The reference is too large to ship, so the config is written here.
#   scripts/gpu-convergence.sh OUTDIR [REFERENCE_SPP]
set -euo pipefail
out=${1:?usage: gpu-convergence.sh OUTDIR [REFERENCE_SPP]}
spp=${2:-4096}
here=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
build/ptbench reference "$here/scenes/ToyCar/glTF/ToyCar.gltf" --env 1,1,1 --width 1920 --height 1080 --spp "$spp" \
  --max-depth 8 --seed 1000 --out "$scratch/toycar.exr" "$out/toycar-reference.png"
cat > "$scratch/convergence.json" <<JSON
{"schema_version": 1, "name": "convergence",
 "description": "ToyCar at 1080p against a $spp-spp megakernel reference: is the faster frame as good per second?",
 "scenes": [{"path": "$here/scenes/ToyCar/glTF/ToyCar.gltf", "env": [1, 1, 1], "reference": "$scratch/toycar.exr"}],
 "integrators": ["megakernel", "wavefront"], "options": {"wavefront": {"material_queues": [false, true]}},
 "backends": ["auto"], "resolution": "1920x1080", "spp": [1, 4, 16], "max_depth": 8, "seed": 1,
 "target_relmse": 0.01, "warmup": 5, "warmup_seconds": 0.5, "repeats": 7, "images": false}
JSON
"$here/scripts/gpu-run-experiment.sh" "$scratch/convergence.json" "$out"
