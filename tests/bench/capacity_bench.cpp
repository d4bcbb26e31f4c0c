// The capacity simulator at scale: 1,000,000 generated jobs (fixed seed) streamed one at a time
// into `rentsim cluster`'s simulator, on 32 reserved and up to 32 on-demand 8-GPU nodes, EASY
// backfill with the autoscaler. The jobs: Poisson arrivals every 60 s on average, 1 to 32 GPUs
// (4 in 10 one GPU; 6.8 on average), run times log-normal with a median of 30 minutes (mean 49),
// a third spot-eligible: about 340 GPUs busy on average, more than the 256 reserved, so that the
// autoscaler leases and releases on-demand nodes all along.
//
// Reported per run: jobs_per_s (jobs replayed per second of CPU), peak_in_flight (jobs queued or
// running at once: what memory follows), peak_rss_mib (the process's peak resident memory),
// and the replay's p95 wait and cost as a check that the work was done.
//
//   ninja -C build/ci capacity_bench && build/ci/tests/bench/capacity_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

#include <sys/resource.h>

#include "analysis/capacity/simulator.hpp"
#include "sim/random.hpp"

namespace {

using namespace rentsim;

// Generates jobs as it is read: the trace is never in memory.
class GeneratedJobs : public jobs::JobReader {
public:
    GeneratedJobs(std::int64_t count, std::uint64_t seed) : left_(count), rng_(seed, "jobs") {}
    std::optional<jobs::Job> next() override {
        if (left_-- <= 0) return std::nullopt;
        jobs::Job j;
        t_ += rng_.exponential(60.0);
        j.id = std::to_string(n_++);
        j.submit_s = t_;
        static constexpr int sizes[] = {1, 1, 1, 1, 2, 2, 4, 8, 16, 32};
        j.gpus = sizes[rng_.uniform_int(0, 9)];
        j.duration_s = std::min(30.0 * 86400, std::exp(rng_.normal(std::log(1800.0), 1.0)));
        j.user = "u" + std::to_string(rng_.uniform_int(0, 199));
        j.spot_ok = rng_.uniform() < 1.0 / 3;
        return j;
    }
    std::int64_t skipped() const override { return 0; }
    const std::vector<jobs::BadRow>& bad_rows() const override { return none_; }

private:
    std::int64_t left_;
    sim::RandomStream rng_;
    double t_ = 0;
    std::int64_t n_ = 0;
    std::vector<jobs::BadRow> none_;
};

capacity::ClusterConfig config() {
    capacity::ClusterConfig c;
    c.scheduler = "backfill";
    capacity::Pool base;
    base.name = "base";
    base.gpu = "a100-sxm4-40gb";
    base.kind = capacity::PoolKind::reserved;
    base.nodes = base.max_nodes = 32;
    base.usd_per_node_hour = 13.92;
    capacity::Pool burst = base;
    burst.name = "burst";
    burst.kind = capacity::PoolKind::on_demand;
    burst.nodes = 0;
    burst.max_nodes = 32;
    burst.usd_per_node_hour = 21.96;
    c.pools = {base, burst};
    return c;
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void BM_replay(benchmark::State& state) {
    const auto count = state.range(0);
    const capacity::ClusterConfig c = config();
    capacity::ClusterResult r;
    double cpu = 0;
    for (auto _ : state) {
        GeneratedJobs jobs(count, 1);
        const double t0 = cpu_seconds();
        r = capacity::simulate_cluster(c, jobs);
        cpu += cpu_seconds() - t0;
        benchmark::DoNotOptimize(r.cost_usd);
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
BENCHMARK(BM_replay)->Arg(100000)->Arg(1000000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
