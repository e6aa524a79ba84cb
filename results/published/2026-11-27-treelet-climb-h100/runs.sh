#!/usr/bin/env bash
# Session 18, call 1: the treelet rounds as one climb each (a workgroup per 32 or 64 leaves,
# treelets solved by the workgroup as the climb reaches them) against session 17's height by
# height (old), and the same binary with no rounds (r0). The 50M mesh's scene-info (both
# builders, both layouts), then the CWBVH layout as a render builds it.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/si
info() {  # binary, run
  local b=$1 n=$2
  $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
  python3 - /tmp/si/scene-info-$b-$n.json $b <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def find(o):
    if isinstance(o, dict):
        if 'builder' in o and 'build_ms' in o: yield o
        for v in o.values(): yield from find(v)
    elif isinstance(o, list):
        for v in o: yield from find(v)
for s in find(d):
    print(sys.argv[2], s['builder'], 'build_ms %.0f' % s['build_ms'], 'kernels_ms %.0f' % s.get('gpu_build_ms', 0),
          'cwbvh_sah %.6f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.6f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
}
for n in 1 2 3; do for b in build old w64 r0; do info $b $n; done; done 2>&1 | tee $OUT/scene-info.txt
gzip -c /tmp/si/scene-info-build-1.json > $OUT/scene-info-50M-build.json.gz
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1)" | tee -a $OUT/first-image.txt
}
for r in 1 2; do for b in build old w64 r0; do first $b --backend software --option software_builder=gpu; done; done

#!/usr/bin/env bash
# Session 18, call 2: where the GPU builder's kernels spend their time (gpu_stage_ms), for the
# treelets as one climb a round (build), the same climbs restructuring nothing (climb), the climbs
# growing treelets but solving none (grow), and no rounds (r0). The 50M mesh, both layouts.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/si
info() {  # binary, run
  local b=$1 n=$2
  $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
  python3 - /tmp/si/scene-info-$b-$n.json $b <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['software_bvh_gpu']
print(sys.argv[2], 'build_ms %.0f' % s['build_ms'], 'kernels_ms %.0f' % s['gpu_build_ms'],
      'cwbvh_sah %.6f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.6f' % s['bvh2']['bottom_levels']['sah_cost'],
      ' '.join('%s %.1f' % (k, v) for k, v in s['gpu_stage_ms'].items()))
PY
}
for n in 1 2; do for b in build climb grow r0; do info $b $n; done; done 2>&1 | tee $OUT/stages.txt

#!/usr/bin/env bash
# Session 18, call 3: the treelet rounds at eadd1ce (build: one climb a round, later rounds from
# their size's frontier, the largest subsets solved by teams; r2: the same with 2 rounds),
# against the first form of one climb a round (fused, call 1's build), session 17's height by
# height (old) and no rounds (r0). The 50M mesh's scene-info (both layouts; kernels by stage where
# the binary reports them), then the CWBVH layout as a render builds it.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/si
info() {  # binary, run
  local b=$1 n=$2
  $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
  python3 - /tmp/si/scene-info-$b-$n.json $b <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['software_bvh_gpu']
print(sys.argv[2], 'build_ms %.0f' % s['build_ms'], 'kernels_ms %.0f' % s['gpu_build_ms'],
      'cwbvh_sah %.6f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.6f' % s['bvh2']['bottom_levels']['sah_cost'],
      ' '.join('%s %.1f' % (k, v) for k, v in s.get('gpu_stage_ms', {}).items()))
PY
}
for n in 1 2 3; do for b in build old fused r2 r0; do info $b $n; done; done 2>&1 | tee $OUT/scene-info.txt
gzip -c /tmp/si/scene-info-build-1.json > $OUT/scene-info-50M-build.json.gz
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1)" | tee -a $OUT/first-image.txt
}
for r in 1 2 3; do for b in build old r2 r0; do first $b --backend software --option software_builder=gpu; done; done

