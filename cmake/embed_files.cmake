# Generates a C++ source that holds the text of data files as raw string literals.
# Usage: cmake -DOUT=file.cpp -DNAMES=a,b -DFILES=/p/a.json,/p/b.json [-DFUNC=name] -P embed_files.cmake
# FUNC names the accessor (default shipped_calibration_files), declared in shipped_calibrations.hpp.
# Lists arrive comma-separated: a semicolon would split the command line.
string(REPLACE "," ";" NAMES "${NAMES}")
string(REPLACE "," ";" FILES "${FILES}")
if(NOT FUNC)
  set(FUNC shipped_calibration_files)
endif()
list(LENGTH NAMES n)
set(body "")
set(i 0)
while(i LESS n)
  list(GET NAMES ${i} name)
  list(GET FILES ${i} file)
  file(READ ${file} text)
  string(APPEND body "    {\"${name}\", R\"rentsim_embed(${text})rentsim_embed\"},\n")
  math(EXPR i "${i} + 1")
endwhile()
file(WRITE ${OUT}.tmp "// Generated from data files at build time; do not edit.
#include \"analysis/shipped_calibrations.hpp\"

namespace rentsim::analysis {
namespace {
constexpr EmbeddedFile files[] = {
${body}    {\"\", \"\"}};  // sentinel: keeps the array non-empty
}  // namespace
std::span<const EmbeddedFile> ${FUNC}() { return {files, std::size(files) - 1}; }
}  // namespace rentsim::analysis
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
