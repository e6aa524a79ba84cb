#!/usr/bin/env bash
# Session 14, issue 24: the CPU build of the 50M mesh at deaf4da, twice with THP as the host has
# it (madvise: the build's arrays in huge pages) and twice with THP off, right after the mesh is
# written.
set -u
W=$OUT/w; mkdir -p $W
rm -rf build; tar -xJf .gpu-bin/bins.tar.xz
for f in .gpu-libs/*.deb; do dpkg -x "$f" / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
T=/sys/kernel/mm/transparent_hugepage/enabled
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null 2>&1
for mode in madvise madvise never never madvise; do
  echo $mode > $T 2>> $W/log.txt
  echo "THP: $(cat $T)" >> $W/log.txt
  build/ptbench --threads 16 scene-info /tmp/mesh-50M.glb 2>&1 | grep "software BVH built" >> $W/log.txt
  grep -E "thp_fault_alloc|thp_fault_fallback|compact_stall" /proc/vmstat | tr '\n' ' ' >> $W/log.txt; echo >> $W/log.txt
done
echo madvise > $T
cat $W/log.txt
