#include "models/network/network.hpp"

#include "helpers.hpp"

#include "models/compute/gpu.hpp"
#include "models/network/presets.hpp"

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string_view>
#include <vector>

using namespace rentsim;
using namespace rentsim::net;

namespace {
using testing::preset_network;
constexpr std::array<Collective, 6> kOps{Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                                         Collective::broadcast, Collective::all_to_all, Collective::send_recv};
}  // namespace

TEST_CASE("bus bandwidth is algorithm bandwidth times the nccl-tests factor of each operation") {
    CHECK(busbw_factor(Collective::all_reduce, 8) == doctest::Approx(2.0 * 7 / 8));
    CHECK(busbw_factor(Collective::reduce_scatter, 8) == doctest::Approx(7.0 / 8));
    CHECK(busbw_factor(Collective::all_gather, 8) == doctest::Approx(7.0 / 8));
    CHECK(busbw_factor(Collective::broadcast, 8) == doctest::Approx(1.0));
    CHECK(busbw_factor(Collective::all_to_all, 8) == doctest::Approx(7.0 / 8));
    CHECK(busbw_factor(Collective::send_recv, 8) == doctest::Approx(1.0));
    const Network net = preset_network("dgx-h100", 16);
    for (Collective op : kOps) {
        CAPTURE(to_string(op));
        const CollectiveEstimate e = net.collective(op, units::gib(1), 16);
        CHECK(e.algbw_gbps == doctest::Approx(1.073741824 / e.time.value));
        CHECK(e.busbw_gbps == doctest::Approx(e.algbw_gbps * busbw_factor(op, 16)));
        CHECK(e.channels >= 1);
    }
}

TEST_CASE("large single-node all-reduce approaches the fitted NVLink bus bandwidth") {
    const NetworkParams p = default_network_params();
    const CollectiveEstimate a100 = preset_network("dgx-a100", 8).collective(Collective::all_reduce, units::gib(16), 8, Algorithm::ring);
    CHECK(a100.busbw_gbps == doctest::Approx(300.0 * p.nvlink3_efficiency).epsilon(0.01));
    // H100 picks NVLink SHARP, whose bus bandwidth exceeds the 450 GB/s link rate.
    const CollectiveEstimate h100 = preset_network("dgx-h100", 8).collective(Collective::all_reduce, units::gib(16), 8);
    CHECK(h100.algorithm == Algorithm::nvls);
    CHECK(h100.busbw_gbps > 450.0);
}

TEST_CASE("multi-node all-reduce switches from the latency-bound tree to the ring at large sizes") {
    const Network net = preset_network("dgx-a100", 64);
    const CollectiveEstimate small = net.collective(Collective::all_reduce, units::bytes(65536), 64);
    const CollectiveEstimate large = net.collective(Collective::all_reduce, units::gib(16), 64);
    CHECK(small.algorithm == Algorithm::tree);
    CHECK(large.algorithm == Algorithm::ring);
    CHECK(small.protocol != Protocol::simple);
    CHECK(large.protocol == Protocol::simple);
    // The ring at large sizes is limited by the 8 x 200 Gb/s NICs.
    CHECK(large.busbw_gbps == doctest::Approx(200.0 * default_network_params().infiniband_efficiency).epsilon(0.03));
    // Forcing the ring on a small message costs its 2(n-1) steps of latency.
    CHECK(net.collective(Collective::all_reduce, units::bytes(65536), 64, Algorithm::ring).time > small.time);
}

