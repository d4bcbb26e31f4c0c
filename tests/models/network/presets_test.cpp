// The 2026 topology presets: the figures each one documents, the NVLink domain of the NVL72
// racks as the topology wires it, the host-memory bounce of GPUs without PCIe peer-to-peer, the
// Infinity Fabric mesh, and the instances that map to presets.
#include "models/network/network.hpp"
#include "models/network/topology.hpp"
#include "helpers.hpp"

#include "models/compute/gpu.hpp"
#include "models/pricing/catalog.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace rentsim;
using namespace rentsim::net;

namespace {

using testing::gbytes;
using testing::preset;

struct Expected {
    std::string_view name;
    int gpus_per_node;
    std::string_view gpu;
    double nvlink_gbytes;     // per GPU per direction (Infinity Fabric for MI300X); 0: none
    double nic_gbits_per_gpu;
    Fabric fabric;
    int domain_gpus;          // GPUs of one NVLink domain
};

// The table of models/network/README.md, per GPU.
constexpr std::array<Expected, 18> kPresets2026{{
    {"dgx-b200", 8, "b200", 900.0, 400.0, Fabric::infiniband, 8},
    {"hgx-b300", 8, "b300", 900.0, 800.0, Fabric::infiniband, 8},
    {"gb200-nvl72", 4, "gb200", 900.0, 400.0, Fabric::infiniband, 72},
    {"gb300-nvl72", 4, "gb300", 900.0, 800.0, Fabric::infiniband, 72},
    {"mi300x-8", 8, "mi300x", 448.0, 400.0, Fabric::infiniband, 8},
    {"aws-p6-b200", 8, "b200", 900.0, 400.0, Fabric::efa, 8},
    {"aws-g6e", 8, "l40s", 0.0, 50.0, Fabric::efa, 8},
    {"aws-g6", 8, "l4", 0.0, 12.5, Fabric::efa, 8},
    {"aws-g5", 8, "a10g", 0.0, 12.5, Fabric::efa, 8},
    {"aws-g4dn", 8, "t4", 0.0, 12.5, Fabric::efa, 8},
    {"gcp-a4", 8, "b200", 900.0, 400.0, Fabric::roce, 8},
    {"gcp-g2", 8, "l4", 0.0, 12.5, Fabric::tcp, 8},
    {"azure-nd-gb200-v6", 4, "gb200", 900.0, 400.0, Fabric::infiniband, 72},
    {"azure-nd-mi300x-v5", 8, "mi300x", 448.0, 400.0, Fabric::infiniband, 8},
    {"pcie-l40s", 8, "l40s", 0.0, 200.0, Fabric::roce, 8},
    {"pcie-l4", 8, "l4", 0.0, 12.5, Fabric::tcp, 8},
    {"pcie-a10g", 8, "a10g", 0.0, 12.5, Fabric::tcp, 8},
    {"pcie-rtx4090", 8, "rtx4090", 0.0, 12.5, Fabric::tcp, 8},
}};

bool has_kind(const Topology& t, const std::vector<int>& route, LinkKind kind) {
    for (int id : route)
        if (t.link(id).kind == kind) return true;
    return false;
}

}  // namespace

TEST_CASE("every 2026 preset reports its documented GPUs per node, NVLink and NIC rates per GPU") {
    for (const Expected& e : kPresets2026) {
        CAPTURE(e.name);
        REQUIRE(topology_registry().find(e.name) != nullptr);
        const NodeDesign d = resolve_node_design(preset(std::string(e.name), 8));
        CHECK(d.preset == e.name);
        CHECK(d.gpu == e.gpu);
        CHECK(d.gpus_per_node == e.gpus_per_node);
        CHECK(gbytes(d.nvlink_per_gpu) == doctest::Approx(e.nvlink_gbytes));
        CHECK(d.nics * d.nic_rate.value * 8.0 / 1e9 / d.gpus_per_node == doctest::Approx(e.nic_gbits_per_gpu));
        CHECK(d.fabric == e.fabric);
        CHECK(d.pcie_p2p == compute::find_gpu(e.gpu).pcie_p2p);
        // Two domains (or two nodes), built and described.
        const Topology t = build_topology(preset(std::string(e.name), 2 * e.domain_gpus));
        CHECK(t.nvlink_domain_gpus() == e.domain_gpus);
        CHECK(t.nodes() == 2 * e.domain_gpus / e.gpus_per_node);
        CHECK(t.describe().find(std::string(e.name)) != std::string::npos);
        // GPUs 0 and 1 share a node: NVLink (or Infinity Fabric) at the GPU's rate, else PCIe.
        const double pair = gbytes(t.bottleneck(0, 1));
        if (d.infinity_fabric) CHECK(pair == doctest::Approx(e.nvlink_gbytes / 7.0));
        else if (e.nvlink_gbytes > 0.0) CHECK(pair == doctest::Approx(e.nvlink_gbytes));
        else CHECK(pair <= gbytes(compute::pcie_x16(d.pcie_generation)) * (1.0 + 1e-12));
        // The last GPU is in the other domain: the route leaves through the NICs.
        CHECK(has_kind(t, t.route(0, t.gpus() - 1), LinkKind::network));
    }
}

