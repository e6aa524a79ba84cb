# Session 20's device calls, as they ran (each in the repository root, with .gpu-bin/ holding the
# binaries and .gpu-libs/ the Vulkan loader's packages; see ../2026-11-27-gpu-pipeline/runs.sh).

# Session 20, call 1: what the 16-core host's threads give with nothing shared (thread_ceiling),
# the CPU builder's scaling in one process (10M in 16 meshes, 3 rounds), and one mesh per process
# with 16 processes at once against one alone.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uname -r; lscpu; \
  echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; \
  echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"; free -g; } > $O/host.txt 2>&1
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 625000 --meshes 1 /tmp/m625k.glb > /dev/null
wait
for rep in 1 2 3; do
  for mode in alu stream fault fault-huge; do
    for t in 1 2 4 8 16; do ./thread_ceiling $mode $t; done
  done
done > $O/ceiling.txt 2>&1
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
mkdir -p /tmp/j
for rep in 1 2 3; do
  for t in 1 2 4 8 16; do
    main/ptbench --threads $t scene-info /tmp/m10M.glb --json > /tmp/j/10M-t$t-r$rep.json 2>/dev/null
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['software_bvh']; print('10M threads=$t rep=$rep build_ms %.1f binary_sum_ms %.1f bvh2_sum_ms %.1f cwbvh_sum_ms %.1f' % (s['build_ms'], s['binary_build_ms'], s['bvh2']['bottom_levels']['build_ms'], s['cwbvh']['bottom_levels']['build_ms']))" /tmp/j/10M-t$t-r$rep.json
  done
done > $O/scaling-10M.txt 2>&1
one() { main/ptbench --threads 1 scene-info /tmp/m625k.glb 2>&1 | line | sed "s/^/$1 /"; }
for rep in 1 2 3; do
  one alone
  for p in $(seq 16); do one "concurrent-$rep" > /tmp/c$p.txt & done; wait
  cat /tmp/c*.txt; rm -f /tmp/c*.txt
done > $O/processes-625k.txt 2>&1
tar -C /tmp/j -czf $O/scene-info-json.tar.gz .
cat $O/ceiling.txt $O/scaling-10M.txt $O/processes-625k.txt | tail -150

# Session 20, call 2: spans of the CPU build (diagnostic binary: main 0d0661a with per-mesh spans
# written to PTBENCH_BUILD_TRACE), 10M in 16 meshes on 1 and 16 threads, and in 64 meshes on 16.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 64 /tmp/m10M-64.glb > /dev/null
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
mkdir -p /tmp/tr
for rep in 1 2; do
  for t in 1 16; do
    PTBENCH_BUILD_TRACE=/tmp/tr/10M-16-t$t-r$rep.txt trace/ptbench --threads $t scene-info /tmp/m10M.glb 2>&1 | line | sed "s/^/10M-16 t$t r$rep/"
  done
  PTBENCH_BUILD_TRACE=/tmp/tr/10M-64-t16-r$rep.txt trace/ptbench --threads 16 scene-info /tmp/m10M-64.glb 2>&1 | line | sed "s/^/10M-64 t16 r$rep/"
  PTBENCH_BUILD_TRACE=/tmp/tr/10M-64-t1-r$rep.txt trace/ptbench --threads 1 scene-info /tmp/m10M-64.glb 2>&1 | line | sed "s/^/10M-64 t1 r$rep/"
done | tee $O/lines.txt
tar -C /tmp/tr -czf $O/traces.tar.gz .

# Session 20, call 3: does the CPU build scale better once the virtual machine's memory has been
# touched (its host backing it), as on a machine that has run a while? 10M in 16 meshes on 1 and
# 16 threads before; then 100 GiB written and freed; then the fault ceilings and both meshes'
# scaling, 3 rounds. Binary: main 0d0661a with per-mesh spans (PTBENCH_BUILD_TRACE).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; free -g; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 64 /tmp/m10M-64.glb > /dev/null
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
mkdir -p /tmp/tr
for rep in 1 2; do for t in 1 16; do
  PTBENCH_BUILD_TRACE=/tmp/tr/before-16-t$t-r$rep.txt trace/ptbench --threads $t scene-info /tmp/m10M.glb 2>&1 | line | sed "s/^/before 10M-16 t$t r$rep/"
done; done | tee $O/lines.txt
./thread_ceiling touch 100 | tee -a $O/lines.txt
free -g >> $O/device.txt
for mode in fault fault-huge; do for t in 1 16; do ./thread_ceiling $mode $t; done; done | tee -a $O/lines.txt
for rep in 1 2 3; do for m in 16 64; do for t in 1 2 4 8 16; do
  s=/tmp/m10M.glb; [ $m = 64 ] && s=/tmp/m10M-64.glb
  PTBENCH_BUILD_TRACE=/tmp/tr/after-$m-t$t-r$rep.txt trace/ptbench --threads $t scene-info $s 2>&1 | line | sed "s/^/after 10M-$m t$t r$rep/"
