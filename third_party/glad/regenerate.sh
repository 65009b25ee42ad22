#!/usr/bin/env bash
# Regenerates the glad 2 loader in this folder from the specs packaged with Debian's
# python3-glad (offline, reproducible). Run after changing the API versions or extensions.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v glad >/dev/null || { echo "error: glad not found (apt-get install python3-glad)" >&2; exit 1; }
gl_ext="GL_KHR_debug,GL_ARB_gl_spirv,GL_NVX_gpu_memory_info,GL_ATI_meminfo"
egl_ext="EGL_EXT_platform_base,EGL_EXT_platform_device,EGL_EXT_device_base,EGL_EXT_device_enumeration,EGL_EXT_device_query,EGL_NV_device_cuda,EGL_EXT_device_drm,EGL_KHR_create_context,EGL_KHR_surfaceless_context,EGL_KHR_no_config_context"
rm -rf "$here/include" "$here/src"
glad --api gl:core=4.5,egl=1.5 --extensions "$gl_ext,$egl_ext" --out-path "$here" --reproducible --quiet c --loader
echo "glad regenerated in $here"
