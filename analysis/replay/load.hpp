// Reading recorded traces for the replay: files, or a folder of them (its regular files, in
// name order), one rank each. Dispatches on the content to the importers of analysis/trace
// (Kineto Chrome-trace JSON, Chakra execution traces).
#pragma once

#include <string>
#include <vector>

#include "analysis/trace/trace.hpp"

namespace rentsim::replay {

// The files named, folders expanded. Throws analysis::InputError for a path that does not
// exist or a folder with no file.
std::vector<std::string> trace_files(const std::vector<std::string>& paths);

// Every file as one rank, sorted by rank. Throws analysis::InputError naming the file when no
// importer reads it.
trace::Trace load_trace(const std::vector<std::string>& paths);

}  // namespace rentsim::replay
