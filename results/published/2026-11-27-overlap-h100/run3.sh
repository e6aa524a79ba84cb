#!/usr/bin/env bash
# Session 15, call 3 (final build): the paper setting on five scenes, shadow_overlap on and off
# (frame timing; stage timing on the helmets), the helmets at 640x480, the performance gate.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
bin=build/ptbench
{ $bin --version; $bin devices; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/devices.txt 2>&1
five='[{"path": "../scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb", "env": [1, 1, 1]}, {"path": "../scenes/FlightHelmet/FlightHelmet.gltf", "env": [1, 1, 1]}, {"path": "../scenes/ToyCar/glTF/ToyCar.gltf", "env": [1, 1, 1]}, "builtin:cornell", {"path": "../scenes/CornellBox_bevy/CornellBox.glb"}]'
helmets='[{"path": "../scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb", "env": [1, 1, 1]}, {"path": "../scenes/FlightHelmet/FlightHelmet.gltf", "env": [1, 1, 1]}]'
$bin run configs/paper.json --out /tmp/r/paper --set images=false --set 'backends=["pipeline","software"]' \
  --set "scenes=$five" --set warmup_seconds=2 \
  --set 'options={"wavefront": {"material_queues": false, "shadow_overlap": [true, false]}}' --set timing=frame > $OUT/paper-log.txt 2>&1
$bin run configs/paper.json --out /tmp/r/paper-stages --set images=false --set 'backends=["pipeline","software"]' \
  --set "scenes=$helmets" \
  --set 'options={"wavefront": {"material_queues": false, "shadow_overlap": [true, false]}}' --set timing=stages > $OUT/paper-stages-log.txt 2>&1
$bin run configs/helmets-640.json --out /tmp/r/helmets --set images=false --set timing=frame \
  --set 'integrators=["megakernel","wavefront"]' \
  --set 'options={"wavefront": {"schedule": ["depth", "pool"], "shadow_overlap": [true, false]}}' > $OUT/helmets-log.txt 2>&1
scripts/gpu-perf-gate.sh --out /tmp/r/gate > $OUT/gate-log.txt 2>&1; echo "gate exit $?" >> $OUT/gate-log.txt
cp /tmp/r/gate/compare.txt $OUT/gate-compare.txt
cd /tmp/r && tar -czf $OUT/reports3.tar.gz $(find . -name report.json)
grep -E "^r0|^r1" $OUT/paper-log.txt | cut -c1-200
