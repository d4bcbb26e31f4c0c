# rentsim_embed(OUT_VAR FUNCTION NAMESPACE NAMES name... FILES file...)
# Adds a build step compiling the files into `NAMESPACE::FUNCTION()` (models/embedded.hpp)
# and sets OUT_VAR to the generated source, to be added to a target of the calling folder.
function(rentsim_embed out_var func namespace)
  cmake_parse_arguments(E "" "" "NAMES;FILES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${func}.cpp)
  string(REPLACE ";" "," names_arg "${E_NAMES}")
  string(REPLACE ";" "," files_arg "${E_FILES}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAMES=${names_arg} -DFILES=${files_arg} -DFUNC=${func}
            -DNAMESPACE=${namespace} -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
    DEPENDS ${E_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
    COMMENT "Embedding ${func}"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