TEST_CASE("a forced algorithm that does not fit the operation is an error that lists the valid ones") {
    const Network net = preset_network("dgx-a100", 16);
    CHECK_THROWS_WITH_AS(net.collective(Collective::all_gather, units::gib(1), 16, Algorithm::tree),
                         doctest::Contains("valid: auto, ring"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(net.collective(Collective::all_reduce, units::gib(1), 16, Algorithm::nvls),
                         doctest::Contains("hierarchical"), std::invalid_argument);
    CHECK_THROWS_AS(net.collective(Collective::all_reduce, units::gib(1), 17), std::invalid_argument);
    const std::vector<int> twice{0, 0};
    CHECK_THROWS_WITH_AS(net.collective(Collective::all_reduce, units::gib(1), twice), doctest::Contains("twice"),
                         std::invalid_argument);
}

TEST_CASE("a rank list and a packed count give the same estimate for the same GPUs") {
    const Network net = preset_network("dgx1-v100", 32);
    std::vector<int> ranks;
    for (int r = 15; r >= 0; --r) ranks.push_back(r);
    for (Collective op : kOps) {
        CAPTURE(to_string(op));
        const auto a = net.collective(op, units::bytes(1 << 26), 16);
        const auto b = net.collective(op, units::bytes(1 << 26), ranks);
        CHECK(a.time.value == doctest::Approx(b.time.value));
        CHECK(a.algorithm == b.algorithm);
    }
}

TEST_CASE("a strided group (every tp-th GPU) gives the estimate of its rank list, to the last bit") {
    struct Case {
        const char* preset;
        int gpus;
        double oversubscription;
        int nodes_per_leaf;
    };
    // One flat leaf, several leaves (3 nodes each, and an oversubscribed pair), a hybrid
    // cube-mesh, 72-GPU NVLink domains of 4-GPU trays, and PCIe nodes.
    const Case cases[] = {{"dgx-a100", 512, 1.0, 0}, {"dgx-h100", 384, 4.0, 3}, {"dgx-h100", 256, 2.0, 0},
                          {"dgx1-v100", 128, 1.0, 0}, {"gb200-nvl72", 576, 1.0, 0}, {"gb200-nvl72", 576, 2.0, 5},
                          {"aws-g6", 96, 1.0, 2}};
    for (const Case& c : cases) {
        const Network net = preset_network(c.preset, c.gpus, c.oversubscription, c.nodes_per_leaf);
        // Strides that divide a node or a domain, multiples of them, and irregular ones (3, 5,
        // 16 and 24 in a 72-GPU domain), which fall back to the list.
        for (int stride : {1, 2, 3, 4, 5, 8, 16, 24, 72, 144}) {
            for (int count : {1, 2, 3, 7, 9, 17, 36, 100}) {
                if (static_cast<long>(count - 1) * stride >= c.gpus) continue;
                std::vector<int> ranks;
                for (int i = 0; i < count; ++i) ranks.push_back(i * stride);
                for (Collective op : kOps) {
                    for (double bytes : {0.0, 4096.0, 3.0e8}) {
                        CAPTURE(c.preset);
                        CAPTURE(c.nodes_per_leaf);
                        CAPTURE(stride);
                        CAPTURE(count);
                        CAPTURE(to_string(op));
                        CAPTURE(bytes);
                        const auto a = net.collective_strided(op, units::bytes(bytes), count, stride);
                        const auto b = net.collective(op, units::bytes(bytes), ranks);
                        CHECK(a.time.value == b.time.value);
                        CHECK(a.latency.value == b.latency.value);
                        CHECK(a.algorithm == b.algorithm);
                        CHECK(a.protocol == b.protocol);
                        CHECK(a.channels == b.channels);
                        CHECK(a.busbw_gbps == b.busbw_gbps);
                        CHECK(a.cpu_ghz_seconds == b.cpu_ghz_seconds);
                    }
                }
            }
        }
        CHECK_THROWS_AS(net.collective_strided(Collective::all_reduce, units::bytes(1), 2, c.gpus), std::invalid_argument);
        CHECK_THROWS_AS(net.collective_strided(Collective::all_reduce, units::bytes(1), 0, 1), std::invalid_argument);
    }
}

TEST_CASE("point-to-point: copy-engine transfers use one route, NCCL send-recv uses the node's NICs") {
    const NetworkParams p = default_network_params();
    const Network net = preset_network("aws-p5en", 16);
    const std::vector<int> across{0, 8};
    const auto copy = net.collective(Collective::send_recv, units::gib(1), across, Algorithm::direct);
    // One 200 Gb/s EFA adapter.
    CHECK(copy.algbw_gbps == doctest::Approx(25.0 * p.efa_efficiency).epsilon(0.001));
    const auto nccl = net.collective(Collective::send_recv, units::gib(1), across);
    // Four 200 Gb/s adapters sit under the GPU's PCIe switch, but the GPU's own PCIe 5.0 x16
    // link (63.0 GB/s) is narrower than their 100 GB/s.
    CHECK(nccl.algbw_gbps == doctest::Approx(63.015 * p.efa_efficiency).epsilon(0.01));
}

TEST_CASE("all-to-all across an oversubscribed spine is slower than on a flat fabric") {
    const Network flat = preset_network("dgx-h100", 64, 1.0, 4);
    const Network over = preset_network("dgx-h100", 64, 4.0, 4);
    const auto a = flat.collective(Collective::all_to_all, units::gib(1), 64);
    const auto b = over.collective(Collective::all_to_all, units::gib(1), 64);
    CHECK(b.time > a.time);
    // Flat: each node sends 8 x 56/64 = 7 buffers through its 400 GB/s of NICs. Oversubscribed
    // 4:1: each leaf sends 4 x 4 node pairs x 64/64 = 16 buffers through a 4 x 400 / 4 GB/s uplink.
    CHECK(b.time.value - b.latency.value == doctest::Approx(16.0 / 7.0 * (a.time.value - a.latency.value)).epsilon(0.01));
}

TEST_CASE("TCP costs CPU time in proportion to the bytes each node moves") {
    TopologySpec s;
    s.preset = "pcie-a100";
    s.gpus = 8;
    const Network net(build_topology(s));
    const auto e = net.collective(Collective::all_reduce, units::gib(1), 8);
    // 2 x busbw factor x bytes x 8 bits, at 1 GHz per Gb/s.
    CHECK(e.cpu_ghz_seconds == doctest::Approx(2.0 * 2.0 * 7 / 8 * 1.073741824 * 8.0));
    CHECK(preset_network("dgx-a100", 16).collective(Collective::all_reduce, units::gib(1), 16).cpu_ghz_seconds == 0.0);
}

TEST_CASE("more bandwidth never slows a collective (random specs, fixed seed)") {
    std::mt19937 rng(20261129);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    const auto catalog = rentsim::compute::gpu_catalog();
    const std::array<Fabric, 4> fabrics{Fabric::infiniband, Fabric::roce, Fabric::efa, Fabric::tcp};
    const std::array<int, 4> per_node{1, 2, 4, 8};
    for (int trial = 0; trial < 60; ++trial) {
        const rentsim::compute::GpuSpec& gpu = catalog[static_cast<std::size_t>(pick(0, static_cast<int>(catalog.size()) - 1))];
        TopologySpec s;
        s.gpu = std::string(gpu.name);
        s.gpus_per_node = per_node[static_cast<std::size_t>(pick(0, 3))];
        s.gpus = s.gpus_per_node * pick(1, 6);
        s.intra_node = gpu.nvlink_generation > 0 && pick(0, 1) == 1 ? "nvlink" : "pcie";
        s.inter_node = FabricSpec{fabrics[static_cast<std::size_t>(pick(0, 3))], real(25.0, 400.0), real(0.5, 30.0)};
        s.oversubscription = std::array<double, 4>{1.0, 1.5, 2.0, 4.0}[static_cast<std::size_t>(pick(0, 3))];
        s.nodes_per_leaf = pick(1, 3);
        TopologySpec faster = s;
        faster.inter_node->gbps_per_gpu *= 1.7;
        faster.oversubscription = std::max(1.0, s.oversubscription / 2.0);
        NetworkParams better = default_network_params();
        better.infiniband_efficiency *= 1.01;
        better.roce_efficiency *= 1.01;
        better.efa_efficiency *= 1.01;
        better.tcp_efficiency *= 1.2;
        better.nvlink3_efficiency *= 1.05;
        better.pcie_efficiency *= 1.05;
        const Network base(build_topology(s));
        const Network more(build_topology(faster));
        const Network tuned = base.with_params(better);
        for (int call = 0; call < 10; ++call) {
            const Collective op = kOps[static_cast<std::size_t>(pick(0, 5))];
            const units::Bytes size = units::bytes(std::ldexp(1.0, pick(8, 34)));
            const int gpus = pick(1, s.gpus);
            CAPTURE(trial);
            CAPTURE(s.gpu);
            CAPTURE(to_string(op));
            CAPTURE(size.value);
            CAPTURE(gpus);
            const double t = base.collective(op, size, gpus).time.value;
            CHECK(more.collective(op, size, gpus).time.value <= t * (1.0 + 1e-12));
            CHECK(tuned.collective(op, size, gpus).time.value <= t * (1.0 + 1e-12));
        }
    }
}

TEST_CASE("one collective() call costs well under 10 microseconds") {
    const Network net = preset_network("dgx-h100", 1024);
    const int calls = 20000;
    double sink = 0.0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
        sink += net.collective(kOps[static_cast<std::size_t>(i % 6)], units::bytes(std::ldexp(1.0, 10 + i % 24)), 1 + i % 1024).time.value;
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / calls;
    MESSAGE("collective(): " << us << " us per call (this build)");
    CHECK(sink > 0.0);
#ifdef NDEBUG
    CHECK(us < 10.0);
#else
    CHECK(us < 100.0);  // sanitizer builds are slower; the bound that matters is checked optimised
#endif
}

TEST_CASE("the collective registry has the nccl-tests names in order and round-trips") {
    const auto& reg = collective_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"all-reduce", "reduce-scatter", "all-gather", "broadcast",
                                                 "all-to-all", "send-recv"});
    REQUIRE(reg.entries().size() == kOps.size());
    for (std::size_t i = 0; i < kOps.size(); ++i) {
        const auto& e = reg.entries()[i];
        CAPTURE(e.name);
        CHECK(e.value == kOps[i]);
        CHECK_FALSE(e.description.empty());
        CHECK(reg.name_of(e.value) == e.name);
        CHECK(to_string(e.value) == e.name);
        CHECK(parse_collective(e.name) == e.value);
    }
    CHECK(reg.get("all-gather") == Collective::all_gather);
    CHECK_FALSE(parse_collective("allreduce").has_value());
    CHECK(reg.unknown_message("allreduce") ==
          "unknown collective 'allreduce'; did you mean 'all-reduce'? valid: all-reduce, reduce-scatter, all-gather, "
          "broadcast, all-to-all, send-recv");
}

TEST_CASE("the algorithm registry is one list for the command line and scenarios, auto first") {
    const auto& reg = algorithm_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"auto", "ring", "tree", "hierarchical", "direct", "nvls"});
    for (const auto& e : reg.entries()) {
        CAPTURE(e.name);
        CHECK_FALSE(e.description.empty());
        CHECK(reg.name_of(e.value) == e.name);
        CHECK(to_string(e.value) == e.name);
        CHECK(parse_algorithm(e.name) == e.value);
    }
    CHECK(reg.get("auto") == Algorithm::automatic);
    CHECK(reg.find("automatic") == nullptr);
    CHECK(parse_algorithm("automatic") == Algorithm::automatic);  // data/nccl_rows.csv spells it so
    CHECK(reg.unknown_message("rign") ==
          "unknown collective algorithm 'rign'; did you mean 'ring'? valid: auto, ring, tree, hierarchical, direct, nvls");
}
