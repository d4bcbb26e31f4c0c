// Collectives over an NVLink domain that spans nodes (GB200/GB300 NVL72): ranks of one domain
// meet over NVLink, whichever trays they sit on; ranks of two domains cross the network.
#include "models/network/network.hpp"

#include "helpers.hpp"

#include <doctest/doctest.h>

#include <numeric>
#include <vector>

using namespace rentsim;
using namespace rentsim::net;

namespace {
Network nvl72(int gpus, int domain_gpus = 0) {
    TopologySpec s;
    s.preset = "gb200-nvl72";
    s.gpus = gpus;
    s.nvlink_domain_gpus = domain_gpus;
    return Network(build_topology(s));
}
}  // namespace

TEST_CASE("an all-reduce over the 72 GPUs of one GB200 NVL72 rack runs at NVLink speed, with no network step") {
    const NetworkParams p = default_network_params();
    const Network rack = nvl72(144);
    // Bus bandwidth of the transfer alone, latency left out.
    auto busbw = [](const CollectiveEstimate& e, int n) {
        return 2.0 * (n - 1) / n * units::gib(16).value / (e.time.value - e.latency.value) / 1e9;
    };
    const auto ring = rack.collective(Collective::all_reduce, units::gib(16), 72, Algorithm::ring);
    CHECK(ring.protocol == Protocol::simple);
    // NVLink5: 900 GB/s per GPU at NCCL's 40.1 of 50 GB/s per link (0.802, not the fitted
    // NVLink4 0.822); the 400 Gb/s NICs would give 50.
    CHECK(p.nvlink5_efficiency == doctest::Approx(0.802));
    CHECK(busbw(ring, 72) == doctest::Approx(900.0 * 0.802).epsilon(0.001));
    // Latency of 2 x 71 NVLink steps, none over the network.
    CHECK(ring.latency.value == doctest::Approx((p.base_us.simple + 2.0 * 71 * p.nvlink_step_us.simple) * 1e-6));
    // One domain: NVLink SHARP applies, as inside one HGX node.
    const auto sharp = rack.collective(Collective::all_reduce, units::gib(16), 72);
    CHECK(sharp.algorithm == Algorithm::nvls);
    // NVLS on NVLink5: no measurement, so the fitted Hopper efficiency scaled by NCCL's
    // Blackwell-over-Hopper nvlsEfficiency (0.74 / 0.85); each GPU moves 16 GiB x 73/72.
    CHECK(p.nvls5_efficiency == doctest::Approx(p.nvls_efficiency * 0.74 / 0.85));
    CHECK(sharp.time.value - sharp.latency.value ==
          doctest::Approx(units::gib(16).value * 73.0 / 72.0 / (900e9 * p.nvls5_efficiency)).epsilon(0.001));

    // The same 72 GPUs as 18 trays without the rack's NVLink Switch: each tray's four 400 Gb/s NICs.
    const auto trays = nvl72(144, 4).collective(Collective::all_reduce, units::gib(16), 72, Algorithm::ring);
    CHECK(busbw(trays, 72) == doctest::Approx(4 * 50.0 * p.infiniband_efficiency).epsilon(0.001));
    CHECK(trays.time.value > 3.0 * ring.time.value);
}

TEST_CASE("144 GPUs of two NVL72 racks cross the network: network steps, NIC-rate copies between racks") {
    const NetworkParams p = default_network_params();
    const Network racks = nvl72(144);
    const auto one = racks.collective(Collective::all_reduce, units::gib(16), 72, Algorithm::ring);
    const auto two = racks.collective(Collective::all_reduce, units::gib(16), 144, Algorithm::ring);
    REQUIRE(two.protocol == Protocol::simple);
    // Two of the 2 x 143 ring steps leave the rack.
    CHECK(two.latency.value == doctest::Approx((p.base_us.simple + 2.0 * 142 * p.nvlink_step_us.simple +
                                                2.0 * p.net_step_us.simple) * 1e-6));
    CHECK(two.time > one.time);
    CHECK(racks.collective(Collective::all_reduce, units::gib(1), 144).algorithm != Algorithm::nvls);
    // A copy between trays of one rack: NVLink; between racks: one GPU's 400 Gb/s NIC.
    const auto same_rack = racks.collective(Collective::send_recv, units::gib(1), std::vector<int>{0, 71}, Algorithm::direct);
    const auto other_rack = racks.collective(Collective::send_recv, units::gib(1), std::vector<int>{0, 72}, Algorithm::direct);
    CHECK(same_rack.algbw_gbps == doctest::Approx(900.0 * p.nvlink_copy_efficiency).epsilon(0.001));
    CHECK(other_rack.algbw_gbps == doctest::Approx(50.0 * p.infiniband_efficiency).epsilon(0.001));
    // Hierarchical across racks: each GPU all-reduces its shard through its own NIC, all 72 at once.
    const auto hier = racks.collective(Collective::all_reduce, units::gib(16), 144, Algorithm::hierarchical);
    CHECK(hier.algorithm == Algorithm::hierarchical);
}

TEST_CASE("on an NVL72 design a packed count and its rank list give the same estimate") {
    const Network racks = nvl72(216);
    for (int gpus : {2, 5, 72, 73, 100, 144, 216}) {
        std::vector<int> ranks(static_cast<std::size_t>(gpus));
        std::iota(ranks.rbegin(), ranks.rend(), 0);
        for (Collective op : {Collective::all_reduce, Collective::all_gather, Collective::all_to_all}) {
            CAPTURE(gpus);
            CAPTURE(to_string(op));
            const auto a = racks.collective(op, units::bytes(1 << 26), gpus);
            const auto b = racks.collective(op, units::bytes(1 << 26), ranks);
            CHECK(a.time.value == doctest::Approx(b.time.value));
        }
    }
}

TEST_CASE("where the NVLink domain is one node, copies across nodes still go through the NICs") {
    const Network h100 = testing::preset_network("dgx-h100", 32);
    const Network v100 = testing::preset_network("dgx1-v100", 16);
    CHECK(h100.topology().nvlink_domain_gpus() == 8);
    CHECK(v100.topology().nvlink_domain_gpus() == 8);
    const std::vector<int> across{0, 8};
    // Copies across nodes still use the other node's GPU of the same local index.
    const auto copy = h100.collective(Collective::send_recv, units::gib(1), across, Algorithm::direct);
    CHECK(copy.algbw_gbps == doctest::Approx(50.0 * default_network_params().infiniband_efficiency).epsilon(0.001));
}
