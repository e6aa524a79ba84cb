#!/usr/bin/env bash
# Collects the Debian packages of the shared libraries build/ptbench links, plus the Vulkan
# loader and the GL vendor-neutral dispatch libraries NVIDIA's Vulkan driver loads, so that a
# binary built here runs on a machine with an NVIDIA driver but none of these packages
# (docs/gpu.md). glibc and libstdc++ are left to that machine.
#
#   scripts/bundle-gpu-libs.sh OUTDIR [BINARY]
set -euo pipefail
out=${1:?usage: bundle-gpu-libs.sh OUTDIR [BINARY]}
binary=${2:-build/ptbench}
mkdir -p "$out"
packages="libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2"
for library in $(ldd "$binary" | awk '/=> \//{print $3}'); do
  package=$(dpkg -S "$(readlink -f "$library")" 2>/dev/null | head -1 | cut -d: -f1) || true
  case "$package" in ""|libc6|libstdc++6|libgcc-s1|libcrypt1) ;; *) packages="$packages $package" ;; esac
done
(cd "$out" && apt-get download $(echo $packages | tr ' ' '\n' | sort -u) >/dev/null)
ls "$out"
