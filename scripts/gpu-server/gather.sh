#!/usr/bin/env bash
# Gathers what a headless build needs on a GPU server that has the CUDA toolkit, g++ and CMake
# but no Debian -dev packages and no package registry (such as the H200 host in
# ARCHITECTURE.md), into .gpu/ at the repository root (git-ignored; about 37 MB):
#   .gpu/sysroot/usr/{include,lib/x86_64-linux-gnu,share/cmake}  headers, libraries and CMake
#                                                               package files
#   .gpu/boost-web.tar.xz  the Boost headers of the browser view (unpacked there by
#                          build-and-test.sh)
#   .gpu/runtime/   glvnd's libEGL/libGLdispatch/libGL/libGLX and the few shared libraries the
#                   binaries load (the server has the NVIDIA vendor libraries but no glvnd), and
#                   what RenderDoc's library loads
#   .gpu/librenderdoc.so.xz  RenderDoc's library (unpacked into runtime/ by build-and-test.sh)
# Run on a Debian 12 machine with scripts/install-deps.sh done. Then carry .gpu with the source
# and run scripts/gpu-server/build-and-test.sh there (docs/building.md: GPU servers).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/.gpu"
arch=x86_64-linux-gnu
rm -rf "$out"
mkdir -p "$out/sysroot/usr/include" "$out/sysroot/usr/lib/$arch/cmake" "$out/sysroot/usr/share/cmake" "$out/runtime"

copy() { # copy SRC... DESTDIR, keeping symlinks as they are
    local dest="${*: -1}"
    mkdir -p "$dest"
    cp -a "${@:1:$#-1}" "$dest/"
}

inc=/usr/include
copy $inc/glm $inc/fmt $inc/CLI $inc/nlohmann $inc/stb $inc/gtest $inc/gmock $inc/imgui \
     $inc/GL $inc/KHR $inc/renderdoc_app.h $inc/spng.h \
     $inc/lz4.h $inc/lz4hc.h $inc/lz4frame.h $inc/zstd.h $inc/zstd_errors.h $inc/libdeflate.h \
     $inc/dlpack $inc/draco $inc/tiny_gltf.h \
     "$out/sysroot/usr/include"

lib=/usr/lib/$arch
copy $lib/libstb.a $lib/libgtest.a $lib/libgtest_main.a $lib/libgmock.a $lib/libgmock_main.a \
     $lib/libimgui.a $lib/libfmt.so $lib/libfmt.so.9 $lib/libfmt.so.9.1.0 \
     $lib/libspng.so $lib/libspng.so.0 $lib/libspng.so.0.7.3 "$out/sysroot/usr/lib/$arch"
# The pack format (engine/stream/Pack.cpp) and Draco frames (engine/io/DracoReader.cpp): static
# archives, so nothing is needed at run time. libdraco is found by its files, not its CMake package
# (whose targets name /usr paths), so cmake/draco stays behind.
copy $lib/liblz4.a $lib/libzstd.a $lib/libdeflate.a $lib/libdraco.a "$out/sysroot/usr/lib/$arch"
copy $lib/cmake/GTest $lib/cmake/fmt "$out/sysroot/usr/lib/$arch/cmake"
copy /usr/share/cmake/glm /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$out/sysroot/usr/share/cmake"

# The browser view (engine/web, --serve): the Boost headers its server includes (the closure g++
# reports for engine/web/Server.cpp and ServerTest.cpp: about 8 MB of Boost's 180, carried as
# .gpu/boost-web.tar.xz, 0.8 MB, which build-and-test.sh unpacks into the sysroot) and
# libjpeg-turbo's TurboJPEG (its shared library needs only libc; carried for run time below).
for source in engine/web/Server.cpp tests/web/ServerTest.cpp; do
    g++ -std=c++20 -M -I"$root" "$root/$source"
done | tr ' \\' '\n\n' | grep '^/usr/include/boost/' | sort -u | sed 's|^/||' \
    | tar -C / -cJf "$out/boost-web.tar.xz" -T -
copy $inc/turbojpeg.h "$out/sysroot/usr/include"
copy $lib/libturbojpeg.so $lib/libturbojpeg.so.0 $lib/libturbojpeg.so.0.2.0 "$out/sysroot/usr/lib/$arch"

# Run time: glvnd (Debian's libegl1, libglvnd0, libgl1, libglx0) and the shared libraries above
# (libspng needs only libz and libm, which the host has).
for so in libEGL.so.1 libGLdispatch.so.0 libGL.so.1 libGLX.so.0 libOpenGL.so.0 \
          libfmt.so.9 libspng.so.0 libturbojpeg.so.0; do
    cp -L "$lib/$so" "$out/runtime/$so"
done

# RenderDoc (Debian's librenderdoc, 26 MB; carried xz-compressed, 7 MB, so .gpu with the
# source stays within what the GPU host takes; build-and-test.sh unpacks it into runtime/) and
# what it loads, for --renderdoc captures there.
xz -6 -T0 -c /usr/lib/librenderdoc.so >"$out/librenderdoc.so.xz"
for so in libX11.so.6 libxcb.so.1 libxcb-keysyms.so.1 libstb.so.0 libXau.so.6 libXdmcp.so.6 \
          libbsd.so.0 libmd.so.0; do
    cp -L "$lib/$so" "$out/runtime/$so"
done

echo "gather: $(du -sh "$out" | cut -f1) in $out"