TEST_CASE("GB200 NVL72: GPUs of different trays of one rack meet over NVLink, racks over the NICs") {
    const Topology t = build_topology(preset("gb200-nvl72", 144));
    CHECK(t.nodes() == 36);
    CHECK(t.nodes_per_nvlink_domain() == 18);
    CHECK(t.nvlink_domain_of(71) == 0);
    CHECK(t.nvlink_domain_of(72) == 1);
    // Tray 0 and tray 17 of rack 0: GPU -> NVLink Switch -> GPU, no PCIe, no network.
    for (int id : t.route(0, 71)) CHECK(t.link(id).kind == LinkKind::nvlink);
    CHECK(gbytes(t.bottleneck(0, 71)) == doctest::Approx(900.0));
    CHECK(gbytes(t.bottleneck(0, 3)) == doctest::Approx(900.0));
    // Rack 0 to rack 1: one 400 Gb/s ConnectX-7 per GPU.
    CHECK(has_kind(t, t.route(0, 72), LinkKind::network));
    CHECK(gbytes(t.bottleneck(0, 72)) == doctest::Approx(50.0));
    CHECK(t.describe().find("NVLink domain of 72 GPUs (18 nodes)") != std::string::npos);
    // GB300: 800 Gb/s per GPU through ConnectX-8's PCIe Gen6 switch, not capped by Gen5.
    const Topology u = build_topology(preset("gb300-nvl72", 144));
    CHECK(gbytes(u.bottleneck(0, 72)) == doctest::Approx(100.0));
    CHECK(gbytes(u.bottleneck(0, 71)) == doctest::Approx(900.0));
}

TEST_CASE("nvlink_domain_gpus: the NVL72 domain can be cut to one tray, and bad sizes are refused") {
    TopologySpec trays = preset("gb200-nvl72", 144);
    trays.nvlink_domain_gpus = 4;  // each tray on its own: every other tray over the network
    const Topology t = build_topology(trays);
    CHECK(t.nvlink_domain_gpus() == 4);
    CHECK(has_kind(t, t.route(0, 4), LinkKind::network));
    CHECK(gbytes(t.bottleneck(0, 4)) == doctest::Approx(50.0));

    TopologySpec odd = preset("gb200-nvl72", 144);
    odd.nvlink_domain_gpus = 70;
    CHECK_THROWS_WITH_AS(build_topology(odd), doctest::Contains("multiple of the 4 GPUs per node"),
                         std::invalid_argument);
    TopologySpec pcie = preset("pcie-l40s", 16);
    pcie.nvlink_domain_gpus = 16;
    CHECK_THROWS_WITH_AS(build_topology(pcie), doctest::Contains("needs GPUs on NVSwitch"), std::invalid_argument);

    // A generic NVSwitch spec can span nodes too: 4 nodes of 8 H100 in one 32-GPU domain.
    TopologySpec g;
    g.gpu = "h100-sxm5-80gb";
    g.gpus = 64;
    g.inter_node = FabricSpec{Fabric::infiniband, 400.0, 0.83};
    g.nvlink_domain_gpus = 32;
    const Topology h = build_topology(g);
    CHECK(gbytes(h.bottleneck(0, 31)) == doctest::Approx(450.0));
    CHECK(gbytes(h.bottleneck(0, 32)) == doctest::Approx(50.0));
    // The default keeps every existing design as it was: no domain beyond the node.
    CHECK(resolve_node_design(preset("dgx-h100", 16)).nvlink_domain_gpus == 0);
    g.nvlink_domain_gpus = 8;
    CHECK(resolve_node_design(g).nvlink_domain_gpus == 0);
}

