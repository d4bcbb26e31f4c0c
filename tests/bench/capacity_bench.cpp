// The capacity simulator at scale, reading included: 1,000,000 generated jobs (job_trace_gen.hpp,
// the generator jobs_bench reads, seed 16) written once as rentsim's job CSV, then read back
// through the importer (open_job_trace, streamed one row at a time) into `rentsim cluster`'s
// simulator, on 32 reserved and up to 32 on-demand 8-GPU nodes, EASY backfill with the
// autoscaler. The jobs: 0 to 59 s apart (29.5 s on average), 1 to 32 GPUs (7.4 on average), run
// times 60 to 2,700 s (JobShape; 1,380 s on average), no GPU type: about 346 GPUs busy on
// average, more than the 256 reserved, so that the autoscaler leases and releases on-demand
// nodes all along.
//
// BM_replay_deep_queue replays the same kind of trace on a cluster a little too small for it: 24
// reserved and up to 16 on-demand 8-GPU nodes (320 GPUs) for about 346 GPUs of work, so that the
// queue grows all along (13,695 jobs in flight at the end of 100,000) and every scheduling pass
// and autoscaler scan meets a deep queue with the on-demand pool at max_nodes, as a real trace
// does on an undersized cluster. Memory then follows the queue, which is the jobs in flight.
//
// Reported per run: jobs_per_s (jobs read and replayed per second of CPU), cpu_s,
// peak_in_flight (jobs queued or running at once: what memory follows), peak_rss_mib (the
// process's peak resident memory), and the replay's p95 wait and cost as a check that the work
// was done. Writing the trace is not timed.
//
//   ninja -C build/ci capacity_bench && build/ci/tests/bench/capacity_bench
//   build/ci/tests/bench/capacity_bench --benchmark_filter=deep_queue
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <sys/resource.h>

#include "analysis/capacity/simulator.hpp"
#include "analysis/jobs/import.hpp"
#include "job_trace_gen.hpp"

namespace {

using namespace rentsim;

constexpr std::uint64_t seed = 16;

// The generated trace in the temporary folder, removed at exit.
struct Trace {
    std::string path;
    explicit Trace(std::int64_t jobs)
        : path((std::filesystem::temp_directory_path() /
                ("rentsim-capacity-bench-" + std::to_string(::getpid()) + "-" + std::to_string(jobs) + ".csv"))
                   .string()) {
        bench::JobShape shape;
        shape.max_duration_s = 2700;
        shape.gpu_types = false;
        if (!bench::write_synthetic_jobs(path, jobs, seed, shape)) throw std::runtime_error("cannot write " + path);
    }
    ~Trace() { std::remove(path.c_str()); }
};

capacity::ClusterConfig config(int base_nodes, int burst_nodes) {
    capacity::ClusterConfig c;
    c.scheduler = "backfill";
    capacity::Pool base;
    base.name = "base";
    base.gpu = "a100-sxm4-40gb";
    base.kind = capacity::PoolKind::reserved;
    base.nodes = base.max_nodes = base_nodes;
    base.usd_per_node_hour = 13.92;
    capacity::Pool burst = base;
    burst.name = "burst";
    burst.kind = capacity::PoolKind::on_demand;
    burst.nodes = 0;
    burst.max_nodes = burst_nodes;
    burst.usd_per_node_hour = 21.96;
    c.pools = {base, burst};
    return c;
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void replay(benchmark::State& state, const capacity::ClusterConfig& c) {
    const auto count = state.range(0);
    const Trace trace(count);
    capacity::ClusterResult r;
    double cpu = 0;
    for (auto _ : state) {
        const double t0 = cpu_seconds();
        auto jobs = jobs::open_job_trace(trace.path, jobs::Format::csv, jobs::BadRowPolicy::fail);
        r = capacity::simulate_cluster(c, *jobs);
        cpu += cpu_seconds() - t0;
        // Through a const copy: DoNotOptimize on a non-const double ("+r") garbled the value here.
        const double cost = r.cost_usd;
        benchmark::DoNotOptimize(cost);
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    state.counters["jobs_per_s"] = static_cast<double>(count) * static_cast<double>(state.iterations()) / cpu;
    state.counters["cpu_s"] = cpu / static_cast<double>(state.iterations());
    state.counters["peak_in_flight"] = static_cast<double>(r.peak_jobs_in_flight);
    state.counters["peak_rss_mib"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
    state.counters["wait_p95_s"] = r.wait_s.p95;
    state.counters["finished"] = static_cast<double>(r.finished);
    state.counters["cost_musd"] = r.cost_usd / 1e6;
}

void BM_replay(benchmark::State& state) { replay(state, config(32, 32)); }
BENCHMARK(BM_replay)->Arg(100000)->Arg(1000000)->Unit(benchmark::kSecond)->Iterations(1);

void BM_replay_deep_queue(benchmark::State& state) { replay(state, config(24, 16)); }
BENCHMARK(BM_replay_deep_queue)->Arg(10000)->Arg(100000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
