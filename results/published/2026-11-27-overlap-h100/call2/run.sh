#!/usr/bin/env bash
# Session 15, call 2: DamagedHelmet at the paper setting (frame timing) again, warm; the Cornell
# boxes at 1024^2, 256 spp, depth 64 and 5, both schedules, shadow_overlap on and off.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
bin=build/ptbench
dh='[{"path": "../scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb", "env": [1, 1, 1]}]'
for i in 1 2; do
$bin run configs/paper.json --out /tmp/paper-dh$i --set images=false --set 'backends=["pipeline","software"]' \
  --set "scenes=$dh" --set warmup_seconds=2 \
  --set 'options={"wavefront": {"material_queues": false, "shadow_overlap": [true, false]}}' --set timing=frame > $OUT/paper-dh$i-log.txt 2>&1
done
$bin run configs/cornell-1024.json --out /tmp/cornell --set images=false --set timing=frame \
  --set 'integrators=["megakernel","wavefront"]' \
  --set 'options={"wavefront": {"schedule": ["depth", "pool"], "shadow_overlap": [true, false]}}' > $OUT/cornell-log.txt 2>&1
cd /tmp && tar -czf $OUT/reports2.tar.gz $(find paper-dh1 paper-dh2 cornell -name report.json)
grep -E "^r0" $OUT/*-log.txt | cut -c1-200
