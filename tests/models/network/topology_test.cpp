#include "models/network/topology.hpp"
#include "helpers.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace rentsim;
using namespace rentsim::net;

namespace {
using testing::gbytes;
using testing::preset;
}  // namespace

TEST_CASE("every preset builds with two nodes and describes itself") {
    for (const PresetInfo& info : topology_presets()) {
        CAPTURE(info.name);
        const Topology t = build_topology(preset(std::string(info.name), 16));
        CHECK(t.gpus() == 16);
        CHECK(t.nodes() == (16 + t.gpus_per_node() - 1) / t.gpus_per_node());
        CHECK(t.describe().find(std::string(info.name)) != std::string::npos);
        CHECK(!info.description.empty());
    }
}

TEST_CASE("two GPUs in one DGX A100 meet over 300 GB/s of NVLink") {
    const Topology t = build_topology(preset("dgx-a100", 16));
    CHECK(gbytes(t.bottleneck(0, 1)) == doctest::Approx(300.0));
    CHECK(t.link(t.route(0, 1).front()).kind == LinkKind::nvlink);
}

TEST_CASE("two GPUs on different DGX A100 nodes are limited by one 200 Gb/s NIC") {
    const Topology t = build_topology(preset("dgx-a100", 16));
    CHECK(gbytes(t.bottleneck(0, 8)) == doctest::Approx(25.0));
    CHECK(gbytes(t.bottleneck(3, 13)) == doctest::Approx(25.0));
}

TEST_CASE("DGX-1 mesh: direct links carry 25 or 50 GB/s, unlinked pairs fall back to PCIe and QPI") {
    const Topology t = build_topology(preset("dgx1-v100", 8));
    CHECK(gbytes(t.bottleneck(0, 1)) == doctest::Approx(25.0));
    CHECK(gbytes(t.bottleneck(0, 3)) == doctest::Approx(50.0));
    // GPU 0 and GPU 5 share no NVLink: PCIe Gen3 to the CPUs and Broadwell QPI (6 GB/s).
    CHECK(gbytes(t.bottleneck(0, 5)) == doctest::Approx(6.0));
}

TEST_CASE("PCIe presets route between GPUs through PCIe switches") {
    const Topology t = build_topology(preset("pcie-h100", 8));
    // Same PCIe 5.0 switch: x16 Gen5 = 63.0 GB/s.
    CHECK(gbytes(t.bottleneck(0, 1)) == doctest::Approx(63.015).epsilon(1e-3));
    // Other socket: Sapphire Rapids UPI at NCCL's 22 GB/s.
    CHECK(gbytes(t.bottleneck(0, 7)) == doctest::Approx(22.0));
}

TEST_CASE("an oversubscribed fat-tree routes across leaves through the spine") {
    TopologySpec s = preset("dgx-a100", 32);
    s.oversubscription = 2.0;
    s.nodes_per_leaf = 2;
    const Topology t = build_topology(s);
    CHECK(t.leaves() == 2);
    // 2 nodes x 8 x 25 GB/s / 2.
    CHECK(gbytes(t.leaf_uplink()) == doctest::Approx(200.0));
    CHECK(t.route(0, 8).size() + 2 == t.route(0, 16).size());
}

TEST_CASE("an unknown preset is rejected with the valid names and a suggestion") {
    try {
        build_topology(preset("dgx-a10", 8));
        FAIL("expected an exception");
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        CHECK(what.find("unknown topology preset 'dgx-a10'") != std::string::npos);
        CHECK(what.find("did you mean 'dgx-a100'") != std::string::npos);
        for (const PresetInfo& info : topology_presets()) CHECK(what.find(std::string(info.name)) != std::string::npos);
    }
}

