#!/usr/bin/env bash
# Installs everything ptbench needs to build, test and plot, from the distribution's packages.
# Non-interactive and idempotent: run it as often as you like (as root, or with sudo available).
#
# Debian 12 (bookworm): enables bookworm-backports for mesa-vulkan-drivers 25.x, because
# bookworm's own Mesa 22 lavapipe has no ray queries or ray-tracing pipelines.
# Ubuntu 24.04 (noble): the distribution's Mesa 24+/25 lavapipe is used as is.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libvulkan-dev vulkan-tools vulkan-validationlayers
  glslang-tools spirv-tools
  libtinygltf-dev libcli11-dev nlohmann-json3-dev libspdlog-dev libstb-dev libtinyexr-dev zlib1g-dev
  libgtest-dev googletest
  clang libclang-rt-dev
  python3 python3-numpy python3-matplotlib python3-jsonschema
  slurm-wlm munge
  libjs-chart.js
)

if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
. /etc/os-release

case "${ID}:${VERSION_ID:-}" in
  debian:12)
    backports=/etc/apt/sources.list.d/ptbench-bookworm-backports.sources
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
      echo "setup: enabling bookworm-backports for Mesa 25 (lavapipe with ray tracing)"
      $sudo tee "$backports" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    mesa_target="-t bookworm-backports"
    # The HTML report's browser test drives it headless.
    packages+=(chromium)
    ;;
  ubuntu:24.04)
    mesa_target=""
    # Ubuntu ships Chromium only as a snap, which containers rarely run: the HTML report's
    # browser test says it is missing and is counted as skipped.
    echo "setup: Ubuntu has no Chromium package (only a snap): the HTML report's browser test will be skipped"
    ;;
  *)
    echo "setup: ${PRETTY_NAME:-this system} is not one ptbench knows how to set up." >&2
    echo "Install these yourself (names as in Debian), then build with cmake:" >&2
    printf '  %s\n' "${packages[@]}" "mesa-vulkan-drivers (Mesa >= 24.1, for lavapipe with ray tracing; or a GPU driver)" >&2
    exit 1
    ;;
esac

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
# shellcheck disable=SC2086 # mesa_target is either empty or two words
$sudo apt-get install -y -qq --no-install-recommends $mesa_target mesa-vulkan-drivers >/dev/null
echo "setup: done ($(dpkg-query -W -f='mesa-vulkan-drivers ${Version}' mesa-vulkan-drivers))"
