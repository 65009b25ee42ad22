# The version every app prints (--version) and every run report records: CMake's
# project(VERSION) and the git commit the build was configured at ("unknown" outside a git
# checkout). tandem_version_source(OUT) configures engine/core/Version.cpp.in into the build
# folder and sets OUT to its path. A commit re-runs the configure step (HEAD and the branch's
# ref are configure dependencies), so the commit an app reports is the one it was built from.
find_package(Git QUIET)

# Makes `file` (a path git gives for `name`, e.g. HEAD) a configure dependency when it exists.
function(_tandem_git_dependency name)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${name}
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE file OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(file AND EXISTS ${file})
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                     ${file})
    endif()
endfunction()

function(tandem_version_source out)
    set(TANDEM_VERSION ${PROJECT_VERSION})
    set(TANDEM_COMMIT unknown)
    if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
        execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                        OUTPUT_VARIABLE commit RESULT_VARIABLE failed
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        if(NOT failed AND commit)
            set(TANDEM_COMMIT ${commit})
        endif()
        # What a commit or a checkout changes: HEAD, and the ref it names (none once packed:
        # a reconfigure picks the commit up then).
        _tandem_git_dependency(HEAD)
        execute_process(COMMAND ${GIT_EXECUTABLE} symbolic-ref -q HEAD
                        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                        OUTPUT_VARIABLE ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        if(ref)
            _tandem_git_dependency(${ref})
        endif()
    endif()
    # For the tests, which check that the apps say these.
    set_property(GLOBAL PROPERTY TANDEM_COMMIT ${TANDEM_COMMIT})
    set(generated ${CMAKE_BINARY_DIR}/generated/engine/core/Version.cpp)
    configure_file(${PROJECT_SOURCE_DIR}/engine/core/Version.cpp.in ${generated} @ONLY)
    set(${out} ${generated} PARENT_SCOPE)
endfunction()