TEST_CASE("without PCIe peer-to-peer, a GPU copy bounces through host memory: a third of the rate, more latency") {
    CHECK(compute::find_gpu("rtx4090").pcie_generation == compute::find_gpu("l40s").pcie_generation);
    const Topology geforce = build_topology(preset("pcie-rtx4090", 8));
    const Topology l40s = build_topology(preset("pcie-l40s", 8));
    const double x16 = gbytes(compute::pcie_x16(4));
    // Same PCIe switch: L40S peer to peer at the x16 rate; RTX 4090 device-to-host then
    // host-to-device, at the share of it NCCL's SHM all-reduce reached on Gen3 x16 (3.9 of the
    // 12 GB/s NCCL rates the link at, NVIDIA/nccl issue #384), and twice the latency.
    CHECK(gbytes(l40s.bottleneck(0, 1)) == doctest::Approx(x16));
    CHECK(gbytes(geforce.bottleneck(0, 1)) == doctest::Approx(x16 * 3.9 / 12.0));
    CHECK(geforce.latency(0, 1).value == doctest::Approx(2.0 * l40s.latency(0, 1).value));
    // GPU -> PCIe switch -> CPU -> bounce buffer -> CPU -> PCIe switch -> GPU, against GPU ->
    // PCIe switch -> GPU.
    CHECK(geforce.route(0, 1).size() == 6);
    CHECK(l40s.route(0, 1).size() == 2);
    CHECK(geforce.describe().find("no peer-to-peer") != std::string::npos);

    // Same node shape and network, only the GPU differs: the RTX 4090 ring is the slower one. Four
    // GPUs on one socket, so that no inter-socket link bounds both rings alike: L40S copies at
    // the x16 rate, the RTX 4090 at about a third of it.
    auto generic = [](std::string gpu) {
        TopologySpec s;
        s.gpu = std::move(gpu);
        s.gpus = 8;
        s.gpus_per_node = 4;
        s.intra_node = "pcie";
        s.inter_node = FabricSpec{Fabric::roce, 100.0, 0.83};
        return Network(build_topology(s));
    };
    const Network n4090 = generic("rtx4090");
    const Network nl40s = generic("l40s");
    for (Collective op : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
        CAPTURE(to_string(op));
        const double slow = n4090.collective(op, units::gib(1), 4).time.value;
        const double fast = nl40s.collective(op, units::gib(1), 4).time.value;
        CHECK(slow > 2.9 * fast);
    }
    // The presets too, whole nodes of 8.
    CHECK(Network(geforce).collective(Collective::all_reduce, units::gib(1), 8).time >
          Network(l40s).collective(Collective::all_reduce, units::gib(1), 8).time);
}

TEST_CASE("peer_to_peer false (NCCL_P2P_DISABLE=1): NVLink unused, copies bounce through host memory") {
    TopologySpec on = preset("dgx-a100", 8);
    TopologySpec off = on;
    off.peer_to_peer = false;
    const Topology nvlink = build_topology(on);
    const Topology host = build_topology(off);
    CHECK(host.route(0, 1).size() == 6);  // GPU -> switch -> CPU -> buffer -> CPU -> switch -> GPU
    CHECK(gbytes(host.bottleneck(0, 1)) < gbytes(nvlink.bottleneck(0, 1)) / 10.0);
    CHECK(host.describe().find("no peer-to-peer") != std::string::npos);
    // The same bounce as a GPU whose driver has no peer-to-peer: an A100 node without P2P moves
    // an all-reduce at the rate of the same node's PCIe without NVLink, far below NVLink's.
    const Network with(nvlink), without(host);
    for (int gpus : {2, 8}) {
        CAPTURE(gpus);
        const double fast = with.collective(Collective::all_reduce, units::gib(1), gpus).time.value;
        const double slow = without.collective(Collective::all_reduce, units::gib(1), gpus).time.value;
        CHECK(slow > 10.0 * fast);
    }
    // The measurement the bounce rate comes from: NCCL's SHM all-reduce between two GPUs of a
    // PCIe Gen3 host (V100 SXM2) at 3.9 GB/s bus bandwidth (NVIDIA/nccl issue #384).
    TopologySpec v100 = preset("dgx1-v100", 8);
    v100.peer_to_peer = false;
    CHECK(Network(build_topology(v100)).collective(Collective::all_reduce, units::gib(1), 2).busbw_gbps ==
          doctest::Approx(3.9).epsilon(0.01));
    // No NVLink SHARP without the P2P transport either.
    TopologySpec h100 = preset("dgx-h100", 8);
    h100.peer_to_peer = false;
    const Network hopper(build_topology(h100));
    CHECK(hopper.collective(Collective::all_reduce, units::gib(1), 8).algorithm != Algorithm::nvls);
}

