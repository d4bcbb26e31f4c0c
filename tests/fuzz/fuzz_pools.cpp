// Fuzz target: the pools file loader (capacity::parse_pools). Expected: InputError. A file that
// loads replays a few fixed jobs; every job must leave as finished, refused or given up, and
// busy GPU time stay within held GPU time.
#include <vector>

#include "analysis/capacity/pools_file.hpp"
#include "analysis/capacity/simulator.hpp"
#include "analysis/scenario/input_error.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim;
    capacity::PoolsFile f;
    try {
        f = capacity::parse_pools(fuzz::text(data, size), "fuzz.json");
    } catch (const analysis::InputError&) {
        return 0;
    }
    std::vector<jobs::Job> trace;
    const int gpus[] = {1, 8, 16, 4096};
    for (int i = 0; i < 8; ++i) {
        jobs::Job j;
        j.id = std::to_string(i);
        j.submit_s = i * 300.0;
        j.gpus = gpus[i % 4];
        j.duration_s = 600.0 * (i + 1);
        j.spot_ok = i % 2 == 0;
        j.user = i % 3 == 0 ? "a" : "b";
        trace.push_back(j);
    }
    capacity::VectorJobReader reader(trace);
    const capacity::ClusterResult r = capacity::simulate_cluster(f.config, reader);
    RENTSIM_FUZZ_CHECK(r.finished + r.unschedulable + r.gave_up == 8, "a job neither finished nor was refused");
    RENTSIM_FUZZ_CHECK(r.gpu_utilization <= 1.0 + 1e-9, "busy GPU time above held GPU time");
    RENTSIM_FUZZ_CHECK(r.cost_usd >= 0, "a negative cost");
    return 0;
}
