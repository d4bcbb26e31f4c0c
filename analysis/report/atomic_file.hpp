// Output files are written whole or not at all, and the files of one run are replaced together:
// every file goes to a temporary beside it (`PATH.tmp.PID`), fsynced; then the old files but the
// first are removed, and the temporaries renamed in order. An interruption at any moment leaves
// the old files, one of them alone, or the new ones, never a new file beside an old one.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace rentsim::analysis {

struct OutputFile {
    std::string path;
    std::string content;
};

// Replaces `files` as one, in order (distinct paths). Throws InputError naming the path when one
// cannot be written; no temporary of this call is left behind, whatever it throws.
void write_files_together(std::span<const OutputFile> files);
// One file, the same way.
void write_file_atomically(const std::string& path, std::string_view content);

// Removes the temporaries `PATH.tmp.PID` beside `path` that no live process writes (one killed
// by SIGKILL mid-write); those of a live process (kill(PID, 0) succeeds) stay. Returns how many.
std::size_t remove_stale_temporaries(const std::string& path);

}  // namespace rentsim::analysis
