#include "analysis/replay/load.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "analysis/scenario/input_error.hpp"

// The Kineto importer (analysis/trace/kineto.hpp), when it is part of the build.
#if __has_include("analysis/trace/kineto.hpp")
#include "analysis/trace/kineto.hpp"
#define RENTSIM_REPLAY_HAS_KINETO 1
#endif

namespace rentsim::replay {

std::vector<std::string> trace_files(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const std::string& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> inside;
            for (const auto& entry : fs::directory_iterator(p, ec)) {
                const std::string name = entry.path().filename().string();
                // Licence texts and notes live beside shipped traces.
                const bool note = name.ends_with(".md") || name.ends_with(".txt");
                if (entry.is_regular_file(ec) && name.front() != '.' && !note) inside.push_back(entry.path().string());
            }
            if (ec) throw analysis::InputError(p, "", "cannot read the folder: " + ec.message());
            std::sort(inside.begin(), inside.end());
            if (inside.empty()) throw analysis::InputError(p, "", "the folder holds no trace file");
            files.insert(files.end(), inside.begin(), inside.end());
        } else if (fs::is_regular_file(p, ec)) {
            files.push_back(p);
        } else {
            throw analysis::InputError(p, "", "no such file or folder");
        }
    }
    return files;
}

trace::Trace load_trace(const std::vector<std::string>& paths) {
    const std::vector<std::string> files = trace_files(paths);
#ifdef RENTSIM_REPLAY_HAS_KINETO
    // Chakra execution traces are dispatched here once their importer is part of the build.
    return trace::read_kineto_ranks(files);
#else
    throw analysis::InputError(files.front(), "", "no importer for this file: this build reads no trace format yet");
#endif
}

}  // namespace rentsim::replay
