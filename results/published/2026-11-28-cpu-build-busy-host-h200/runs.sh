# Session 22's device calls, as they ran (each in the repository root, with .gpu-bin/ holding the
# binaries and .gpu-libs/ the Vulkan loader's packages; see ../2026-11-27-gpu-pipeline/runs.sh).
# diag/ptbench: main 6eca741 with diagnostic-lines.patch (Release, stripped). diag/ceiling2:
# thread_ceiling2.cpp, g++ -O3 -std=c++20 -pthread -static (call 2's lacked the hog and port
# modes, call 3's the port mode; the modes it had were the same). Every call an H200 host.

# Session 22, call 1: where the 16 threads' time goes. The build's CPU time (user and kernel)
# against its wall clock x threads, page faults and threads started (the diagnostic lines of
# diagnostic-lines.patch), and the host's TLB shootdowns and THP counters per run; 10M in 16
# meshes and 50M in 64 on 1 and 16 threads, interleaved.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -iE 'model name|thread|socket|cache|NUMA'; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; uname -r; free -g; } > $O/device.txt 2>&1
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/m10M.glb > /dev/null &
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/m50M.glb > /dev/null
wait
counters() { awk '/TLB:|CAL:/ {s=0; for (i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s+=$i; printf "%s%d ", $1, s}' /proc/interrupts; grep -E "^(thp_fault_alloc|thp_fault_fallback|compact_stall|pgfault) " /proc/vmstat | tr '\n' ' '; }
go() {  # scene threads tag
  local before; before=$(counters)
  diag/ptbench --threads $2 scene-info $1 2>&1 | grep -E "DEBUG|on [0-9]+ threads \(" | sed 's/, the layouts.*//' | tr '\n' ' ' | sed "s/^/$3 /"
  echo; echo "$3 before: $before"; echo "$3 after:  $(counters)"
}
for rep in 1 2 3 4; do go /tmp/m10M.glb 16 10M-t16-r$rep; done | tee $O/lines.txt
for rep in 1 2; do go /tmp/m10M.glb 1 10M-t1-r$rep; go /tmp/m10M.glb 16 10M-t16-r$((rep+4)); done | tee -a $O/lines.txt
for rep in 1 2 3; do go /tmp/m50M.glb 16 50M-t16-r$rep; done | tee -a $O/lines.txt
go /tmp/m50M.glb 1 50M-t1-r1 | tee -a $O/lines.txt
go /tmp/m50M.glb 8 50M-t8-r1 | tee -a $O/lines.txt

# Session 22, call 2: does the per-thread loss depend on how much memory each thread works in?
# The 50M scene in 16, 64 and 1024 meshes (3.1M, 781K and 49K triangles a mesh) on 1 and 16
# threads, with the build's CPU time; the host's ceilings: ALU by latency (alu) and by throughput
# (alu4, which SMT siblings would halve), and a random chase through 1, 16 and 160 MiB a thread.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -iE 'model name|^Model:|cache'; } > $O/device.txt 2>&1
for m in 16 64 1024; do python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes $m /tmp/m50M-$m.glb > /dev/null 2>&1 & done
wait
{ for mode in alu alu4; do for t in 1 16 1 16; do diag/ceiling2 $mode $t; done; done
  for mib in 1 16 160; do for t in 1 16; do diag/ceiling2 chase $t $mib; done; done; } | tee $O/ceiling.txt
go() {  # scene threads tag
  diag/ptbench --threads $2 scene-info $1 2>&1 | grep -E "DEBUG|on [0-9]+ threads \(" | sed 's/, the layouts.*//' | tr '\n' ' ' | sed "s/^/$3 /"; echo
}
for m in 1024 64 16; do go /tmp/m50M-$m.glb 16 50M-$m-t16-r1; go /tmp/m50M-$m.glb 1 50M-$m-t1-r1; go /tmp/m50M-$m.glb 16 50M-$m-t16-r2; done | tee $O/lines.txt

# Session 22, call 3: is the per-thread loss the memory bandwidth the other cores take? A build on
# one thread alone, beside 15 threads that stream memory (hog-stream), and beside 15 that only
# compute (hog-alu); the 50M scene in 1024 and in 64 meshes; and 16 threads on the 1024.
# (Run as: timeout 590 bash s22-run3.sh)
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -iE 'model name|^Model:'; } > $O/device.txt 2>&1
for m in 64 1024; do python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes $m /tmp/m50M-$m.glb > /dev/null 2>&1 & done
wait
go() {  # scene threads tag [hog]
  local hog=""
  if [ -n "${4:-}" ]; then diag/ceiling2 $4 15 & hog=$!; sleep 1; fi
  diag/ptbench --threads $2 scene-info $1 2>&1 | grep -E "on [0-9]+ threads \(" | sed 's/, the layouts.*//' | sed "s/^/$3 /"
  if [ -n "$hog" ]; then kill $hog; wait $hog 2>/dev/null; fi
}
{ go /tmp/m50M-1024.glb 1 1024-t1-alone
  go /tmp/m50M-1024.glb 1 1024-t1-beside-15-streaming hog-stream
  go /tmp/m50M-1024.glb 1 1024-t1-beside-15-computing hog-alu
  go /tmp/m50M-64.glb 1 64-t1-alone
  go /tmp/m50M-64.glb 1 64-t1-beside-15-streaming hog-stream
  go /tmp/m50M-1024.glb 16 1024-t16-r1
  go /tmp/m50M-64.glb 16 64-t16-r1
  go /tmp/m50M-1024.glb 16 1024-t16-r2
  go /tmp/m50M-64.glb 1 64-t1-beside-15-computing hog-alu; } 2>&1 | tee $O/lines.txt


