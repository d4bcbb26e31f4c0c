// Reading job traces at scale: jobs per second and the peak memory the reading adds.
//   jobs_bench --benchmark_filter=stream   (the 1,000,000-job rentsim CSV, streamed)
//   jobs_bench --write-trace jobs.csv      (only writes that trace)
// The synthetic trace (job_trace_gen.hpp, seed 16) is written to the temporary folder before the
// first benchmark and removed at exit. Memory: the process's peak resident set (VmHWM) is reset
// through /proc/self/clear_refs before each read, and the counter peak_growth_mib is how far it
// rose above the resident set at the start of that read (Linux only; -1 elsewhere).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "analysis/jobs/import.hpp"
#include "job_trace_gen.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rentsim::jobs;

constexpr std::int64_t million = 1'000'000;
constexpr std::uint64_t seed = 16;

// kB from a "Name:   123 kB" line of /proc/self/status; -1 when absent.
long status_kb(const char* name) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string key = std::string(name) + ":";
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
    return -1;
}

bool reset_peak() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    return static_cast<bool>(out.flush());
}

struct Trace {
    std::string path;
    explicit Trace(std::int64_t jobs)
        : path((fs::temp_directory_path() / ("rentsim-jobs-bench-" + std::to_string(::getpid()) + "-" +
                                              std::to_string(jobs) + ".csv")).string()) {
        if (!rentsim::bench::write_synthetic_jobs(path, jobs, seed)) throw std::runtime_error("cannot write " + path);
    }
    ~Trace() { std::remove(path.c_str()); }
};

const Trace& trace(std::int64_t jobs) {
    if (jobs == million) {
        static const Trace t(million);
        return t;
    }
    static const Trace t(100'000);
    return t;
}

void read_trace(benchmark::State& state, const std::string& path, Format format) {
    std::int64_t jobs = 0;
    double growth_mib = -1;
    for (auto _ : state) {
        const long before = reset_peak() ? status_kb("VmRSS") : -1;
        auto r = open_job_trace(path, format, BadRowPolicy::fail);
        jobs = 0;
        double gpu_s = 0;
        while (auto j = r->next()) {
            ++jobs;
            gpu_s += j->gpus * j->duration_s;
        }
        benchmark::DoNotOptimize(gpu_s);
        const long peak = status_kb("VmHWM");
        if (before >= 0 && peak >= 0) growth_mib = static_cast<double>(peak - before) / 1024.0;
    }
    state.SetItemsProcessed(state.iterations() * jobs);
    state.counters["jobs"] = static_cast<double>(jobs);
    state.counters["peak_growth_mib"] = growth_mib;
}

// The streamed formats hold one row: memory does not grow with the trace (compare 100k and 1M).
void BM_stream_rentsim_csv(benchmark::State& state) { read_trace(state, trace(state.range(0)).path, Format::csv); }
BENCHMARK(BM_stream_rentsim_csv)->Arg(100'000)->Arg(million)->Unit(benchmark::kMillisecond)->Iterations(3);

// An unsorted format is held whole: the shipped 82,247-job Philly CSV, sorted in memory.
void BM_sorted_philly_csv(benchmark::State& state) {
    read_trace(state, std::string(RENTSIM_SOURCE_DIR) + "/scenarios/traces/jobs/philly_pollux/philly.csv", Format::philly_csv);
}
BENCHMARK(BM_sorted_philly_csv)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

// jobs_bench --write-trace PATH [JOBS] writes the synthetic trace (1,000,000 jobs unless told)
// and exits, for replays by hand; anything else runs the benchmarks.
int main(int argc, char** argv) {
    if (argc >= 3 && std::string(argv[1]) == "--write-trace") {
        std::int64_t jobs = million;
        if (argc >= 4) {
            const std::string n = argv[3];
            const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), jobs);
            if (ec != std::errc() || end != n.data() + n.size() || jobs < 0) {
                std::fprintf(stderr, "--write-trace: expected a number of jobs >= 0, got '%s'\n", argv[3]);
                return 2;
            }
        }
        if (!rentsim::bench::write_synthetic_jobs(argv[2], jobs, seed)) {
            std::fprintf(stderr, "%s: cannot write the trace\n", argv[2]);
            return 2;
        }
        return 0;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
