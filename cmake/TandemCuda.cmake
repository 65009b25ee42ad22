# The CUDA toolkit is optional: found -> CUDA is enabled as a language and TANDEM_HAS_CUDA is
# set; not found (or TANDEM_CUDA=OFF) -> the CUDA parts are left out, said once here.
set(TANDEM_HAS_CUDA OFF CACHE INTERNAL "whether the CUDA parts are built")
if(TANDEM_CUDA)
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        # sm_90 machine code plus compute_90 PTX that newer GPUs JIT-compile; override with
        # -DCMAKE_CUDA_ARCHITECTURES=...
        if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
            set(CMAKE_CUDA_ARCHITECTURES 90)
        endif()
        enable_language(CUDA)
        # CMake 3.25 predates nvcc 13 and does not know its C++20 dialect flag: teach it.
        if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
            set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
            set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
            list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
        endif()
        set(CMAKE_CUDA_STANDARD 20)
        set(CMAKE_CUDA_STANDARD_REQUIRED ON)
        set(CMAKE_CUDA_EXTENSIONS OFF)
        set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
        set(TANDEM_HAS_CUDA ON CACHE INTERNAL "whether the CUDA parts are built")
        message(STATUS "tandem: CUDA ${CMAKE_CUDA_COMPILER_VERSION} found, "
                       "architectures ${CMAKE_CUDA_ARCHITECTURES}: CUDA parts enabled")
    else()
        message(STATUS "tandem: no CUDA toolkit found: CUDA parts left out, "
                       "post-processing will use the host backend")
    endif()
else()
    message(STATUS "tandem: TANDEM_CUDA=OFF: CUDA parts left out")
endif()
