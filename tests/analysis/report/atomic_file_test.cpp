// Output files replaced together: contents, no temporaries on any path, stale temporaries of
// dead writers removed and those of live ones kept.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "analysis/report/atomic_file.hpp"
#include "analysis/scenario/input_error.hpp"

using namespace rentsim;
namespace fs = std::filesystem;

namespace {

struct TempFolder {
    fs::path path;
    explicit TempFolder(const std::string& name)
        : path(fs::temp_directory_path() / ("rentsim-atomic-test-" + std::to_string(::getpid()) + "-" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempFolder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    std::vector<std::string> names() const {
        std::vector<std::string> n;
        for (const auto& e : fs::directory_iterator(path)) n.push_back(e.path().filename().string());
        std::sort(n.begin(), n.end());
        return n;
    }
};

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The id of a process that has exited and been reaped.
pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

}  // namespace

TEST_CASE("files written together hold their contents and leave no temporary") {
    TempFolder dir("together");
    write(dir / "o.json", "old json");
    write(dir / "o.csv", "old csv");
    const std::vector<analysis::OutputFile> files = {{dir / "o.json", "{\"new\": 1}\n"}, {dir / "o.csv", "a,b\n1,2\n"}};
    analysis::write_files_together(files);
    CHECK(read(dir / "o.json") == "{\"new\": 1}\n");
    CHECK(read(dir / "o.csv") == "a,b\n1,2\n");
    CHECK(dir.names() == std::vector<std::string>{"o.csv", "o.json"});
    analysis::write_file_atomically(dir / "o.json", "again");
    CHECK(read(dir / "o.json") == "again");
    CHECK(dir.names() == std::vector<std::string>{"o.csv", "o.json"});
}

TEST_CASE("a file that cannot be written changes nothing and leaves no temporary") {
    TempFolder dir("failure");
    write(dir / "o.json", "old json");
    write(dir / "o.csv", "old csv");
    const std::vector<analysis::OutputFile> files = {{dir / "o.json", "new json"}, {dir / "missing/o.csv", "new csv"}};
    CHECK_THROWS_AS(analysis::write_files_together(files), analysis::InputError);
    CHECK(read(dir / "o.json") == "old json");
    CHECK(read(dir / "o.csv") == "old csv");
    CHECK(dir.names() == std::vector<std::string>{"o.csv", "o.json"});
    fs::create_directory(dir / "folder");
    CHECK_THROWS_WITH_AS(analysis::write_file_atomically(dir / "folder", "x"), doctest::Contains("folder"),
                         analysis::InputError);
    CHECK(dir.names() == std::vector<std::string>{"folder", "o.csv", "o.json"});
}

TEST_CASE("temporaries of dead writers are removed, those of live ones kept") {
    TempFolder dir("stale");
    const std::string dead = "o.json.tmp." + std::to_string(dead_pid());
    const std::string live = "o.json.tmp." + std::to_string(::getppid());
    for (const std::string& name : {dead, live, std::string("o.json.tmp.notapid"), std::string("other.json.tmp.1")})
        write(dir / name, "partial");
    CHECK(analysis::remove_stale_temporaries(dir / "o.json") == 1);
    CHECK(dir.names() == std::vector<std::string>{live, "o.json.tmp.notapid", "other.json.tmp.1"});
    // The next write of the same output cleans up as well.
    write(dir / dead, "partial");
    analysis::write_file_atomically(dir / "o.json", "new");
    CHECK(dir.names() == std::vector<std::string>{"o.json", live, "o.json.tmp.notapid", "other.json.tmp.1"});
}
