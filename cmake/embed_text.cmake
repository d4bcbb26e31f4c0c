# Generates a C++ source defining `std::string_view NAMESPACE::FUNCTION()` that returns the
# text of one data file, so that the program runs without its source tree.
# Usage: cmake -DOUT=file.cpp -DFILE=/p/data.csv -DFUNCTION=name -DNAMESPACE=ns -P embed_text.cmake
file(READ ${FILE} text)
file(WRITE ${OUT}.tmp "// Generated from ${FILE} at build time; do not edit.
#include <string_view>

namespace ${NAMESPACE} {
std::string_view ${FUNCTION}() {
    return R\"rentsim_embed(${text})rentsim_embed\";
}
}  // namespace ${NAMESPACE}
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
