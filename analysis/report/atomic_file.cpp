#include "analysis/report/atomic_file.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::analysis {

namespace {

namespace fs = std::filesystem;

fs::path folder_of(const std::string& path) {
    fs::path p = fs::path(path).parent_path();
    return p.empty() ? fs::path(".") : p;
}

// The temporary name carries the process id so that concurrent writers never share one, and a
// later run can tell a dead writer's leftovers (remove_stale_temporaries).
std::string temporary_of(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

// Makes renames and removals in `folder` durable; a file system that cannot is not an error.
void sync_folder(const fs::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    if (::fsync(fd) != 0) {
        // Some file systems do not sync folders; the data itself was synced.
    }
    ::close(fd);
}

[[noreturn]] void fail(const std::string& path, const char* what, int error) {
    throw InputError(path, "", std::string(what) + ": " + std::strerror(error));
}

// Writes `content` to `tmp` and syncs it to the disk; errors name `target`.
void write_synced(const std::string& tmp, const std::string& target, std::string_view content) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) fail(target, "cannot write output", errno);
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            fail(target, "cannot write output", error);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        fail(target, "cannot write output", error);
    }
    if (::close(fd) != 0) fail(target, "cannot write output", errno);
}

// The temporaries of one call, removed when it leaves by an exception.
struct Temporaries {
    std::vector<std::string> paths;  // emptied once renamed
    Temporaries() = default;
    Temporaries(const Temporaries&) = delete;
    Temporaries& operator=(const Temporaries&) = delete;
    ~Temporaries() {
        for (const auto& p : paths)
            if (!p.empty()) ::unlink(p.c_str());
    }
};

}  // namespace

std::size_t remove_stale_temporaries(const std::string& path) {
    const std::string base = fs::path(path).filename().string();
    if (base.empty()) return 0;
    const std::string prefix = base + ".tmp.";
    std::size_t removed = 0;
    std::error_code ec;
    for (fs::directory_iterator it(folder_of(path), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with(prefix)) continue;
        const std::string_view digits = std::string_view(name).substr(prefix.size());
        pid_t pid = 0;
        const auto [rest, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
        if (error != std::errc() || rest != digits.data() + digits.size() || pid <= 0) continue;
        // This process writes its temporaries only inside write_files_together, never now.
        if (pid != ::getpid() && (::kill(pid, 0) == 0 || errno != ESRCH)) continue;
        std::error_code remove_error;
        if (fs::remove(it->path(), remove_error)) ++removed;
    }
    return removed;
}

void write_files_together(std::span<const OutputFile> files) {
    std::vector<fs::path> folders;
    for (const auto& f : files) {
        remove_stale_temporaries(f.path);
        std::error_code ec;
        if (fs::is_directory(f.path, ec)) throw InputError(f.path, "", "cannot replace output: it is a folder");
        const fs::path folder = folder_of(f.path);
        if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
    }
    Temporaries temporaries;
    for (const auto& f : files) {
        temporaries.paths.push_back(temporary_of(f.path));
        write_synced(temporaries.paths.back(), f.path, f.content);
    }
    // Every new file is on the disk. The old files but the first go before the first rename,
    // so that no interruption leaves a new file beside an old one of another run.
    for (std::size_t i = 1; i < files.size(); ++i)
        if (::unlink(files[i].path.c_str()) != 0 && errno != ENOENT) fail(files[i].path, "cannot replace output", errno);
    if (files.size() > 1)
        for (const auto& folder : folders) sync_folder(folder);
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (::rename(temporaries.paths[i].c_str(), files[i].path.c_str()) != 0)
            fail(files[i].path, "cannot replace output", errno);
        temporaries.paths[i].clear();
    }
    for (const auto& folder : folders) sync_folder(folder);
}

void write_file_atomically(const std::string& path, std::string_view content) {
    const OutputFile file{path, std::string(content)};
    write_files_together(std::span<const OutputFile>(&file, 1));
}

}  // namespace rentsim::analysis
