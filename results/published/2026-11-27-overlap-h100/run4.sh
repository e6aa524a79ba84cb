#!/usr/bin/env bash
# Session 15, call 4 (final build): the Cornell boxes at 1024^2, 256 spp, depth 64 and 5, both
# schedules, shadow_overlap on and off; the depth config.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
bin=build/ptbench
$bin run configs/cornell-1024.json --out /tmp/r/cornell --set images=false --set timing=frame \
  --set 'integrators=["megakernel","wavefront"]' \
  --set 'options={"wavefront": {"schedule": ["depth", "pool"], "shadow_overlap": [true, false]}}' > $OUT/cornell-log.txt 2>&1
$bin run configs/depth.json --out /tmp/r/depth --set images=false > $OUT/depth-log.txt 2>&1
cd /tmp/r && tar -czf $OUT/reports4.tar.gz $(find . -name report.json)
grep -E "^r0|^r1|^r2|^r3" $OUT/cornell-log.txt | cut -c1-200
