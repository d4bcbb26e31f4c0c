// rentsim fabric: jobs sharing a cluster's fabric at flow level, against hand-computed times.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/studies/fabric.hpp"
#include "models/network/network.hpp"
#include "models/network/topology.hpp"

using namespace rentsim;

namespace {

// Four DGX A100 nodes, two per leaf, 2:1 oversubscribed: each leaf uplink carries
// 2 x 200 GB/s / 2 = 200 GB/s, exactly one node's NICs. Two jobs of two nodes, 1 GiB all-reduces.
analysis::FabricSpec two_jobs(const std::string& placement, const std::string& stream = "") {
    return analysis::parse_fabric(R"({"schema": 1, "name": "f",
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 32, "topology": "dgx-a100", "oversubscription": 2, "nodes_per_leaf": 2},
      "placement": ")" + placement + R"(",
      "jobs": [{"name": "a", "nodes": 2, "op": "all-reduce", "size_mib": 1024)" + stream + R"(},
               {"name": "b", "nodes": 2, "op": "all-reduce", "size_mib": 1024)" + stream + R"(}]})",
                                  "f.json");
}

}  // namespace

TEST_CASE("block placement gives each job the next nodes, interleaved deals them in turn") {
    auto spec = two_jobs("interleaved");
    spec.jobs[0].nodes = 2;
    spec.jobs[1].nodes = 1;
    spec.jobs.push_back(spec.jobs[0]);
    spec.jobs[2].name = "c";
    CHECK(analysis::place_jobs(spec) == std::vector<std::vector<int>>{{0, 3}, {1}, {2, 4}});
    spec.placement = analysis::Placement::block;
    CHECK(analysis::place_jobs(spec) == std::vector<std::vector<int>>{{0, 1}, {2}, {3, 4}});
}

TEST_CASE("two interleaved jobs across a 2:1 spine each get half the uplink: the bandwidth time doubles") {
    const auto spec = two_jobs("interleaved");
    const auto results = analysis::run_fabric(spec);
    REQUIRE(results.size() == 2);
    CHECK(results[0].nodes == std::vector<int>{0, 2});
    CHECK(results[1].nodes == std::vector<int>{1, 3});

    const net::Network network(net::build_topology(spec.cluster.topology));
    std::vector<int> a;
    for (int node : {0, 2})
        for (int g = 0; g < 8; ++g) a.push_back(node * 8 + g);
    const double bytes = 1073741824.0;
    const auto analytic = network.collective(net::Collective::all_reduce, units::bytes(bytes), a, net::Algorithm::ring);
    // Hand computation: the ring is bound by the node's 8 x 25 GB/s of NICs; each rank-link
    // moves 2 (n - 1) / n of the buffer. Shared, each crossing flow gets half an uplink.
    const double bandwidth_time = 2.0 * 15.0 / 16.0 * bytes / (200e9 * network.params().infiniband_efficiency);
    for (const auto& r : results) {
        CAPTURE(r.name);
        CHECK(r.gpus == 16);
        CHECK(r.alone_s == doctest::Approx(analytic.latency.value + bandwidth_time).epsilon(0.02));
        CHECK(r.shared_s == doctest::Approx(analytic.latency.value + 2.0 * bandwidth_time).epsilon(0.02));
        CHECK(r.slowdown == doctest::Approx(r.shared_s / r.alone_s));
        CHECK(r.slowdown > 1.9);
    }
}

TEST_CASE("two jobs each inside its own leaf do not slow each other") {
    for (const auto& r : analysis::run_fabric(two_jobs("block"))) {
        CAPTURE(r.name);
        CHECK(r.slowdown == doctest::Approx(1.0).epsilon(1e-9));
    }
}

TEST_CASE("a stream of collectives alone takes count collectives and the gaps between them") {
    const auto one = analysis::run_fabric(two_jobs("block")).front();
    const auto three = analysis::run_fabric(two_jobs("block", R"(, "count": 3, "gap_ms": 2)")).front();
    // Each start and phase rounds up to the nanosecond: a few nanoseconds apart at most.
    CHECK(three.alone_s == doctest::Approx(3.0 * one.alone_s + 2.0 * 2e-3).epsilon(1e-6));
}

TEST_CASE("a fabric file's errors name the file and the pointer") {
    const auto message = [](const std::string& text) {
        try {
            (void)analysis::parse_fabric(text, "f.json");
        } catch (const analysis::InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string cluster = R"("cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"})";
    CHECK(message(R"({"schema": 1, "name": "f", )" + cluster +
                  R"(, "jobs": [{"name": "a", "nodes": 3, "op": "all-reduce", "size_mib": 1}]})") ==
          "f.json: /jobs/0/nodes: the jobs so far need 3 nodes of 8 GPUs; the cluster has 16 GPUs");
    CHECK(message(R"({"schema": 1, "name": "f", )" + cluster +
                  R"(, "jobs": [{"name": "a", "nodes": 1, "op": "all-reduse", "size_mib": 1}]})")
              .starts_with("f.json: /jobs/0/op: unknown collective 'all-reduse'; did you mean 'all-reduce'?"));
}
