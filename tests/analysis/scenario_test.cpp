#include <doctest/doctest.h>

#include "analysis/input_error.hpp"
#include "analysis/run.hpp"
#include "analysis/scenario.hpp"

using namespace rentsim;

namespace {
const char* base = R"({
  "schema": 1, "name": "t",
  "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "dataset_samples": 1281167, "epochs": 90},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"usd_per_gpu_hour": 2.0},
  "sweep": {"cluster.gpus": [1, 8], "workload.precision": ["fp16", "tf32"]}
})";
}

TEST_CASE("a sweep expands to the cartesian product, first key slowest, in file order") {
    const auto set = analysis::parse_scenarios(base, "t.json");
    REQUIRE(set.points.size() == 4);
    CHECK(set.points[0].point == "cluster.gpus=1 workload.precision=fp16");
    CHECK(set.points[1].point == "cluster.gpus=1 workload.precision=tf32");
    CHECK(set.points[3].point == "cluster.gpus=8 workload.precision=tf32");
    CHECK(set.points[3].cluster.gpus == 8);
    CHECK(set.points[1].workload.precision == compute::Precision::tf32);
    CHECK(set.points[0].workload.samples == doctest::Approx(1281167.0 * 90));
}

TEST_CASE("an error in a swept value points at the sweep entry") {
    std::string text = base;
    text.replace(text.find("[1, 8]"), 6, "[1, 0]");
    try {
        (void)analysis::parse_scenarios(text, "t.json");
        FAIL("no error");
    } catch (const analysis::InputError& e) {
        CHECK(e.where() == "/sweep/cluster.gpus/1");
        CHECK(e.message() == "expected a positive integer, got 0");
    }
}

TEST_CASE("more GPUs of the same kind never slow a data-parallel run, and cost is billed time times price") {
    const auto set = analysis::parse_scenarios(base, "t.json");
    const auto one = analysis::run_scenario(set.points[0]);
    const auto eight = analysis::run_scenario(set.points[2]);
    CHECK(eight.time_to_train_s < one.time_to_train_s);
    CHECK(eight.throughput_samples_per_s > one.throughput_samples_per_s);
    for (const auto& r : {one, eight})
        CHECK(r.cost_usd == doctest::Approx(r.billed_s / 3600.0 * 2.0 * r.gpus));
}

TEST_CASE("the breakdown adds up to the step time") {
    const auto set = analysis::parse_scenarios(base, "t.json");
    const auto r = analysis::run_scenario(set.points[2]);
    CHECK(r.breakdown.compute_s + r.breakdown.exposed_comm_s + r.breakdown.input_stall_s ==
          doctest::Approx(r.iteration_s));
    CHECK(r.iterations == 56'302);  // ceil(1281167 * 90 / (256 * 8)) = ceil(56301.1)
}

TEST_CASE("more inter-node bandwidth never slows a multi-node run") {
    std::string slow = R"({"schema": 1, "name": "n",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 64, "samples": 1e6},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 32, "gpus_per_node": 8,
                  "inter_node": {"fabric": "infiniband", "gbps_per_gpu": 25, "latency_us": 5}},
      "pricing": {"usd_per_gpu_hour": 1.0}})";
    std::string fast = slow;
    fast.replace(fast.find("\"gbps_per_gpu\": 25"), 18, "\"gbps_per_gpu\": 200");
    const auto a = analysis::run_scenario(analysis::parse_scenarios(slow, "s.json").points[0]);
    const auto b = analysis::run_scenario(analysis::parse_scenarios(fast, "f.json").points[0]);
    CHECK(b.time_to_train_s <= a.time_to_train_s);
    CHECK(b.breakdown.exposed_comm_s <= a.breakdown.exposed_comm_s);
}

TEST_CASE("a configuration that does not fit in memory says so") {
    const char* text = R"({"schema": 1, "name": "big",
      "workload": {"model": "gpt3-13b", "precision": "bf16", "batch_per_gpu": 1, "samples": 1000},
      "cluster": {"gpu": "a100-sxm4-40gb", "gpus": 1},
      "pricing": {"usd_per_gpu_hour": 1.0}})";
    const auto r = analysis::run_scenario(analysis::parse_scenarios(text, "b.json").points[0]);
    CHECK_FALSE(r.fits);
    CHECK(r.memory_per_gpu_gib > 40.0 * 4);  // 16 bytes per parameter alone is over 190 GiB
}
