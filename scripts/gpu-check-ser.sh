#!/usr/bin/env bash
# On a GPU with VK_NV_ray_tracing_invocation_reorder (docs/gpu.md): renders the Cornell box and
# ToyCar with megakernel and megakernel-ser (both hints) on the pipeline backend and checks that
# the images agree: channel means within 0.5%, every pixel within 5 standard errors
# (scripts/compare_images.py). Reordering moves threads, never what they compute.
#   scripts/gpu-check-ser.sh OUTDIR [PTBENCH]
set -euo pipefail
out=${1:?usage: gpu-check-ser.sh OUTDIR [PTBENCH]}
bin=${2:-build/ptbench}
here=$(dirname "$0")
mkdir -p "$out"
$bin devices
status=0
for scene in builtin:cornell scenes/ToyCar/glTF/ToyCar.gltf; do
  name=$(basename "${scene#builtin:}" .gltf)
  env=(); [ "$scene" = builtin:cornell ] || env=(--env 1,1,1)
  common=(--scene "$scene" "${env[@]}" --backend pipeline --width 512 --height 512 --spp 64 --max-depth 8 --seed 1)
  $bin render "${common[@]}" --integrator megakernel --out "$out/$name-megakernel.pfm" \
    --out-variance "$out/$name-megakernel-var.pfm" --out "$out/$name-megakernel.png"
  for hint in material none; do
    $bin render "${common[@]}" --integrator megakernel-ser --option hint=$hint \
      --out "$out/$name-ser-$hint.pfm" --out-variance "$out/$name-ser-$hint-var.pfm"
    echo "== $name: megakernel against megakernel-ser hint=$hint"
    "$here/compare_images.py" "$out/$name-megakernel.pfm" "$out/$name-megakernel-var.pfm" \
      "$out/$name-ser-$hint.pfm" "$out/$name-ser-$hint-var.pfm" || status=1
  done
done
[ $status = 0 ] && echo "every image agrees" || echo "SOME IMAGES DISAGREE"
exit $status
