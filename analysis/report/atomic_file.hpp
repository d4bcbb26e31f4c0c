// Output files are written whole or not at all: into a temporary file beside the target,
// flushed, then renamed over it. A crash leaves the old file (or none), never half a file.
#pragma once

#include <string>
#include <string_view>

namespace rentsim::analysis {

// Throws InputError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace rentsim::analysis
