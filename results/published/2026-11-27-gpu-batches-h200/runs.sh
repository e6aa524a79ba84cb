#!/usr/bin/env bash
# Session 16, call 1: the GPU builder before (old/, e48731c) and after batching levels (build/),
# 50M triangles in 64 meshes on 16 threads; scene-info builds with both builders.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nproc; lscpu | grep -E "Model name|Thread|Core|Socket"; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/host.txt
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
line() { grep -E "software BVH built in" ; }
for r in 1 2 3; do
  for b in old build; do
    echo "50M $b run=$r:" | tee -a $OUT/log.txt
    $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb 2>&1 | line | tee -a $OUT/log.txt
  done
done
build/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-50M.json 2>/dev/null
gzip $OUT/scene-info-50M.json
for b in old build; do
  echo "spheres 164M $b:" | tee -a $OUT/log.txt
  $b/ptbench --threads 16 scene-info 'builtin:spheres?n=4096&subdiv=100' 2>&1 | line | tee -a $OUT/log.txt
done
#!/usr/bin/env bash
# Session 16, call 2: the GPU builder before (old/, e48731c) and after batching levels and pooling buffers (build/),
# 50M triangles in 64 meshes on 16 threads; scene-info builds with both builders.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nproc; lscpu | grep -E "Model name|Thread|Core|Socket"; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/host.txt
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
line() { grep -E "software BVH built in" ; }
for r in 1 2 3; do
  for b in old build; do
    echo "50M $b run=$r:" | tee -a $OUT/log.txt
    $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb 2>&1 | line | tee -a $OUT/log.txt
  done
done
build/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-50M.json 2>/dev/null
gzip $OUT/scene-info-50M.json
for b in old build; do
  echo "spheres 164M $b:" | tee -a $OUT/log.txt
  $b/ptbench --threads 16 scene-info 'builtin:spheres?n=4096&subdiv=100' 2>&1 | line | tee -a $OUT/log.txt
done
#!/usr/bin/env bash
# Session 16, call 3: main before this session (old/, e48731c), the CPU build's thread work
# alone on it (cpu/, branch cpu-linear at 4144cf7), and main after both (build/: with the GPU
# builder's batches and pooled buffers): the 50M-triangle scene's
# software BVH with both builders, the CPU build of a 10M scene on 1-16 threads, and the time
# from process start to the first 4K image.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
{ nproc; lscpu | grep -E "Model name|Thread|Core|Socket"; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/host.txt
[ -f /tmp/mesh-50M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null &
[ -f /tmp/mesh-10M.glb ] || python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/mesh-10M.glb > /dev/null &
wait
part=${1:-all}
line() { grep -E "software BVH built in" ; }
[ "$part" = 2 ] || for r in 1 2 3; do
  for b in old cpu build; do
    echo "50M $b run=$r:" | tee -a $OUT/log.txt
    $b/ptbench --threads 16 scene-info /tmp/mesh-50M.glb 2>&1 | line | tee -a $OUT/log.txt
  done
done
if [ "$part" != 2 ]; then
  build/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $OUT/scene-info-50M.json 2>/dev/null
  gzip -f $OUT/scene-info-50M.json
fi
[ "$part" = 1 ] && exit 0
[ "$part" = 3 ] || for t in 1 2 4 8 16; do
  for b in old cpu build; do
    echo "10M $b threads=$t: $($b/ptbench --threads $t scene-info /tmp/mesh-10M.glb 2>&1 | grep -E 'software BVH built in .* on [0-9]+ threads \(')" | tee -a $OUT/scaling.txt
  done
done
first() {  # binary, label, render arguments...
  local b=$1 label=$2; shift 2
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b $label: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms" | tee -a $OUT/first-image.txt
  grep -E "reading|processing the meshes|building the software BVH.*done|creating the pipelines.*done|uploading.*done" /tmp/first.log | sed 's/^/    /' >> $OUT/first-image.txt
}
for b in old build; do
  first $b pipeline --backend pipeline
  first $b software-cpu --backend software
  first $b software-gpu --backend software --option software_builder=gpu
done
#!/usr/bin/env bash
# Session 16, call 4: the software BVH as a render builds it (the CWBVH layout alone), 50M
# triangles at 3840x2160, 1 spp: its build time and the time from process start to the image.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null
first() {  # binary, label, render arguments...
  local b=$1 label=$2; shift 2
  local start=$(date +%s%N)
  $b/ptbench -v --threads 16 render --scene /tmp/mesh-50M.glb --width 3840 --height 2160 --spp 1 --max-depth 8 --out /tmp/first.png "$@" > /tmp/first.log 2>&1
  local rc=$? end=$(date +%s%N)
  echo "$b $label: exit $rc, process start to image written $(( (end - start) / 1000000 )) ms; $(grep -oE 'software BVH built in [0-9.]+ ms' /tmp/first.log)" | tee -a $OUT/first-image.txt
}
for r in 1 2 3; do
  first build software-gpu --backend software --option software_builder=gpu
  [ $r = 3 ] || first old software-gpu --backend software --option software_builder=gpu
  [ $r = 3 ] || first build software-cpu --backend software
done
