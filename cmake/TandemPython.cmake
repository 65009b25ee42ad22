# The Python package (python/): pybind11 (header-only) against the interpreter found, and
# DLPack's header. pybind11 comes from Debian's pybind11-dev, or from any folder holding
# pybind11/pybind11.h named by TANDEM_PYBIND11_INCLUDE_DIR (on the GPU host: the copy PyTorch
# ships). Without them the build goes on without the package and says why. The engine's static
# libraries go into a shared module, so everything is compiled position-independent then.
set(TANDEM_HAS_PYTHON OFF)
if(NOT TANDEM_PYTHON)
    return()
endif()
if(TANDEM_SANITIZE OR TANDEM_FUZZ)
    message(STATUS "Python package: off in sanitizer builds")
    return()
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
find_path(TANDEM_PYBIND11_INCLUDE_DIR pybind11/pybind11.h
          HINTS ${Python3_INCLUDE_DIRS} PATHS /usr/include)
find_path(TANDEM_DLPACK_INCLUDE_DIR dlpack/dlpack.h PATHS /usr/include)
if(NOT Python3_Development.Module_FOUND)
    message(STATUS "Python package: off (no Python headers for ${Python3_EXECUTABLE}; "
                   "Debian: python3-dev)")
elseif(NOT TANDEM_PYBIND11_INCLUDE_DIR)
    message(STATUS "Python package: off (no pybind11/pybind11.h; Debian: pybind11-dev, or set "
                   "TANDEM_PYBIND11_INCLUDE_DIR)")
elseif(NOT TANDEM_DLPACK_INCLUDE_DIR)
    message(STATUS "Python package: off (no dlpack/dlpack.h; Debian: libdlpack-dev)")
else()
    set(TANDEM_HAS_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    message(STATUS "Python package: on, for ${Python3_EXECUTABLE} (${Python3_VERSION}); "
                   "pybind11 from ${TANDEM_PYBIND11_INCLUDE_DIR}")
endif()
