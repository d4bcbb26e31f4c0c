// The replay on the traces shipped under scenarios/traces/: each Kineto set replays within 5% of
// its recorded step on every rank; the Chakra ResNet-50 trace (no recorded times) against facts
// that follow from its dependencies; the loader's dispatch and refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/load.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/scenario/input_error.hpp"

using namespace rentsim;
using namespace rentsim::replay;

namespace {

const std::string traces = std::string(RENTSIM_SOURCE_DIR) + "/scenarios/traces/";

struct Replayed {
    trace::Trace trace;
    ReplayGraph graph;
    ReplayResult result;
};

// The trace must outlive its graph: both live in one object that is never moved once built.
void replay_into(Replayed& out, const std::vector<std::string>& paths) {
    out.trace = load_trace(paths);
    out.graph = build_graph(out.trace, {});
    out.result = run_replay(out.graph);
}

// Every rank's replayed step within `tolerance` of its recorded one.
void check_as_recorded(const std::string& set, std::size_t ranks, double tolerance) {
    Replayed r;
    replay_into(r, {traces + set});
    REQUIRE(r.result.ranks.size() == ranks);
    for (const RankSummary& s : r.result.ranks) {
        CAPTURE(s.rank);
        REQUIRE(s.recorded_s > 0);
        CHECK(std::abs(s.iteration_s - s.recorded_s) <= tolerance * s.recorded_s);
        CHECK(s.breakdown.exposed_comm_s <= s.breakdown.comm_s + 1e-12);
        CHECK(s.breakdown.idle_s <= s.iteration_s + 1e-12);
    }
    CHECK(std::abs(r.result.iteration_s - r.result.recorded_iteration_s) <= tolerance * r.result.recorded_iteration_s);
}

std::string message_of(const std::vector<std::string>& paths) {
    try {
        (void)load_trace(paths);
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// Measured with `rentsim replay scenarios/traces/kineto/resnet_1xV100`: ProfilerStep#105
// recorded 95.70 ms, replayed 95.39 ms (-0.3%).
TEST_CASE("the ResNet trace of one V100 replays within 5% of its recorded step") {
    check_as_recorded("kineto/resnet_1xV100", 1, 0.05);
}

// Measured: ProfilerStep#10 on 8 ranks, 12.51 to 19.90 ms recorded, every rank within 0.1%.
TEST_CASE("the DLRM trace of 8 V100s replays within 5% of its recorded step on every rank") {
    check_as_recorded("kineto/dlrm_8xV100", 8, 0.05);
}

// Measured: ProfilerStep#552, 622.93 and 630.64 ms recorded, both replayed to within 0.01%.
TEST_CASE("two ranks of the 128-rank recommendation job replay within 5% of their recorded steps") {
    check_as_recorded("kineto/recsys_128rank_2ranks", 2, 0.05);
}

TEST_CASE("the Chakra ResNet-50 trace replays by its data dependencies, alike in its two forms") {
    Replayed et;
    replay_into(et, {traces + "chakra/resnet_ddp_rank0/chakra.0.et.gz"});
    const trace::RankTrace& rt = et.trace.ranks.at(0);
    CHECK(et.result.recorded_iteration_s < 0);  // Chakra records no iteration time
    // The longest chain of data dependencies, by recorded durations: no schedule is shorter.
    std::vector<std::int64_t> finish(rt.events.size(), -1);
    std::vector<std::vector<std::uint32_t>> preds(rt.events.size());
    for (const trace::Dep& d : rt.deps)
        if (d.kind == trace::DepKind::data) preds[d.to].push_back(d.from);
    std::int64_t longest = 0;
    // Relax until nothing changes (the data dependencies are acyclic: at most n rounds).
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = 0; i < rt.events.size(); ++i) {
            std::int64_t start = 0;
            for (std::uint32_t p : preds[i]) start = std::max(start, finish[p]);
            const std::int64_t f = start + std::max<std::int64_t>(rt.events[i].dur_ns, 0);
            if (f != finish[i]) {
                finish[i] = f;
                changed = true;
            }
        }
    }
    for (std::int64_t f : finish) longest = std::max(longest, f);
    CHECK(longest > 0);
    CHECK(et.result.iteration_s * 1e9 >= static_cast<double>(longest) - 1.0);
    // The device time on the rank's GPU: unions, so at most the sum of the GPU nodes' durations.
    double gpu_sum_s = 0;
    for (const trace::Event& e : rt.events)
        if (e.device >= 0) gpu_sum_s += static_cast<double>(e.dur_ns) * 1e-9;
    const Breakdown& b = et.result.breakdown;
    CHECK(b.compute_s + b.memory_s + b.comm_s <= gpu_sum_s + 1e-9);
    CHECK(b.comm_s > 0);  // 5 all-reduces and 2 broadcasts
    CHECK(b.exposed_comm_s <= b.comm_s + 1e-12);
    CHECK(b.overlap_fraction >= 0);
    CHECK(b.overlap_fraction <= 1);

    Replayed json;
    replay_into(json, {traces + "chakra/resnet_ddp_rank0/chakra.0.json.gz"});
    CHECK(json.result.iteration_s == doctest::Approx(et.result.iteration_s).epsilon(1e-9));
}

TEST_CASE("load_trace refuses PyTorch execution traces, mixed formats and empty folders") {
    const std::string et = traces + "chakra/resnet_ddp_2gpu_pytorch_et";
    CHECK(message_of({et}) == et + "/resnet_2gpu_et.json.gz: is a PyTorch execution trace: it records host operators "
                                   "without durations, so it cannot be replayed; convert it to a Chakra trace (with its "
                                   "Kineto trace) or replay the Kineto trace");
    const std::string kineto = traces + "kineto/resnet_1xV100/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
    const std::string chakra = traces + "chakra/resnet_ddp_rank0/chakra.0.et.gz";
    CHECK(message_of({kineto, chakra}) == chakra + ": is a Chakra trace but " + kineto +
                                              " is a Kineto trace: the files of one replay must be of one format");
    const std::filesystem::path empty = std::filesystem::temp_directory_path() / "rentsim_replay_empty_folder";
    std::filesystem::create_directories(empty);
    {
        std::ofstream(empty / "NOTES.md") << "notes are not traces\n";
    }
    CHECK(message_of({empty.string()}) == empty.string() + ": the folder holds no trace file");
    std::filesystem::remove_all(empty);
}
