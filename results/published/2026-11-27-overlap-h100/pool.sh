#!/usr/bin/env bash
# Session 15, call 7/8: configs/pool.json with this build, timing frame (so that shadow_overlap
# is recorded), one backend a call: BACKEND is the first argument.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
build/ptbench run configs/pool.json --out /tmp/pool --set images=false --set timing=frame --set "backends=[\"$1\"]" > $OUT/pool-$1-log.txt 2>&1
echo "rc $?"
cp $(find /tmp/pool -name report.json) $OUT/pool-$1.json && gzip $OUT/pool-$1.json
grep -c "^r[0-9]" $OUT/pool-$1-log.txt
