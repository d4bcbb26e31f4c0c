// Trace import speed: the Kineto importer on the shipped traces, as `rentsim replay` reads
// them (inflate, parse once, build the RankTrace). BM_kineto_resnet is the README's import
// figure: the 15.4 MB (15,377,659 bytes uncompressed) ResNet trace, 68,692 entries.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "analysis/trace/kineto.hpp"

namespace {

const std::string kineto = std::string(RENTSIM_SOURCE_DIR) + "/scenarios/traces/kineto/";

void BM_kineto_resnet(benchmark::State& state) {
    const std::string path = kineto + "resnet_1xV100/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
    for (auto _ : state) {
        auto t = rentsim::trace::read_kineto(path);
        benchmark::DoNotOptimize(t);
        state.counters["events"] = static_cast<double>(t.events.size());
    }
    state.SetBytesProcessed(state.iterations() * 15377659);  // uncompressed bytes (gzip -dc | wc -c)
}
BENCHMARK(BM_kineto_resnet)->Unit(benchmark::kMillisecond);

// All 8 ranks of the DLRM job, sorted by rank: 0.9-1.0 MB each uncompressed.
void BM_kineto_dlrm_8_ranks(benchmark::State& state) {
    const char* files[8] = {"worker0_step_12.1694128201545", "worker1_step_12.1694128201556", "worker2_step_12.1694128201554",
                            "worker3_step_12.1694128201557", "worker4_step_12.1694128201547", "worker5_step_12.1694128201549",
                            "worker6_step_12.1694128201553", "worker7_step_12.1694128201553"};
    std::vector<std::string> paths;
    for (const char* f : files) paths.push_back(kineto + "dlrm_8xV100/" + f + ".pt.trace.json.gz");
    for (auto _ : state) {
        auto t = rentsim::trace::read_kineto_ranks(paths);
        benchmark::DoNotOptimize(t);
    }
}
BENCHMARK(BM_kineto_dlrm_8_ranks)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
