#!/usr/bin/env bash
# Session 14, issue 24: the CPU build at e45673f (build/) against main at fd2d9a4 (old/): a 10M
# mesh at 1, 2, 4, 8 and 16 threads, and the 50M mesh at 16 threads, both builders.
set -u
W=$OUT/w; mkdir -p $W
rm -rf build old; tar -xJf .gpu-bin/bins.tar.xz
for f in .gpu-libs/*.deb; do dpkg -x "$f" / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L3"; cat /sys/kernel/mm/transparent_hugepage/enabled; } > $W/host.txt 2>&1
S=$(date +%s)
python3 scripts/generate-mesh-glb.py --triangles 50000000 --meshes 64 /tmp/mesh-50M.glb > /dev/null 2>&1 &
python3 scripts/generate-mesh-glb.py --triangles 10000000 --meshes 16 /tmp/mesh-10M.glb > /dev/null 2>&1; wait
echo "generated in $(( $(date +%s) - S )) s" > $W/log.txt
for t in 1 2 4 8 16; do build/ptbench --threads $t scene-info /tmp/mesh-10M.glb --json > /tmp/new-10M-t$t.json 2>/dev/null; done
for t in 1 16; do old/ptbench --threads $t scene-info /tmp/mesh-10M.glb --json > /tmp/old-10M-t$t.json 2>/dev/null; done
for i in 1 2; do /usr/bin/time -f "new 50M run $i: %e s wall" build/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > $W/scene-info-50M-$i.json 2>> $W/log.txt; done
/usr/bin/time -f "old 50M: %e s wall" old/ptbench --threads 16 scene-info /tmp/mesh-50M.glb --json > /tmp/old-50M.json 2>> $W/log.txt
cp /tmp/old-50M.json $W/scene-info-50M-fd2d9a4.json
python3 - "$W" <<'PY' >> $W/log.txt
import json, glob, os, sys
w = sys.argv[1]
def line(name, d, n):
    for key in ("software_bvh", "software_bvh_gpu"):
        b = d.get(key, {})
        print(f"{name} {key}: build_ms {b['build_ms']:.0f} ({n/b['build_ms']/1e3:.2f} Mtri/s) threads {b['threads']} binary_sum {b['binary_build_ms']:.0f} bvh2_sum {b['bvh2']['bottom_levels']['build_ms']:.0f} cwbvh_sum {b['cwbvh']['bottom_levels']['build_ms']:.0f} gpu {b.get('gpu_build_ms')} transfer {b.get('gpu_transfer_ms')} SAH cwbvh {b['cwbvh']['bottom_levels']['sah_cost']:.4f} bvh2 {b['bvh2']['bottom_levels']['sah_cost']:.4f}")
    print(f"{name}: load_ms {d.get('load_ms'):.0f} blas {d.get('blas_build_gpu_ms')}")
for f in sorted(glob.glob("/tmp/*-10M-t*.json"), key=lambda f: (f.split('/')[-1][:3], int(f.split('-t')[-1][:-5]))):
    line(os.path.basename(f), json.load(open(f)), 10e6)
for f in sorted(glob.glob(f"{w}/scene-info-50M-*.json")):
    line(os.path.basename(f), json.load(open(f)), 50e6)
PY
gzip $W/*.json; cat $W/host.txt $W/log.txt
