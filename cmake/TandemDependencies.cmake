# Dependencies, all from Debian packages (scripts/install-deps.sh installs them). On GPU servers
# without Debian's -dev packages, scripts/gpu-server/gather.sh packs the same headers, libraries
# and CMake package files into .gpu/sysroot, found through CMAKE_PREFIX_PATH. ffmpeg (for
# io::VideoWriter) is a program found at run time, not a build dependency.
find_package(Threads REQUIRED)
if(TANDEM_WINDOW)
    find_package(glfw3 3.3 REQUIRED)
endif()
find_package(glm REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)

# stb: Debian ships the implementations compiled in libstb (its stb.pc has no relocatable
# prefix, so look the files up directly).
find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb REQUIRED)
find_library(STB_LIBRARY NAMES libstb.a stb REQUIRED)
add_library(tandem_stb INTERFACE)
target_include_directories(tandem_stb SYSTEM INTERFACE ${STB_INCLUDE_DIR})
target_link_libraries(tandem_stb INTERFACE ${STB_LIBRARY} m)

# libspng 0.7 encodes PNGs (stb_image only reads them). Debian ships it as a shared library
# only, and gather.sh carries no spng.pc to GPU servers, so look the files up directly.
find_path(SPNG_INCLUDE_DIR spng.h REQUIRED)
find_library(SPNG_LIBRARY NAMES spng REQUIRED)
add_library(tandem_spng INTERFACE)
target_include_directories(tandem_spng SYSTEM INTERFACE ${SPNG_INCLUDE_DIR})
target_link_libraries(tandem_spng INTERFACE ${SPNG_LIBRARY})

# Dear ImGui 1.86: Debian ships it as libimgui.a with its GLFW and OpenGL3 backends inside.
find_path(IMGUI_INCLUDE_DIR imgui.h PATH_SUFFIXES imgui REQUIRED)
find_library(IMGUI_LIBRARY NAMES libimgui.a imgui REQUIRED)
add_library(tandem_imgui INTERFACE)
target_include_directories(tandem_imgui SYSTEM INTERFACE ${IMGUI_INCLUDE_DIR})
target_link_libraries(tandem_imgui INTERFACE ${IMGUI_LIBRARY} ${STB_LIBRARY} m ${CMAKE_DL_LIBS})

if(TANDEM_TESTS)
    find_package(GTest REQUIRED)
endif()

# The browser view (--serve, engine/web): Boost.Beast (header-only; Boost.System is too since
# 1.69) and libjpeg-turbo's TurboJPEG API.
if(TANDEM_SERVE)
    find_path(BEAST_INCLUDE_DIR boost/beast/core.hpp REQUIRED)
    add_library(tandem_beast INTERFACE)
    target_include_directories(tandem_beast SYSTEM INTERFACE ${BEAST_INCLUDE_DIR})
    target_link_libraries(tandem_beast INTERFACE Threads::Threads)
    find_path(TURBOJPEG_INCLUDE_DIR turbojpeg.h REQUIRED)
    find_library(TURBOJPEG_LIBRARY NAMES turbojpeg REQUIRED)
    add_library(tandem_turbojpeg INTERFACE)
    target_include_directories(tandem_turbojpeg SYSTEM INTERFACE ${TURBOJPEG_INCLUDE_DIR})
    target_link_libraries(tandem_turbojpeg INTERFACE ${TURBOJPEG_LIBRARY})
endif()