done; done; done | tee -a $O/lines.txt
tar -C /tmp/tr -czf $O/traces.tar.gz .

# Session 20, call 4: main (0d0661a) against new (children's bounds from the partition pass), both
# with per-mesh spans (PTBENCH_BUILD_TRACE) and a diagnostic cap on the meshes built at once
# (PTBENCH_MESH_WORKERS: each worker builds meshes in turn, largest first, and the threads left
# over help inside them).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/m50M.glb > /dev/null
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
mkdir -p /tmp/tr
go() {  # binary scene threads workers tag
  PTBENCH_MESH_WORKERS=$4 PTBENCH_BUILD_TRACE=/tmp/tr/$5.txt $1/ptbench --threads $3 scene-info $2 2>&1 | line | sed "s/^/$5 /"
}
for rep in 1 2 3; do
  for b in main new; do go $b /tmp/m10M.glb 1 16 10M-$b-t1-r$rep; done
  go main /tmp/m10M.glb 16 16 10M-main-t16-k16-r$rep
  for k in 16 8 4; do go new /tmp/m10M.glb 16 $k 10M-new-t16-k$k-r$rep; done
done | tee $O/lines.txt
for rep in 1 2; do
  go main /tmp/m50M.glb 16 64 50M-main-t16-k64-r$rep
  for k in 64 16 8 4; do go new /tmp/m50M.glb 16 $k 50M-new-t16-k$k-r$rep; done
done | tee -a $O/lines.txt
tar -C /tmp/tr -czf $O/traces.tar.gz .

# Session 20, call 5: main (0d0661a) against bins (a node empties only the bins it uses), both with
# per-mesh spans (PTBENCH_BUILD_TRACE); then the host's ceiling for this build: one 625K-triangle
# mesh (the 10M scene's mesh size) built on one thread by one process alone, and by 16 processes at
# once, 4 rounds each; and thread_ceiling's ALU and fault tests.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -E "Model name|MHz"; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 625000 --meshes 1 /tmp/m625k.glb > /dev/null
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
mkdir -p /tmp/tr
go() {  # binary scene threads tag
  PTBENCH_BUILD_TRACE=/tmp/tr/$4.txt $1/ptbench --threads $3 scene-info $2 2>&1 | line | sed "s/^/$4 /"
}
for rep in 1 2 3 4; do
  for b in main bins; do go $b /tmp/m10M.glb 1 10M-$b-t1-r$rep; go $b /tmp/m10M.glb 16 10M-$b-t16-r$rep; done
done | tee $O/lines.txt
one() { bins/ptbench --threads 1 scene-info /tmp/m625k.glb 2>&1 | line | sed "s/^/$1 /"; }
for rep in 1 2 3 4; do
  one alone-$rep
  for p in $(seq 16); do one "together-$rep" > /tmp/c$p.txt & done; wait
  cat /tmp/c*.txt; rm -f /tmp/c*.txt
done | tee $O/processes-625k.txt
for rep in 1 2; do for mode in alu fault-huge; do for t in 1 16; do ./thread_ceiling $mode $t; done; done; done | tee $O/ceiling.txt
tar -C /tmp/tr -czf $O/traces.tar.gz .

# Session 20, call 6: bins (905dccb) against steal (a thread of the mesh loop whose meshes are done
# runs the forks the other meshes deferred), both with per-mesh spans (PTBENCH_BUILD_TRACE).
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; } > $O/device.txt
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 64 /tmp/m10M-64.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/m50M.glb > /dev/null
wait
line() { grep -E "software BVH built in .* on [0-9]+ threads \(" ; }
mkdir -p /tmp/tr
go() {  # binary scene threads tag
  PTBENCH_BUILD_TRACE=/tmp/tr/$4.txt $1/ptbench --threads $3 scene-info $2 2>&1 | line | sed "s/^/$4 /"
}
for rep in 1 2 3 4 5; do for b in bins steal; do go $b /tmp/m10M.glb 16 10M-$b-t16-r$rep; done; done | tee $O/lines.txt
for rep in 1 2; do for b in bins steal; do go $b /tmp/m10M.glb 1 10M-$b-t1-r$rep; done; done | tee -a $O/lines.txt
for rep in 1 2 3; do for b in bins steal; do go $b /tmp/m10M-64.glb 16 10M64-$b-t16-r$rep; done; done | tee -a $O/lines.txt
for rep in 1 2; do for b in bins steal; do go $b /tmp/m50M.glb 16 50M-$b-t16-r$rep; done; done | tee -a $O/lines.txt
tar -C /tmp/tr -czf $O/traces.tar.gz .