# Session 22, call 4: call 3 again with repeats (a build on one thread alone and beside 15 threads
# that only compute, interleaved, twice each; 16 threads three times), on the 50M scene in 1024
# meshes; and which vCPUs share a physical core: `port` (bound by the one multiply port) on vCPU 0
# alone, then on vCPU 0 and vCPU j at once, for every j.
# (Run as: timeout 560 bash s22-run4.sh)
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -iE 'model name|^Model:'; } > $O/device.txt 2>&1
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 1024 /tmp/m50M-1024.glb > /dev/null 2>&1
{ for rep in 1 2; do echo "alone: $(taskset -c 0 diag/ceiling2 port 1)"; done
  for j in $(seq 1 15); do
    a=$(taskset -c 0 diag/ceiling2 port 1 > /tmp/a.txt & taskset -c $j diag/ceiling2 port 1; wait)
    echo "vCPU 0 with vCPU $j: $(cat /tmp/a.txt) | $a"
  done
  for t in 16 8 4 2; do echo "together: $(diag/ceiling2 port $t)"; done; } | tee $O/pairs.txt
go() {  # scene threads tag [hog]
  local hog=""
  if [ -n "${4:-}" ]; then diag/ceiling2 $4 15 & hog=$!; sleep 1; fi
  diag/ptbench --threads $2 scene-info $1 2>&1 | grep -E "on [0-9]+ threads \(" | sed 's/, the layouts.*//' | sed "s/^/$3 /"
  if [ -n "$hog" ]; then kill $hog; wait $hog 2>/dev/null; fi
}
{ go /tmp/m50M-1024.glb 16 1024-t16-r1
  go /tmp/m50M-1024.glb 1 1024-t1-alone-r1
  go /tmp/m50M-1024.glb 1 1024-t1-beside-15-computing-r1 hog-alu
  go /tmp/m50M-1024.glb 16 1024-t16-r2
  go /tmp/m50M-1024.glb 1 1024-t1-alone-r2
  go /tmp/m50M-1024.glb 1 1024-t1-beside-15-computing-r2 hog-alu
  go /tmp/m50M-1024.glb 16 1024-t16-r3; } 2>&1 | tee $O/lines.txt

# (Run as: timeout 170 bash s22-run5.sh)
# Session 22, call 5: is the loss beside busy cores the host taking CPU time from the vCPUs? The
# guest's steal time (/proc/stat) over: 30 back-to-back runs of the alu loop on 16 threads (about
# 25 s of sustained load, where call 2's lasted 1 s); and a build of 10M triangles in 1024 meshes
# on one thread alone, beside 15 computing threads, and on 16 threads.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
O=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uptime; lscpu | grep -iE 'model name|^Model:'; head -1 /proc/stat; } > $O/device.txt 2>&1
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 1024 /tmp/m10M-1024.glb > /dev/null 2>&1
steal() { awk '/^cpu /{print $9}' /proc/stat; }  # clock ticks (USER_HZ) summed over vCPUs
{ s=$(steal); for i in 1 2 3; do diag/ceiling2 alu 1; done; echo "steal ticks over 3 x alu 1: $(( $(steal) - s ))"
  s=$(steal); for i in $(seq 1 30); do diag/ceiling2 alu 16; done; echo "steal ticks over 30 x alu 16: $(( $(steal) - s ))"; } | tee $O/ceiling.txt
go() {  # scene threads tag [hog]
  local hog="" s; s=$(steal)
  if [ -n "${4:-}" ]; then diag/ceiling2 $4 15 & hog=$!; sleep 1; fi
  diag/ptbench --threads $2 scene-info $1 2>&1 | grep -E "on [0-9]+ threads \(" | sed 's/, the layouts.*//' | sed "s/^/$3 /"
  if [ -n "$hog" ]; then kill $hog; wait $hog 2>/dev/null; fi
  echo "$3 steal ticks: $(( $(steal) - s ))"
}
{ go /tmp/m10M-1024.glb 1 t1-alone
  go /tmp/m10M-1024.glb 1 t1-beside-15-computing hog-alu
  go /tmp/m10M-1024.glb 16 t16-r1
  go /tmp/m10M-1024.glb 1 t1-alone-r2
  go /tmp/m10M-1024.glb 16 t16-r2; } 2>&1 | tee $O/lines.txt
