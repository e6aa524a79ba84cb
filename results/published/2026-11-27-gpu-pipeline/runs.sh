#!/usr/bin/env bash
# Session 19, call 4 (H100): main against the GPU pipeline in lockstep steps (222677c with diagnostic spans), batch sizes 2^21..2^24 and a spinning fence wait, by environment variables of the diagnostic build.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/traces
first() {  # binary, label, env...
  local b=$1 label=$2; shift 2
  local start=$(date +%s%N)
  env PTBENCH_BUILD_TRACE=/tmp/traces/trace-$b-$label.txt "$@" $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --backend software --option software_builder=gpu --out /tmp/first.png > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b $label: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1) $(grep TRACE /tmp/first.log | tr '\n' ' ')" | tee -a $OUT/first-image.txt
}
for n in 1 2; do
  first main r3-$n
  first new b16M-$n PTBENCH_BATCH_PRIMITIVES=16777216
  first new b4M-$n PTBENCH_BATCH_PRIMITIVES=4194304
  first new b2M-$n PTBENCH_BATCH_PRIMITIVES=2097152
  first new b4Mspin-$n PTBENCH_BATCH_PRIMITIVES=4194304 PTBENCH_SPIN_FENCE=1
  first new b8M-$n PTBENCH_BATCH_PRIMITIVES=8388608
done
first new b4Mr0 PTBENCH_BATCH_PRIMITIVES=4194304 PTBENCH_TREELET_ROUNDS=0
tar -C /tmp/traces -czf $OUT/traces.tar.gz .
info() {
  local b=$1 n=$2; shift 2
  env "$@" $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb > /tmp/si.txt 2>&1
  echo "$b $n: $(grep -E 'software BVH built' /tmp/si.txt | tr '\n' ' ')" | tee -a $OUT/scene-info.txt
}
info new 1 PTBENCH_BATCH_PRIMITIVES=4194304; info main 1; info new 2 PTBENCH_BATCH_PRIMITIVES=4194304; info main 2

# Session 19, call 5 (H100): the same with the host work streamed (51f6220 with diagnostic spans).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
mkdir -p /tmp/traces
first() {  # binary, label, env...
  local b=$1 label=$2; shift 2
  local start=$(date +%s%N)
  env PTBENCH_BUILD_TRACE=/tmp/traces/trace-$b-$label.txt "$@" $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --backend software --option software_builder=gpu --out /tmp/first.png > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b $label: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1) $(grep TRACE /tmp/first.log | tr '\n' ' ')" | tee -a $OUT/first-image.txt
}
for n in 1 2; do
  first main r3-$n
  first new b16M-$n PTBENCH_BATCH_PRIMITIVES=16777216
  first new b4M-$n PTBENCH_BATCH_PRIMITIVES=4194304

  first new b4Mspin-$n PTBENCH_BATCH_PRIMITIVES=4194304 PTBENCH_SPIN_FENCE=1
  first new b8M-$n PTBENCH_BATCH_PRIMITIVES=8388608
done
first new b4Mr0 PTBENCH_BATCH_PRIMITIVES=4194304 PTBENCH_TREELET_ROUNDS=0
tar -C /tmp/traces -czf $OUT/traces.tar.gz .
info() {
  local b=$1 n=$2; shift 2
  env "$@" $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb > /tmp/si.txt 2>&1
  echo "$b $n: $(grep -E 'software BVH built' /tmp/si.txt | tr '\n' ' ')" | tee -a $OUT/scene-info.txt
}
info new 1 PTBENCH_BATCH_PRIMITIVES=4194304; info main 1

# Session 19, call 6 (H200): main (d3cac9c) against the final binary, no diagnostics.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep -E "Model name"; } | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/mesh-10M.glb > /dev/null &
wait
first() {  # binary, run
  local b=$1 n=$2
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --backend software --option software_builder=gpu --out /tmp/first.png > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b $n: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1)" | tee -a $OUT/first-image.txt
}
for n in 1 2 3; do first new $n; first main $n; done
info() {  # binary, run
  $1/ptbench --threads 16 scene-info /tmp/mesh-50M.glb > /tmp/si.txt 2>&1
  echo "$1 $2: $(grep -E 'software BVH built' /tmp/si.txt | tr '\n' ' ')" | tee -a $OUT/scene-info-50M.txt
}
for n in 1 2; do info new $n; info main $n; done
new/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-50M-new.json 2>/dev/null; gzip $OUT/scene-info-50M-new.json
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
for t in 1 2 4 8 16; do
  for b in new main; do
    echo "10M $b threads=$t: $($b/ptbench --threads $t scene-info /tmp/mesh-10M.glb 2>&1 | line)" | tee -a $OUT/cpu-scaling-10M.txt
  done
done

# Session 19, call 7 (H200): main (d3cac9c) against main after the review (the binary merged).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
first() {  # binary, run
  local b=$1 n=$2
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --backend software --option software_builder=gpu --out /tmp/first.png > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b $n: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms.*' /tmp/first.log | head -1)" | tee -a $OUT/first-image.txt
}
for n in 1 2 3; do first new $n; first main $n; done
new/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-50M-new.json 2>/dev/null
python3 - $OUT/scene-info-50M-new.json <<'PY' | tee $OUT/scene-info-summary.txt
import json, sys
d = json.load(open(sys.argv[1]))
for k in ('software_bvh', 'software_bvh_gpu'):
    s = d[k]
    print(k, 'build_ms %.0f' % s['build_ms'], 'binary_build_ms %.0f' % s['binary_build_ms'], 'kernels %.0f' % s.get('gpu_build_ms', 0),
          'batches', s.get('gpu_batches'), 'cwbvh_sah %.6f' % s['cwbvh']['bottom_levels']['sah_cost'], 'bvh2_sah %.6f' % s['bvh2']['bottom_levels']['sah_cost'])
PY
gzip $OUT/scene-info-50M-new.json

# Session 19, calls 8 and 9 (H200): main after the merge (b8c3580) against the chunked upload (branch chunked-upload). Call 8 piped the log through a plain 'tr', which buffered it, so its per-line stamps (and the build/upload columns) are void; call 9 used 'stdbuf -o0 tr', as below.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } | tee $OUT/device.txt
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s%3N)" "$l"; done; }
first() {  # binary, run, builder
  local b=$1 n=$2 builder=$3
  local start=$(date +%s%3N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --backend software --option software_builder=$builder --out /tmp/first.png 2>&1 | stdbuf -o0 tr '\r' '\n' | stamp > /tmp/first.log
  local end=$(date +%s%3N)
  local built=$(grep -E "building the software BVH.*done in" /tmp/first.log | head -1 | cut -d' ' -f1)
  local uploaded=$(grep -E "software BVH built in" /tmp/first.log | head -1 | cut -d' ' -f1)
  
  echo "$b $builder $n: process start to image written $((end - start)) ms; build done $((built - start)) ms after start; uploaded $((uploaded - built)) ms after the build; $(grep -oE 'software BVH built in [0-9.]+ ms' /tmp/first.log | head -1)" | tee -a $OUT/first-image.txt
}
for n in 1 2 3; do first chunked $n gpu; first merged $n gpu; done
first chunked 1 cpu; first merged 1 cpu
