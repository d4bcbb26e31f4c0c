#include "analysis/simulate/flow_collectives.hpp"

#include "helpers.hpp"
#include "models/network/network.hpp"

#include <doctest/doctest.h>

#include <numeric>
#include <vector>

using namespace rentsim;
using namespace rentsim::net;
using rentsim::analysis::FlowJob;
using rentsim::analysis::simulate_flow_collectives;

namespace {
using testing::preset_network;
std::vector<int> range(int from, int to) {
    std::vector<int> v(static_cast<std::size_t>(to - from));
    std::iota(v.begin(), v.end(), from);
    return v;
}
double flow_time(const Network& net, Collective op, double bytes, const std::vector<int>& ranks) {
    const std::vector<FlowJob> jobs{FlowJob{op, units::bytes(bytes), ranks, units::Seconds{0.0}}};
    return simulate_flow_collectives(net, jobs).front().duration.value;
}
}  // namespace

TEST_CASE("without contention the flow-level and analytic models agree within 2 percent") {
    struct Case {
        const char* preset;
        int gpus;
        Collective op;
        std::vector<int> ranks;
    };
    const std::vector<Case> cases{
        {"dgx-a100", 8, Collective::all_reduce, range(0, 8)},
        {"dgx-a100", 16, Collective::all_reduce, range(0, 16)},
        {"dgx-a100", 16, Collective::broadcast, range(0, 16)},
        {"dgx-h100", 32, Collective::all_gather, range(0, 32)},
        {"dgx-h100", 32, Collective::reduce_scatter, range(8, 24)},
        {"dgx-h100", 16, Collective::all_to_all, range(0, 16)},
        {"pcie-h100", 8, Collective::all_reduce, range(0, 8)},
        {"aws-p5", 16, Collective::all_reduce, range(0, 16)},
        {"aws-p5en", 16, Collective::send_recv, {0, 8}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.preset);
        CAPTURE(to_string(c.op));
        CAPTURE(c.ranks.size());
        const Network net = preset_network(c.preset, c.gpus);
        const Algorithm algo = c.op == Collective::all_to_all ? Algorithm::direct : Algorithm::ring;
        const double analytic = net.collective(c.op, units::gib(1), c.ranks, algo).time.value;
        CHECK(flow_time(net, c.op, 1073741824.0, c.ranks) == doctest::Approx(analytic).epsilon(0.02));
    }
}

TEST_CASE("two all-reduces across an oversubscribed spine each take twice the bandwidth time") {
    // Four DGX A100 nodes, two per leaf, 2:1 oversubscribed: each leaf uplink carries
    // 2 x 200 GB/s / 2 = 200 GB/s, exactly one node's NICs. Job A spans nodes 0 and 2, job B
    // nodes 1 and 3, so both rings cross the same two uplinks in both directions.
    const Network net = preset_network("dgx-a100", 32, 2.0, 2);
    std::vector<int> a = range(0, 8), b = range(8, 16);
    for (int r : range(16, 24)) a.push_back(r);
    for (int r : range(24, 32)) b.push_back(r);
    const double bytes = 1073741824.0;
    const NetworkParams& p = net.params();

    const CollectiveEstimate analytic = net.collective(Collective::all_reduce, units::bytes(bytes), a, Algorithm::ring);
    // Hand computation: the ring is bound by the node's 8 x 25 GB/s of NICs at InfiniBand
    // efficiency; each rank-link moves 2 (n-1)/n of the buffer.
    const double bandwidth_time = 2.0 * 15.0 / 16.0 * bytes / (200e9 * p.infiniband_efficiency);
    CHECK(analytic.time.value == doctest::Approx(analytic.latency.value + bandwidth_time).epsilon(1e-6));

    const double alone = flow_time(net, Collective::all_reduce, bytes, a);
    CHECK(alone == doctest::Approx(analytic.time.value).epsilon(0.02));

    const std::vector<FlowJob> jobs{FlowJob{Collective::all_reduce, units::bytes(bytes), a, units::Seconds{0.0}},
                                    FlowJob{Collective::all_reduce, units::bytes(bytes), b, units::Seconds{0.0}}};
    const auto both = simulate_flow_collectives(net, jobs);
    // Sharing an uplink halves each crossing flow's rate, so the bandwidth part doubles.
    const double expected = analytic.latency.value + 2.0 * bandwidth_time;
    for (const auto& r : both) {
        CHECK(r.duration.value > alone * 1.5);
        CHECK(r.duration.value == doctest::Approx(expected).epsilon(0.02));
    }
    // On a non-blocking fabric the same two jobs do not slow each other.
    const Network flat = preset_network("dgx-a100", 32, 1.0, 2);
    for (const auto& r : simulate_flow_collectives(flat, jobs)) CHECK(r.duration.value == doctest::Approx(alone).epsilon(0.02));
}
