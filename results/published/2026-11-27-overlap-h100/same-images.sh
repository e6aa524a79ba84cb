#!/usr/bin/env bash
# Session 15, call 6: races on real hardware? The wavefront with shadow_overlap on and off
# (timing frame, so the overlap is recorded), both schedules, both backends, four scenes: the
# film sums in fixed point, so the two images must be the same to the bit. 1080p at 1 and 4 spp:
# the default pool (one pass; at 1 spp it owns its pixels), a pool of 1M (several passes, owned
# pixels), and the pool schedule refilling a pool of 1M.
set -uo pipefail
for f in .gpu-libs/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
tar -xJf .gpu-bin/bins.tar.xz
bin=build/ptbench
mkdir -p /tmp/img; status=0
for scene in scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb scenes/FlightHelmet/FlightHelmet.gltf scenes/ToyCar/glTF/ToyCar.gltf builtin:cornell; do
  for backend in pipeline software; do
    for sched in "schedule=depth" "schedule=depth pool_size=1000000" "schedule=pool pool_size=1000000"; do
      for spp in 1 4; do
        opts=(); for o in $sched; do opts+=(--option "$o"); done
        for ov in true false; do
          $bin render --scene "$scene" --env 1,1,1 --integrator wavefront --backend $backend --width 1920 --height 1080 \
            --spp $spp --max-depth 8 --timing frame --warmup 2 "${opts[@]}" --option shadow_overlap=$ov \
            --out /tmp/img/$ov.exr > /tmp/img/log-$ov.txt 2>&1 || { echo "render failed: $scene $backend $sched $spp $ov"; tail -3 /tmp/img/log-$ov.txt; status=1; }
        done
        if cmp -s /tmp/img/true.exr /tmp/img/false.exr; then r=same; else r=DIFFERENT; status=1; fi
        echo "$r  $(basename $scene) $backend $sched spp=$spp  $(grep -o 'frame .*GPU' /tmp/img/log-true.txt | head -1)"
      done
    done
  done
done | tee $OUT/images.txt
echo "status $status"
