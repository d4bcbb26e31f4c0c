// Flow-level collectives at scale: a 1 GiB ring all-reduce over 64 to 8,192 GPUs (DGX A100
// nodes on one non-blocking leaf), simulated flow by flow, next to the analytic model's figure
// for the same call. Counters:
//   predicted_flow_s, predicted_analytic_s   the two models' times for the all-reduce
//   agreement                                predicted_flow_s / predicted_analytic_s
//   cpu_ratio                                CPU time of one flow-level run / one analytic call
//   peak_rss_mb                              the process's peak resident set so far (getrusage
//                                            ru_maxrss): run one size per process, with
//                                            --benchmark_filter, for that size's own peak
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <numeric>
#include <vector>

#include "analysis/simulate/flow_collectives.hpp"
#include "models/network/network.hpp"
#include "models/network/topology.hpp"

namespace {

using namespace rentsim;

net::Network cluster(int gpus) {
    net::TopologySpec spec;
    spec.preset = "dgx-a100";
    spec.gpus = gpus;
    return net::Network(net::build_topology(spec));
}

double peak_rss_mb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr double kBytes = 1073741824.0;

// The flow-level all-reduce; the cluster graph is built before timing starts (a prediction
// that needs routes builds it once per Network).
void BM_flow_all_reduce(benchmark::State& state) {
    const int gpus = static_cast<int>(state.range(0));
    const net::Network network = cluster(gpus);
    (void)network.topology().route(0, 1);
    std::vector<int> ranks(static_cast<std::size_t>(gpus));
    std::iota(ranks.begin(), ranks.end(), 0);
    const std::vector<analysis::FlowJob> jobs{
        analysis::FlowJob{net::Collective::all_reduce, units::bytes(kBytes), ranks, units::Seconds{0.0}}};
    double flow_s = 0.0;
    double flow_cpu = 0.0;
    for (auto _ : state) {
        const double before = cpu_seconds();
        const auto result = analysis::simulate_flow_collectives(network, jobs);
        flow_cpu += cpu_seconds() - before;
        // DoNotOptimize on the result, not on a double: with GCC, benchmark 1.7's register
        // constraint can corrupt a floating-point argument.
        benchmark::DoNotOptimize(result.data());
        flow_s = result.front().duration.value;
    }
    flow_cpu /= static_cast<double>(state.iterations());

    // The analytic figure for the same call, ring as the flow level runs it, timed the same way.
    constexpr int kCalls = 1000;
    double analytic_s = 0.0;
    const double before = cpu_seconds();
    for (int i = 0; i < kCalls; ++i) {
        const auto e = network.collective(net::Collective::all_reduce, units::bytes(kBytes), ranks, net::Algorithm::ring);
        benchmark::DoNotOptimize(&e);
        analytic_s = e.time.value;
    }
    const double analytic_cpu = (cpu_seconds() - before) / kCalls;

    state.counters["predicted_flow_s"] = flow_s;
    state.counters["predicted_analytic_s"] = analytic_s;
    state.counters["agreement"] = flow_s / analytic_s;
    state.counters["cpu_ratio"] = flow_cpu / analytic_cpu;
    state.counters["peak_rss_mb"] = peak_rss_mb();
}
BENCHMARK(BM_flow_all_reduce)->Arg(64)->Arg(128)->Arg(1024)->Arg(8192)->Unit(benchmark::kMillisecond)->UseRealTime();

// The analytic model alone for the same calls.
void BM_analytic_all_reduce(benchmark::State& state) {
    const int gpus = static_cast<int>(state.range(0));
    const net::Network network = cluster(gpus);
    std::vector<int> ranks(static_cast<std::size_t>(gpus));
    std::iota(ranks.begin(), ranks.end(), 0);
    for (auto _ : state) {
        const auto e = network.collective(net::Collective::all_reduce, units::bytes(kBytes), ranks, net::Algorithm::ring);
        benchmark::DoNotOptimize(&e);
        state.counters["predicted_s"] = e.time.value;
    }
}
BENCHMARK(BM_analytic_all_reduce)->Arg(64)->Arg(128)->Arg(1024)->Arg(8192)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