#!/usr/bin/env bash
# Session 18, call 4: the performance gate for session 17's binary (old, f1c5115) and this
# session's (build, eadd1ce), one after the other on one machine, and the two reports compared.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
PTBENCH=old/ptbench scripts/gpu-perf-gate.sh --out /tmp/gate-old > /tmp/gate-old.txt 2>&1; echo "old against the stored baseline: exit $?"; tail -3 /tmp/gate-old.txt
PTBENCH=build/ptbench scripts/gpu-perf-gate.sh --out /tmp/gate-build > /tmp/gate-build.txt 2>&1; echo "build against the stored baseline: exit $?"; tail -3 /tmp/gate-build.txt
PTBENCH=build/ptbench scripts/gpu-perf-gate.sh --compare-only /tmp/gate-old/report.json /tmp/gate-build/report.json > $OUT/gate-old-vs-build.txt 2>&1; echo "build against old: exit $?"
tail -5 $OUT/gate-old-vs-build.txt
cp /tmp/gate-build.txt $OUT/gate-build-vs-baseline.txt
gzip -c /tmp/gate-build/report.json > $OUT/gate-build-report.json.gz
gzip -c /tmp/gate-old/report.json > $OUT/gate-old-report.json.gz

#!/usr/bin/env bash
# Session 18, call 5 (diagnostic): what the driver says of the GPU builder's kernels (registers,
# memory; VK_KHR_pipeline_executable_properties), printed by a build of eadd1ce that lists them.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
diag/ptbench scene-info builtin:cornell 2>&1 | grep DIAG | tee $OUT/kernels.txt
#!/usr/bin/env bash
# Session 18, call 6: main after the review (ee09a2b: a round's kernels for every level between
# the same barriers, small levels skipped) against session 17's height by height (old). The 50M
# mesh's scene-info (both layouts), then the CWBVH layout as a render builds it.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/si
info() {  # binary, run
  local b=$1 n=$2
  $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
  python3 - /tmp/si/scene-info-$b-$n.json $b <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['software_bvh_gpu']
print(sys.argv[2], 'build_ms %.0f' % s['build_ms'], 'kernels_ms %.0f' % s['gpu_build_ms'],
      'cwbvh_sah %.6f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.6f' % s['bvh2']['bottom_levels']['sah_cost'],
      ' '.join('%s %.1f' % (k, v) for k, v in s.get('gpu_stage_ms', {}).items()))
PY
}
for n in 1 2 3; do for b in build old; do info $b $n; done; done 2>&1 | tee $OUT/scene-info.txt
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1)" | tee -a $OUT/first-image.txt
}
for r in 1 2 3; do for b in build old; do first $b --backend software --option software_builder=gpu; done; done
#!/usr/bin/env bash
# Session 18, call 7 (experiment, branch treelet-subgroups): the treelet climb with each subgroup
# of a 128-invocation workgroup climbing and solving on its own (sub), against main (build).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
timeout 60 sub/ptbench --validate scene-info 'builtin:spheres?n=16&subdiv=24' > /tmp/v.txt 2>&1; echo "sub small: exit $?"; grep -iE "error|SAH" /tmp/v.txt | head -8
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/si
info() {  # binary, run
  local b=$1 n=$2
  timeout 120 $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; return; }
  python3 - /tmp/si/scene-info-$b-$n.json $b <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['software_bvh_gpu']
print(sys.argv[2], 'build_ms %.0f' % s['build_ms'], 'kernels_ms %.0f' % s['gpu_build_ms'],
      'cwbvh_sah %.6f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.6f' % s['bvh2']['bottom_levels']['sah_cost'],
      ' '.join('%s %.1f' % (k, v) for k, v in s.get('gpu_stage_ms', {}).items()))
PY
}
for n in 1 2 3; do for b in sub build; do info $b $n; done; done 2>&1 | tee $OUT/scene-info.txt
