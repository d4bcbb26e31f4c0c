# Generates a C++ source holding the text of data files as raw string literals, behind
# `std::span<const rentsim::EmbeddedFile> NAMESPACE::FUNC()` (models/embedded.hpp).
# Usage: cmake -DOUT=file.cpp -DNAMES=a,b -DFILES=/p/a.json,/p/b.json -DFUNC=name -DNAMESPACE=ns -P embed_files.cmake
# Lists arrive comma-separated: a semicolon would split the command line.
string(REPLACE "," ";" NAMES "${NAMES}")
string(REPLACE "," ";" FILES "${FILES}")
list(LENGTH NAMES n)
set(body "")
set(i 0)
while(i LESS n)
  list(GET NAMES ${i} name)
  list(GET FILES ${i} file)
  file(READ ${file} text)
  # The literal's length comes from its array type (rentsim::literal_text): a constant
  # expression computing it would walk the text, and clang's evaluation step limit stops at
  # about a megabyte of embedded text.
  string(APPEND body "    {\"${name}\", rentsim::literal_text(R\"rentsim_embed(${text})rentsim_embed\")},\n")
  math(EXPR i "${i} + 1")
endwhile()
file(WRITE ${OUT}.tmp "// Generated from data files at build time; do not edit.
#include \"models/embedded.hpp\"

namespace ${NAMESPACE} {
namespace {
constexpr rentsim::EmbeddedFile files[] = {
${body}    {\"\", \"\"}};  // sentinel: keeps the array non-empty
}  // namespace
std::span<const rentsim::EmbeddedFile> ${FUNC}() { return {files, std::size(files) - 1}; }
}  // namespace ${NAMESPACE}
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