TEST_CASE("generic specs: NVLink from the GPU catalog, errors name the field") {
    TopologySpec s;
    s.gpu = "h100-sxm5-80gb";
    s.gpus = 16;
    s.inter_node = FabricSpec{Fabric::roce, 400.0, 2.0};
    const Topology t = build_topology(s);
    CHECK(gbytes(t.bottleneck(0, 1)) == doctest::Approx(450.0));
    CHECK(gbytes(t.bottleneck(0, 8)) == doctest::Approx(50.0));

    s.gpu = "a100-pcie-80gb";
    CHECK_THROWS_WITH_AS(build_topology(s), doctest::Contains("has no NVLink"), std::invalid_argument);
    s.gpu = "h100-sxm5-80gb";
    s.inter_node.reset();
    CHECK_THROWS_WITH_AS(build_topology(s), doctest::Contains("inter_node"), std::invalid_argument);
    s.gpu = "h10";
    CHECK_THROWS_WITH_AS(build_topology(s), doctest::Contains("unknown gpu 'h10'"), std::invalid_argument);
}

TEST_CASE("the fabric registry holds the inter-node fabrics in order and round-trips") {
    const auto& reg = fabric_registry();
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"infiniband", "roce", "efa", "tcp"});
    for (const auto& e : reg.entries()) {
        CAPTURE(e.name);
        CHECK_FALSE(e.description.empty());
        CHECK(reg.name_of(e.value) == e.name);
        CHECK(to_string(e.value) == e.name);
        CHECK(parse_fabric(e.name) == e.value);
    }
    CHECK(reg.get("efa") == Fabric::efa);
    CHECK(reg.find("nvlink") == nullptr);  // inside a node only
    CHECK(reg.name_of(Fabric::pcie).empty());
    CHECK(reg.unknown_message("ethernet") == "unknown fabric 'ethernet'; valid: infiniband, roce, efa, tcp");
    CHECK(reg.unknown_message("rocev2") == "unknown fabric 'rocev2'; did you mean 'roce'? valid: infiniband, roce, efa, tcp");
}

TEST_CASE("the topology registry holds the presets in order and gives build_topology's message") {
    const auto& reg = topology_registry();
    REQUIRE(reg.entries().size() == topology_presets().size());
    for (std::size_t i = 0; i < reg.entries().size(); ++i) {
        const auto& e = reg.entries()[i];
        CHECK(e.name == topology_presets()[i].name);
        CHECK(e.value == &topology_presets()[i]);
        CHECK(e.description == topology_presets()[i].description);
    }
    const std::vector<std::string_view> names(reg.names().begin(), reg.names().end());
    CHECK(names == std::vector<std::string_view>{"dgx1-v100",    "dgx-a100",    "aws-p4d",     "dgx-h100",
                                                 "hgx-h200",     "aws-p5",      "aws-p5en",    "pcie-a100",
                                                 "pcie-h100",    "dgx-b200",    "hgx-b300",    "gb200-nvl72",
                                                 "gb300-nvl72",  "mi300x-8",    "aws-p6-b200", "aws-g6e",
                                                 "aws-g6",       "aws-g5",      "aws-g4dn",    "gcp-a4",
                                                 "gcp-g2",       "azure-nd-gb200-v6", "azure-nd-mi300x-v5",
                                                 "pcie-l40s",    "pcie-l4",     "pcie-a10g",   "pcie-rtx4090"});
    REQUIRE(reg.find("aws-p5") != nullptr);
    CHECK((*reg.find("aws-p5"))->name == "aws-p5");
    const std::string msg =
        "unknown topology preset 'dgx-a10'; did you mean 'dgx-a100'? valid: dgx1-v100, dgx-a100, aws-p4d, dgx-h100, "
        "hgx-h200, aws-p5, aws-p5en, pcie-a100, pcie-h100, dgx-b200, hgx-b300, gb200-nvl72, gb300-nvl72, mi300x-8, "
        "aws-p6-b200, aws-g6e, aws-g6, aws-g5, aws-g4dn, gcp-a4, gcp-g2, azure-nd-gb200-v6, azure-nd-mi300x-v5, "
        "pcie-l40s, pcie-l4, pcie-a10g, pcie-rtx4090";
    CHECK(reg.unknown_message("dgx-a10") == msg);
    CHECK_THROWS_WITH_AS(build_topology(preset("dgx-a10", 8)), msg.c_str(), std::invalid_argument);
}

