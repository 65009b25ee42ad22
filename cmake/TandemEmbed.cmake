# The browser page built into a binary: tandem_embed_page(OUT FILES...) sets OUT to a generated
# C++ source defining tandem::web::pageFiles() (engine/web/PageFiles.h) with each file's bytes,
# its path ("/" for index.html) and content type. The source is regenerated when a file
# changes (no build step of the page's own: the files are served as they are in the repository).
function(tandem_embed_page out)
    set(source ${CMAKE_CURRENT_BINARY_DIR}/PageFiles.cpp)
    add_custom_command(OUTPUT ${source}
                       COMMAND ${CMAKE_COMMAND} -DOUT=${source} "-DFILES=${ARGN}"
                               -P ${PROJECT_SOURCE_DIR}/cmake/TandemEmbedScript.cmake
                       DEPENDS ${ARGN} ${PROJECT_SOURCE_DIR}/cmake/TandemEmbedScript.cmake
                       COMMENT "Embedding the browser page" VERBATIM)
    set(${out} ${source} PARENT_SCOPE)
endfunction()
