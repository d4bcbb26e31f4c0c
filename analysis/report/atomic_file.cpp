#include "analysis/report/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::analysis {

void write_file_atomically(const std::string& path, std::string_view content) {
    // The temporary name carries the process id so that concurrent writers never share one.
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw InputError(path, "", std::string("cannot write output: ") + std::strerror(errno));
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw InputError(path, "", "cannot write output (disk full?)");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        throw InputError(path, "", "cannot replace output: " + why);
    }
}

}  // namespace rentsim::analysis
