#!/usr/bin/env bash
# Session 15, call 5: the software BVH's CPU build, main before the cpu-scale merge (old/) and
# after (build/), 10M triangles in 16 meshes on 1-16 threads, 50M in 64 meshes on 16 threads.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nproc; lscpu | grep -E "Model name|Thread|Core|Socket"; cat /sys/kernel/mm/transparent_hugepage/enabled; } > $OUT/host.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/mesh-10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null &
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
for t in 1 2 4 8 16; do
  for b in old build; do
    echo "10M $b threads=$t: $($b/ptbench --threads $t scene-info /tmp/mesh-10M.glb 2>&1 | line)" | tee -a $OUT/log.txt
  done
done
for r in 1 2 3; do
  for b in old build; do
    echo "50M $b threads=16 run=$r: $($b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb 2>&1 | line)" | tee -a $OUT/log.txt
  done
done
build/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-50M.json 2>/dev/null
gzip $OUT/scene-info-50M.json
