// Helpers of the job-importer tests: files written for one test and removed after it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "analysis/jobs/job.hpp"
#include "analysis/scenario/input_error.hpp"

namespace rentsim::jobs::test {

namespace fs = std::filesystem;

// A folder of its own under the system's temporary folder, removed with everything in it.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("rentsim-jobs-" + std::to_string(::getpid()) + "-" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string write(const std::string& file, const std::string& text) const {
        const fs::path p = path / file;
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
};

inline std::vector<Job> read_all(JobReader& r) {
    std::vector<Job> jobs;
    while (auto j = r.next()) jobs.push_back(std::move(*j));
    return jobs;
}

// The message of the InputError `f` throws; empty when it throws none.
inline std::string input_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return {};
}

inline std::string shipped(const std::string& relative) { return std::string(RENTSIM_SOURCE_DIR) + "/" + relative; }

}  // namespace rentsim::jobs::test
