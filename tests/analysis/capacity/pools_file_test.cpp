// The pools file: what it resolves from the catalog, and its errors with their pointers.
#include <doctest/doctest.h>

#include <string>

#include "analysis/capacity/pools_file.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/pricing/catalog.hpp"
#include "tests/readme_section.hpp"

using namespace rentsim;

namespace {

std::string error_of(const std::string& text) {
    try {
        (void)capacity::parse_pools(text, "p.json");
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

const std::string base_pool =
    R"({"name": "base", "provider": "aws", "instance": "p4d.24xlarge", "plan": "reserved_1y_standard_no_upfront", "nodes": 16})";
const std::string burst_pool =
    R"({"name": "burst", "provider": "aws", "instance": "p4d.24xlarge", "plan": "on-demand", "max_nodes": 64})";

}  // namespace

TEST_CASE("a pools file resolves each pool's price, GPU and billing from the catalog") {
    const auto f = capacity::parse_pools(R"({"schema": 1, "name": "n", "pools": [)" + base_pool + ", " + burst_pool +
                                             R"(], "scheduler": "sjf", "autoscaler": {"queue_wait_s": 900, "release": "timeout"}})",
                                         "p.json");
    REQUIRE(f.config.pools.size() == 2);
    const auto& base = f.config.pools[0];
    CHECK(base.kind == capacity::PoolKind::reserved);
    CHECK(base.gpu == "a100-sxm4-40gb");
    CHECK(base.gpus_per_node == 8);
    CHECK(base.nodes == 16);
    CHECK(base.max_nodes == 16);
    const auto* row = price::find_price(price::shipped_catalog(), "aws", "p4d.24xlarge", "reserved_1y_standard_no_upfront");
    REQUIRE(row != nullptr);
    CHECK(base.usd_per_node_hour == row->usd_per_instance_hour());
    const auto& burst = f.config.pools[1];
    CHECK(burst.kind == capacity::PoolKind::on_demand);
    CHECK(burst.nodes == 0);
    CHECK(burst.max_nodes == 64);
    CHECK(burst.billing_increment_s == 1.0);  // AWS: per second, 60 s minimum
    CHECK(burst.minimum_billed_s == 60.0);
    CHECK(burst.startup_s == capacity::default_startup_s);
    CHECK(f.config.scheduler == "sjf");
    CHECK(f.config.autoscaler.queue_wait_s == 900);
    CHECK(f.config.autoscaler.release == capacity::Release::timeout);
}

TEST_CASE("pools file errors name the pointer and what was expected") {
    const std::string head = R"({"schema": 1, "pools": [)";
    CHECK(error_of(R"({"schema": 1, "pools": [)" + base_pool + R"(], "schedular": "fifo"})") ==
          "p.json: /schedular: unknown key 'schedular'; did you mean 'scheduler'? valid keys: schema, name, description, pools, "
          "scheduler, duration_estimate, autoscaler, preemption, trace_gpu, gpu_types, workload_classes, workload_rules, "
          "default_workload_class, utilization_interval_s, seed, search");
    CHECK(error_of(head + R"({"name": "b", "provider": "aws", "instance": "p4d.24xlarge", "plan": "reserved_1y_standard_no_upfront", "nodes": 4, "max_nodes": 8}]})") ==
          "p.json: /pools/0/max_nodes: a reserved pool does not scale: its nodes are billed for the whole replay; put the "
          "burst in an on-demand or spot pool");
    CHECK(error_of(head + R"({"name": "b", "provider": "aws", "instance": "p4d.24xlarge", "plan": "on-demand", "nodes": 4, "max_nodes": 2}]})") ==
          "p.json: /pools/0/max_nodes: expected max_nodes >= nodes (4), got 2");
    CHECK(error_of(head + R"({"name": "b", "provider": "aws", "instance": "p4de.24xlarge", "plan": "spot", "max_nodes": 2}]})") ==
          "p.json: /pools/0: a spot pool needs 'spot' {'mean_time_between_preemptions_h' or 'trace'} to model preemptions");
    CHECK(error_of(head + base_pool + ", " + base_pool + "]}") ==
          "p.json: /pools/1/name: a pool named 'base' comes earlier: names must differ");
    CHECK(error_of(head + base_pool + R"(], "autoscaler": {}})") ==
          "p.json: /autoscaler: the autoscaler has no pool to scale: give an on-demand or spot pool 'max_nodes' above its 'nodes'");
    CHECK(error_of(R"({"schema": 2, "pools": []})") == "p.json: /schema: unsupported schema 2; this rentsim reads schema 1");
    CHECK(error_of(head + R"({"name": "b", "provider": "aws", "instance": "p4d.24xlarge", "plan": "on-demand", "max_nodes": 200000}]})") ==
          "p.json: /pools/0/max_nodes: expected at most 100000 nodes, got 200000");
}

TEST_CASE("README's pools-file ranges are the loader's table") {
    test::check_readme_section("pools-ranges", analysis::ranges_markdown(capacity::pools_number_ranges()),
                               "build/ci/tests/analysis/capacity/capacity_tests --test-case=\"README*\"");
}

TEST_CASE("a spot pool's price history: the zone named or the cheapest, aligned and scaled as asked") {
    // The pools file's folder is the source tree's scenarios/capacity.
    const std::string file = std::string(RENTSIM_SOURCE_DIR) + "/scenarios/capacity/p.json";
    const std::string history = "../traces/spot/training_on_a_dime/aws-spot-price-us-east-1-p3.2xlarge.json";
    const auto error_in = [&](const std::string& text) {
        try {
            (void)capacity::parse_pools(text, file);
        } catch (const analysis::InputError& e) {
            return e.message();
        }
        return std::string("no error");
    };
    const std::string head = R"({"schema": 1, "pools": [{"name": "spot", "provider": "aws", "instance": "p3.2xlarge", "plan": "spot", "max_nodes": 2, "spot": {"trace": "bamboo-p3"}, "spot_price": )";
    auto f = capacity::parse_pools(head + R"({"history": ")" + history + R"(", "zone": "us-east-1d", "offset_s": 86400}}]})", file);
    const capacity::SpotPrice& sp = f.config.pools[0].spot_price;
    REQUIRE(sp.series != nullptr);
    CHECK(sp.series->zone == "us-east-1d");
    CHECK(sp.offset_s == 86400);
    CHECK_FALSE(sp.relative);
    CHECK(sp.mean_usd_per_hour == sp.series->mean(sp.history->span_s));
    // The pool's node over [0, 3600] of the replay pays the history's prices from its day 2.
    const capacity::Pool& pool = f.config.pools[0];
    CHECK(pool.priced_seconds(0, 3600) * pool.usd_per_node_hour ==
          doctest::Approx(sp.series->weighted_seconds(86400, 3600, 1.0)));
    // No zone: the cheapest on average over the history.
    f = capacity::parse_pools(head + R"({"history": ")" + history + R"("}}]})", file);
    const auto& h = *f.config.pools[0].spot_price.history;
    for (const auto& z : h.zones) CHECK(f.config.pools[0].spot_price.mean_usd_per_hour <= z.mean(h.span_s));
    // Another instance's history only when asked for relative scaling.
    const std::string p4de = R"({"schema": 1, "pools": [{"name": "spot", "provider": "aws", "instance": "p4de.24xlarge", "plan": "spot", "max_nodes": 2, "spot": {"trace": "bamboo-p3"}, "spot_price": )";
    f = capacity::parse_pools(p4de + R"({"history": ")" + history + R"(", "relative": true}}]})", file);
    CHECK(f.config.pools[0].spot_price.relative);
    CHECK(error_in(p4de + R"({"history": ")" + history + R"("}}]})") ==
          "the history prices p3.2xlarge, the pool rents p4de.24xlarge; set "
          "\"relative\": true to scale the pool's catalog price by the history's price over its mean");
    CHECK(error_in(head + R"({"history": "no-such-file.json"}}]})") ==
          "cannot open the spot price history " + std::string(RENTSIM_SOURCE_DIR) + "/scenarios/capacity/no-such-file.json");
    CHECK(error_in(head + R"({"history": ")" + history + R"(", "offset_s": -1}}]})") ==
          "expected a number >= 0, got -1");
    // A search over instances keeps an absolute history only on its own instance.
    CHECK(error_in(head + R"({"history": ")" + history + R"("}}], "search": {"instances": ["p3.8xlarge"]}})") ==
          "the spot price history of pool 'spot' prices p3.2xlarge, not p3.8xlarge; set "
          "\"relative\": true to search other instances");
}
