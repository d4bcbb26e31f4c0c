// The replay driver: the main of a fuzz target built without libFuzzer. Usage:
//   replay_<target> [--timeout S] [--rss-limit-mb M] PATH...
// Each PATH is an input file, or a folder whose regular files (recursively, sorted by path)
// are inputs. Every input is fed to LLVMFuzzerTestOneInput once. An escaping exception is
// reported with the input's path and the next input runs; a crash ends the process with the
// input's path as the last line printed. An input that runs longer than S seconds (default 10)
// or a process above M MiB of resident memory (default 2048) ends the process with status 1.
// Exit status: 0 when every input passed, 1 otherwise.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "fuzz_target.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define RENTSIM_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RENTSIM_REPLAY_ASAN 1
#endif
#endif

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::mutex current_mutex;
std::string current;                       // the input being run, empty between inputs
Clock::time_point started;
std::atomic<bool> done{false};

long rss_mib() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * (::sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

// Ends the process when an input runs too long or memory grows too large.
void watchdog(double timeout_s, long rss_limit_mib) {
    while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::lock_guard lock(current_mutex);
        if (current.empty()) continue;
        const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
        const long rss = rss_mib();
        if (elapsed > timeout_s || rss > rss_limit_mib) {
            std::fprintf(stderr, "FAIL %s: %s\n", current.c_str(),
                         elapsed > timeout_s ? ("timeout after " + std::to_string(elapsed) + " s").c_str()
                                             : ("out of memory: " + std::to_string(rss) + " MiB resident").c_str());
            std::fflush(stderr);
            std::_Exit(1);
        }
    }
}

void add_inputs(const fs::path& p, std::vector<fs::path>& out) {
    if (fs::is_directory(p)) {
        std::vector<fs::path> found;
        for (const auto& e : fs::recursive_directory_iterator(p))
            if (e.is_regular_file()) found.push_back(e.path());
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    } else {
        out.push_back(p);
    }
}

}  // namespace

int main(int argc, char** argv) {
    double timeout_s = 10;
    long rss_limit_mib = 2048;
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--timeout" && i + 1 < argc) timeout_s = std::atof(argv[++i]);
        else if (a == "--rss-limit-mb" && i + 1 < argc) rss_limit_mib = std::atol(argv[++i]);
        else add_inputs(a, inputs);
    }
#ifndef RENTSIM_REPLAY_ASAN
    // Without AddressSanitizer's shadow memory, a cap on the address space turns runaway
    // allocations into std::bad_alloc before the watchdog's next look.
    const rlim_t cap = static_cast<rlim_t>(rss_limit_mib + 1024) * 1024 * 1024;
    const rlimit limit{cap, cap};
    ::setrlimit(RLIMIT_AS, &limit);
#endif
    std::thread dog(watchdog, timeout_s, rss_limit_mib);
    int failures = 0;
    for (const fs::path& p : inputs) {
        std::ifstream in(p, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) {
            std::fprintf(stderr, "FAIL %s: cannot read\n", p.c_str());
            ++failures;
            continue;
        }
        std::printf("replay %s\n", p.c_str());
        std::fflush(stdout);
        {
            std::lock_guard lock(current_mutex);
            current = p.string();
            started = Clock::now();
        }
        try {
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "FAIL %s: uncaught exception: %s\n", p.c_str(), e.what());
            ++failures;
        } catch (...) {
            std::fprintf(stderr, "FAIL %s: uncaught exception of unknown type\n", p.c_str());
            ++failures;
        }
        std::lock_guard lock(current_mutex);
        current.clear();
    }
    done = true;
    dog.join();
    std::printf("%zu inputs, %d failed\n", inputs.size(), failures);
    return failures == 0 && !inputs.empty() ? 0 : 1;
}
