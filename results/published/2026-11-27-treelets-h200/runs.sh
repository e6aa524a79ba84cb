#!/usr/bin/env bash
# Session 17, call 1: the GPU builder with treelet restructuring. The host's cores; the 50M mesh's
# scene-info (both builders, both layouts) with 0-4 treelet rounds (r0..r4; build = 3, the
# default) and session 16's binary (old); the CWBVH layout as a render builds it.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name|NUMA node\(s\)"; nproc; } | tee $OUT/lscpu.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
info() {  # binary, run
  local b=$1 n=$2
  $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
  python3 - $OUT/scene-info-$b-$n.json $b <<'PY'
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
          'cwbvh_sah %.4f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.4f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
}
for n in 1 2; do for b in build old r0; do info $b $n; done; done 2>&1 | tee $OUT/scene-info.txt
for b in r1 r2 r4; do info $b 1; done 2>&1 | tee -a $OUT/scene-info.txt
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms' /tmp/first.log)" | tee -a $OUT/first-image.txt
}
for r in 1 2 3; do first build --backend software --option software_builder=gpu; done
first old --backend software --option software_builder=gpu
#!/usr/bin/env bash
# Session 17, call 2: the treelets height by height. The 50M mesh's scene-info (both builders,
# both layouts) with 1, 2, 3 (build, the default) and 4 treelet rounds, and session 16's binary
# (old, no treelets); the CWBVH layout as a render builds it; the builders' trees traced
# (bvh-builders.json: raycast primary and diffuse rays, software backend).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
info() {  # binary, run
  local b=$1 n=$2
  mkdir -p /tmp/si; $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
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
          'cwbvh_sah %.4f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.4f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
}
n=0; for b in build old r1 r2 r4 build; do n=$((n+1)); info $b $n; done 2>&1 | tee $OUT/scene-info.txt
cp /tmp/si/scene-info-build-1.json /tmp/si/scene-info-old-2.json $OUT/ && gzip $OUT/scene-info-*.json
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms' /tmp/first.log)" | tee -a $OUT/first-image.txt
}
for r in 1 2; do first build --backend software --option software_builder=gpu; first old --backend software --option software_builder=gpu; done
for b in build old; do
  (cd .gpu-bin && ../$b/ptbench -q run bvh-builders.json --out /tmp/bb-$b --json $OUT/bvh-builders-$b.json > $OUT/bvh-builders-$b.txt 2>&1) || echo "bvh-builders $b failed"
  gzip -f $OUT/bvh-builders-$b.json
  cat $OUT/bvh-builders-$b.txt
done
#!/usr/bin/env bash
# Session 17, call 3 (call 2's scene-info lines were lost: too many files came back): the treelets height by height. The 50M mesh's scene-info (both builders,
# both layouts) with 1, 2, 3 (build, the default) and 4 treelet rounds, and session 16's binary
# (old, no treelets); the CWBVH layout as a render builds it; the builders' trees traced
# (bvh-builders.json: raycast primary and diffuse rays, software backend).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
info() {  # binary, run
  local b=$1 n=$2
  mkdir -p /tmp/si; $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
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
          'cwbvh_sah %.4f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.4f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
}
n=0; for b in r1 r2 r4 build old r1 r2 r4 build old; do n=$((n+1)); info $b $n; done 2>&1 | tee $OUT/scene-info.txt
for b in build old; do
  (cd .gpu-bin && ../$b/ptbench -q run bvh-builders.json --set warmup_seconds=1 --set repeats=100 --out /tmp/bb-$b --json $OUT/bvh-builders-$b.json > $OUT/bvh-builders-$b.txt 2>&1) || echo "bvh-builders $b failed"
  gzip -f $OUT/bvh-builders-$b.json
  grep -E "^r0" $OUT/bvh-builders-$b.txt | cut -c1-130
done
#!/usr/bin/env bash
# Session 17, calls 4 and 5: issue 24's matrix again with today's GPU builder (batches, pooled
# buffers, treelets): session 12's large-scenes config (the 50M mesh and 164M instanced
# spheres, 4K and 8K, megakernel and wavefront, pipeline and software with both builders), one
# shard per call: bash s17-run4.sh K.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz build/ptbench
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
start=$(date +%s)
timeout 540 build/ptbench --threads 16 run .gpu-bin/large-scenes.json --shard $1/2 --out /tmp/ls --json $OUT/large-scenes-$1.json > $OUT/large-scenes-$1.txt 2>&1
echo "exit $? after $(( $(date +%s) - start )) s"
gzip -f $OUT/large-scenes-$1.json
grep -E "^r0|warning" $OUT/large-scenes-$1.txt | cut -c1-150
#!/usr/bin/env bash
# Session 17, call 8: the treelets' programme shared by a workgroup (coop) against one invocation per
# treelet (single, 4c0f912) and no treelets (old): the 50M mesh's scene-info (both builders, both
# layouts), and the CWBVH layout as a render builds it.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
info() {  # binary, run
  local b=$1 n=$2
  mkdir -p /tmp/si; $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
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
          'cwbvh_sah %.4f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.4f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
}
n=0; for b in coop single old coop single old; do n=$((n+1)); info $b $n; done 2>&1 | tee $OUT/scene-info.txt
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms' /tmp/first.log)" | tee -a $OUT/first-image.txt
}
for r in 1 2; do first coop --backend software --option software_builder=gpu; first old --backend software --option software_builder=gpu; done
#!/usr/bin/env bash
# Session 17, call 9: the treelet rounds without the heights below their smallest root (final) against
# 9125623 (coop) and no treelets (old): the 50M mesh's scene-info (both builders, both
# layouts), and the CWBVH layout as a render builds it.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
info() {  # binary, run
  local b=$1 n=$2
  mkdir -p /tmp/si; $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/si/scene-info-$b-$n.json 2> /tmp/err.txt || { echo "$b failed"; tail -3 /tmp/err.txt; }
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
          'cwbvh_sah %.4f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.4f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
}
n=0; for b in final coop old final coop old; do n=$((n+1)); info $b $n; done 2>&1 | tee $OUT/scene-info.txt
first() {  # binary, render arguments...
  local b=$1; shift
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms' /tmp/first.log)" | tee -a $OUT/first-image.txt
}
for r in 1 2; do for b in final coop old; do first $b --backend software --option software_builder=gpu; done; done
