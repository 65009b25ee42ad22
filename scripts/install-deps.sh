#!/usr/bin/env bash
# Installs the Debian 12 packages tandem builds and tests with, if any is missing (apt-get;
# sudo when not root). The CUDA toolkit is optional and not installed here.
set -euo pipefail
packages=(
    build-essential cmake ninja-build pkg-config git
    libglfw3-dev libglm-dev libimgui-dev libstb-dev libfmt-dev
    libcli11-dev nlohmann-json3-dev libgtest-dev libspng-dev
    liblz4-dev libzstd-dev libdeflate-dev libdraco-dev draco libtinygltf-dev
    libegl-dev libgl-dev libegl1 libegl-mesa0 libgl1-mesa-dri
    python3 python3-glad
    xvfb xauth xdotool assimp-utils ffmpeg
    librenderdoc-dev librenderdoc renderdoccmd python3-renderdoc
    clang-16 libclang-rt-16-dev llvm-16
    python3-dev pybind11-dev libdlpack-dev python3-torch python3-numpy
    python3-pip python3-setuptools python3-wheel
    slurmctld slurmd slurm-client
    libboost1.81-dev libturbojpeg0-dev python3-websockets chromium
)
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages present"
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "error: not root and no sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
