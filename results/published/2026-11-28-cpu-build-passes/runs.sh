# Session 21's device calls, as they ran (each in the repository root, with .gpu-bin/ holding the
# binaries and .gpu-libs/ the Vulkan loader's packages; see ../2026-11-27-gpu-pipeline/runs.sh).

# Session 21, call 1: help-while-waiting (steal: branch deferred-forks rebased on main 8357cea)
# against main 8357cea, 10M in 16 meshes on 16 threads, 6 rounds interleaved; the 50M scene (64
# meshes, the case) on 1, 2, 4, 8 and 16 threads with main; the ALU ceiling.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -i 'model name'; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/m50M.glb > /dev/null
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
go() { $1/ptbench --threads $3 scene-info $2 2>&1 | line | sed "s/^/$4 /"; }
for rep in 1 2; do ./thread_ceiling alu 1; ./thread_ceiling alu 16; done | tee $O/ceiling.txt
for rep in 1 2 3 4 5 6; do for b in main steal; do go $b /tmp/m10M.glb 16 10M-$b-t16-r$rep; done; done | tee $O/lines.txt
for rep in 1 2; do for b in main steal; do go $b /tmp/m10M.glb 1 10M-$b-t1-r$rep; done; done | tee -a $O/lines.txt
for rep in 1 2 3; do for b in main steal; do go $b /tmp/m50M.glb 16 50M-$b-t16-r$rep; done; done | tee -a $O/lines.txt
go main /tmp/m50M.glb 1 50M-main-t1-r1 | tee -a $O/lines.txt
for t in 8 4 2; do go main /tmp/m50M.glb $t 50M-main-t$t-r1; done | tee -a $O/lines.txt
go main /tmp/m50M.glb 1 50M-main-t1-r2 | tee -a $O/lines.txt
go main /tmp/m50M.glb 16 50M-main-t16-r4 | tee -a $O/lines.txt

# Session 21, call 2: main 8357cea against passes 96531f3 (a shared node's refs passed over three
# times rather than seven) and reuse a7a0e18 (passes, and the CWBVH costs in the binary build's
# dead refs): 10M in 16 meshes and 50M in 64 on 16 threads, interleaved; 10M on one thread; the
# 50M scene on one thread with reuse.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -i 'model name'; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/m50M.glb > /dev/null
wait
mkdir -p /tmp/j
go() {  # binary scene threads tag
  $1/ptbench --threads $3 scene-info $2 --json > /tmp/j/$4.json 2>/dev/null
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['software_bvh']; print('$4 build_ms %.1f binary_sum_ms %.1f bvh2_sum_ms %.1f cwbvh_sum_ms %.1f' % (s['build_ms'], s['binary_build_ms'], s['bvh2']['bottom_levels']['build_ms'], s['cwbvh']['bottom_levels']['build_ms']))" /tmp/j/$4.json
}
: > $O/ceiling.txt  # the ceiling was measured in call 1; its binary left out (the carry limit)
for rep in 1 2 3 4 5 6 7; do for b in main passes reuse; do go $b /tmp/m10M.glb 16 10M-$b-t16-r$rep; done; done | tee $O/lines.txt
for rep in 1 2 3 4; do for b in main passes reuse; do go $b /tmp/m50M.glb 16 50M-$b-t16-r$rep; done; done | tee -a $O/lines.txt
for rep in 1 2; do for b in main passes reuse; do go $b /tmp/m10M.glb 1 10M-$b-t1-r$rep; done; done | tee -a $O/lines.txt
go reuse /tmp/m50M.glb 1 50M-reuse-t1-r1 | tee -a $O/lines.txt
tar -C /tmp/j -czf $O/scene-info-json.tar.gz .

# Session 21, call 3 (an H100 host, the kind session 20's study used): main before (8357cea)
# against after (a7a0e18: a shared node's three passes, the CWBVH costs in the refs' memory),
# 10M in 16 meshes on 16 threads (7 rounds) and one thread (2 rounds), interleaved; the 50M
# scene (64 meshes) on 16 threads (3 rounds) and, with after, on one thread.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
mv main before; mv reuse after
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -i 'model name'; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/m50M.glb > /dev/null
wait
mkdir -p /tmp/j
go() {  # binary scene threads tag
  $1/ptbench --threads $3 scene-info $2 --json > /tmp/j/$4.json 2>/dev/null
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['software_bvh']; print('$4 build_ms %.1f binary_sum_ms %.1f bvh2_sum_ms %.1f cwbvh_sum_ms %.1f' % (s['build_ms'], s['binary_build_ms'], s['bvh2']['bottom_levels']['build_ms'], s['cwbvh']['bottom_levels']['build_ms']))" /tmp/j/$4.json
}
for rep in 1 2 3 4 5 6 7; do for b in before after; do go $b /tmp/m10M.glb 16 10M-$b-t16-r$rep; done; done | tee $O/lines.txt
for rep in 1 2 3; do for b in before after; do go $b /tmp/m50M.glb 16 50M-$b-t16-r$rep; done; done | tee -a $O/lines.txt
for rep in 1 2; do for b in before after; do go $b /tmp/m10M.glb 1 10M-$b-t1-r$rep; done; done | tee -a $O/lines.txt
go after /tmp/m50M.glb 1 50M-after-t1-r1 | tee -a $O/lines.txt
tar -C /tmp/j -czf $O/scene-info-json.tar.gz .