TEST_CASE("gpus beyond what a topology holds are refused, not overflowed") {
    CHECK(build_topology(preset("dgx-a100", max_gpus)).nodes() == max_gpus / 8);
    for (int gpus : {0, -1, max_gpus + 1, 2147483647, -2147483647 - 1}) {
        CAPTURE(gpus);
        CHECK_THROWS_AS(build_topology(preset("dgx-a100", gpus)), std::invalid_argument);
    }
    CHECK_THROWS_WITH_AS(build_topology(preset("dgx-a100", 2147483647)), "gpus must be at most 262144, got 2147483647",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(build_topology(preset("dgx-a100", 0)), "gpus must be at least 1, got 0", std::invalid_argument);
    const NodeDesign design = resolve_node_design(preset("dgx-a100", 8));
    CHECK_THROWS_WITH_AS(build_from_design(design, 2147483647, 1.0, 0), doctest::Contains("at most 262144"),
                         std::invalid_argument);
    const Topology t = build_topology(preset("dgx-a100", 16));
    CHECK(t.with_nodes(max_gpus / 8).gpus() == max_gpus);
    CHECK_THROWS_AS(t.with_nodes(max_gpus / 8 + 1), std::invalid_argument);
    CHECK_THROWS_AS(t.with_nodes(2147483647), std::invalid_argument);
    CHECK_THROWS_AS(t.with_nodes(0), std::invalid_argument);
}

TEST_CASE("leaf counts and oversubscription: huge or non-finite values are refused") {
    TopologySpec s = preset("dgx-a100", 64);
    s.nodes_per_leaf = 2147483647;
    CHECK_THROWS_WITH_AS(build_topology(s), "nodes_per_leaf must be at most 262144, got 2147483647", std::invalid_argument);
    // More nodes per leaf than nodes: one leaf, as before.
    s.nodes_per_leaf = max_gpus;
    s.oversubscription = 2.0;
    CHECK(build_topology(s).leaves() == 1);
    s.nodes_per_leaf = 1;
    s.gpus = max_gpus;
    const Topology t = build_topology(s);
    CHECK(t.leaves() == max_gpus / 8);
    // One node's 8 x 200 Gb/s NICs over an oversubscription of 2.
    CHECK(gbytes(t.leaf_uplink()) == doctest::Approx(100.0));
    s.oversubscription = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH_AS(build_topology(s), "oversubscription must be finite, got inf", std::invalid_argument);
    s.oversubscription = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS(build_topology(s), doctest::Contains("oversubscription must be at least 1"), std::invalid_argument);

    TopologySpec g;
    g.gpu = "h100-sxm5-80gb";
    g.gpus = 16;
    g.inter_node = FabricSpec{Fabric::roce, std::numeric_limits<double>::infinity(), 2.0};
    CHECK_THROWS_WITH_AS(build_topology(g), doctest::Contains("must be finite"), std::invalid_argument);
    g.inter_node = FabricSpec{Fabric::roce, 400.0, std::numeric_limits<double>::infinity()};
    CHECK_THROWS_WITH_AS(build_topology(g), doctest::Contains("must be finite"), std::invalid_argument);
}

TEST_CASE("a default Topology is empty and copies share one graph") {
    const Topology empty;
    CHECK(empty.gpus() == 0);
    CHECK(empty.link_count() == 0);
    const Topology t = build_topology(preset("dgx-a100", 16));
    const Topology copy = t;
    CHECK(copy.link_count() == t.link_count());
    CHECK(&copy.link(0) == &t.link(0));
    CHECK_THROWS_AS(t.link(static_cast<int>(t.link_count())), std::out_of_range);
}
