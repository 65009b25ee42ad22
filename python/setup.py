"""Builds tandem's native module with the repository's CMake build and packages it with the
shaders. TANDEM_BUILD_DIR names the build folder (default: <repository>/build-python; an
existing, configured folder such as build/ is reused as it is). TANDEM_CMAKE_ARGS adds
configure arguments (a new folder only)."""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class CMakeBuild(build_ext):
    def run(self):
        build = os.path.abspath(os.environ.get("TANDEM_BUILD_DIR", os.path.join(ROOT, "build-python")))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPython3_EXECUTABLE={sys.executable}", "-DTANDEM_TESTS=OFF",
                                   *shlex.split(os.environ.get("TANDEM_CMAKE_ARGS", ""))])
        subprocess.check_call(["cmake", "--build", build, "--target", "tandem_python",
                               "-j", str(os.cpu_count() or 1)])
        built = glob.glob(os.path.join(build, "python", "tandem", "_tandem*.so"))
        if len(built) != 1:
            raise RuntimeError(f"tandem: expected one native module in {build}/python/tandem, "
                               f"found {built} (is {build} configured for {sys.executable}?)")
        package = os.path.join(self.build_lib, "tandem")
        os.makedirs(package, exist_ok=True)
        shutil.copy2(built[0], os.path.join(package, os.path.basename(built[0])))
        shaders = os.path.join(package, "shaders")
        shutil.rmtree(shaders, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "shaders"), shaders)


setup(packages=["tandem"], ext_modules=[Extension("tandem._tandem", sources=[])],
      cmdclass={"build_ext": CMakeBuild}, zip_safe=False)
