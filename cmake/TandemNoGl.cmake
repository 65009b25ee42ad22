# tandem_forbid_gl(TARGET): proves in the build that TARGET (stream's loader side, tandem-pack)
# needs no GL. Its own sources see cmake/no-gl/ first on the include path, whose GL, EGL, GLFW,
# glad and CUDA-GL interop headers are #error: an include that sneaks in fails the compile.
# And once every target is defined, the libraries it links (transitively) are checked: none
# may be a GL library of the project (gl, glad, platform, render, interop, profile, frame, ui,
# imgui, app) or the system's (OpenGL, EGL, GLFW).
set(TANDEM_GL_LIBRARIES tandem_gl tandem_glad tandem_platform tandem_interop tandem_render
                        tandem_postfx tandem_profile tandem_frame tandem_ui tandem_imgui
                        tandem_app tandem_stream tandem_capture glfw OpenGL::GL OpenGL::EGL
                        OpenGL::OpenGL EGL GL)

function(tandem_forbid_gl target)
    target_include_directories(${target} BEFORE PRIVATE ${PROJECT_SOURCE_DIR}/cmake/no-gl)
    set_property(GLOBAL APPEND PROPERTY TANDEM_NO_GL_TARGETS ${target})
endfunction()

# Collects the link closure of `target` into the variable named `out`.
function(_tandem_link_closure target out)
    set(seen ${${out}})
    set(queue ${target})
    while(queue)
        list(POP_FRONT queue current)
        if(NOT TARGET ${current})
            continue()
        endif()
        get_target_property(type ${current} TYPE)
        set(links)
        if(NOT type STREQUAL "INTERFACE_LIBRARY")
            get_target_property(direct ${current} LINK_LIBRARIES)
            if(direct)
                list(APPEND links ${direct})
            endif()
        endif()
        get_target_property(interface ${current} INTERFACE_LINK_LIBRARIES)
        if(interface)
            list(APPEND links ${interface})
        endif()
        foreach(link IN LISTS links)
            # $<LINK_ONLY:x> and other generator expressions around a name.
            string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
            if(link MATCHES "^\\$<" OR link IN_LIST seen)
                continue()
            endif()
            list(APPEND seen ${link})
            list(APPEND queue ${link})
        endforeach()
    endwhile()
    set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Run once every target is defined (deferred to the end of the top-level CMakeLists.txt).
function(_tandem_check_no_gl)
    get_property(targets GLOBAL PROPERTY TANDEM_NO_GL_TARGETS)
    foreach(target IN LISTS targets)
        set(closure)
        _tandem_link_closure(${target} closure)
        foreach(link IN LISTS closure)
            get_filename_component(name "${link}" NAME_WE)
            if(link IN_LIST TANDEM_GL_LIBRARIES OR name MATCHES "^lib(GL|EGL|OpenGL|glfw)")
                message(FATAL_ERROR "${target} must build without GL, and links ${link}")
            endif()
        endforeach()
    endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _tandem_check_no_gl)