TEST_CASE("MI300X: each GPU has seven 64 GB/s Infinity Fabric links, 448 GB/s to the other seven") {
    const Topology t = build_topology(preset("mi300x-8", 16));
    for (int b = 1; b < 8; ++b) CHECK(gbytes(t.bottleneck(0, b)) == doctest::Approx(64.0));
    CHECK(t.describe().find("Infinity Fabric (xGMI) full mesh, 64 GB/s per link, 448 GB/s per GPU") !=
          std::string::npos);
    const Network net(t);
    const auto ring = net.collective(Collective::all_reduce, units::gib(16), 8, Algorithm::ring);
    // The assumed efficiency class (NVLink3's, for RCCL's 48 of 64 GB/s).
    CHECK(ring.busbw_gbps == doctest::Approx(448.0 * default_network_params().nvlink3_efficiency).epsilon(0.01));
    // A pair moves over its one link.
    const auto pair = net.collective(Collective::send_recv, units::gib(1), std::vector<int>{0, 5}, Algorithm::direct);
    CHECK(pair.algbw_gbps == doctest::Approx(64.0 * default_network_params().nvlink_copy_efficiency).epsilon(0.01));
}

TEST_CASE("more bandwidth never slows a collective, on every preset (fixed seed)") {
    std::mt19937 rng(20261201);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::array<Collective, 6> ops{Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                                        Collective::broadcast,  Collective::all_to_all,     Collective::send_recv};
    for (const PresetInfo& info : topology_presets()) {
        CAPTURE(info.name);
        const NodeDesign base = resolve_node_design(preset(std::string(info.name), 8));
        NodeDesign faster = base;
        faster.nic_rate *= 1.7;
        faster.nvlink_per_gpu *= 1.3;
        faster.nvlink_per_link *= 1.3;
        faster.cpu_link *= 1.5;
        const int unit = base.nvlink_domain_gpus > 0 ? base.nvlink_domain_gpus : base.gpus_per_node;
        const int gpus = 2 * std::max(unit, 8);
        const Network slow(build_from_design(base, gpus, 1.0, 0));
        const Network fast(build_from_design(faster, gpus, 1.0, 0));
        for (int call = 0; call < 40; ++call) {
            const Collective op = ops[static_cast<std::size_t>(pick(0, 5))];
            const units::Bytes size = units::bytes(std::ldexp(1.0, pick(8, 34)));
            const int n = pick(1, gpus);
            CAPTURE(to_string(op));
            CAPTURE(size.value);
            CAPTURE(n);
            CHECK(fast.collective(op, size, n).time.value <= slow.collective(op, size, n).time.value * (1.0 + 1e-12));
        }
    }
}

TEST_CASE("every 2026 instance maps to its preset, whose node matches the instance's catalog rows") {
    struct Row {
        std::string_view provider, instance, preset;
    };
    constexpr std::array<Row, 9> rows{{{"aws", "p6-b200.48xlarge", "aws-p6-b200"},
                                       {"aws", "g6e.48xlarge", "aws-g6e"},
                                       {"aws", "g6.48xlarge", "aws-g6"},
                                       {"aws", "g5.48xlarge", "aws-g5"},
                                       {"aws", "g4dn.metal", "aws-g4dn"},
                                       {"gcp", "a4-highgpu-8g", "gcp-a4"},
                                       {"gcp", "g2-standard-96", "gcp-g2"},
                                       {"azure", "Standard_ND128isr_NDR_GB200_v6", "azure-nd-gb200-v6"},
                                       {"azure", "Standard_ND96isr_MI300X_v5", "azure-nd-mi300x-v5"}}};
    const auto& catalog = price::shipped_catalog();
    for (const Row& r : rows) {
        CAPTURE(r.instance);
        CHECK(preset_for_instance(r.provider, r.instance) == r.preset);
        REQUIRE(topology_registry().find(r.preset) != nullptr);
        const NodeDesign d = resolve_node_design(preset(std::string(r.preset), 8));
        for (const price::CatalogRow& row : catalog) {
            if (row.provider != r.provider || row.instance != r.instance) continue;
            CHECK(row.gpu == d.gpu);
            CHECK(row.gpus_per_instance == d.gpus_per_node);
        }
    }
    CHECK(preset_for_instance("aws", "p6-b300.48xlarge").empty());
    CHECK(preset_for_instance("gcp", "p6-b200.48xlarge").empty());
}
