// `cluster.network_model`: the flow level prices the planner's collectives in place of the
// analytic model, each collective alone with the ranks it uses.
#include <doctest/doctest.h>

#include <string>

#include "analysis/plan/plan.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

namespace {

// BERT-large data-parallel on two DGX A100 nodes; `cluster` is spliced into the cluster block.
analysis::Scenario bert(const std::string& cluster, int gpus = 16) {
    const std::string text = R"({"schema": 1, "name": "b",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": )" + std::to_string(gpus) + R"(, "topology": "dgx-a100")" + cluster + R"(},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
    return analysis::parse_scenarios(text, "b.json").points.at(0);
}

// Seconds of gradient communication in one step: every bucket's collective.
double bucket_comm_s(const analysis::Scenario& s) {
    const auto p = analysis::plan_step(s, s.cluster.gpus, analysis::cluster_network(s));
    sim::Time sum = 0;
    for (const auto t : p.training.bucket_comm) sum += t;
    return sim::to_seconds(sum);
}

}  // namespace

TEST_CASE("the network model is analytic unless the scenario asks for flow, and the result names it") {
    CHECK(bert("").cluster.network_model == analysis::NetworkModel::analytic);
    CHECK(bert(R"(, "network_model": "flow")").cluster.network_model == analysis::NetworkModel::flow);
    CHECK(analysis::run_scenario(bert("")).network_model == "analytic");
    CHECK(analysis::run_scenario(bert(R"(, "network_model": "flow")")).network_model == "flow");
}

TEST_CASE("without contention the flow level prices ring gradient buckets as the analytic ring does") {
    // Rings forced: the flow level moves rings, and agrees with the analytic ring alone on a link.
    const auto analytic = bert(R"(, "collective_algorithm": "ring")");
    const auto flow = bert(R"(, "collective_algorithm": "ring", "network_model": "flow")");
    const double a = bucket_comm_s(analytic), f = bucket_comm_s(flow);
    REQUIRE(a > 0);
    CHECK(f == doctest::Approx(a).epsilon(0.02));
    const auto ra = analysis::run_scenario(analytic), rf = analysis::run_scenario(flow);
    CHECK(rf.iteration_s == doctest::Approx(ra.iteration_s).epsilon(0.02));
    CHECK(rf.allreduce_busbw_gbps == doctest::Approx(ra.allreduce_busbw_gbps).epsilon(0.02));
}

TEST_CASE("at flow level more spine bandwidth never slows a run, and a 4:1 spine slows its gradients") {
    for (const int gpus : {16, 32, 64}) {
        CAPTURE(gpus);
        const auto full = bert(R"(, "network_model": "flow", "oversubscription": 1, "nodes_per_leaf": 1)", gpus);
        const auto thin = bert(R"(, "network_model": "flow", "oversubscription": 4, "nodes_per_leaf": 1)", gpus);
        const double full_comm = bucket_comm_s(full), thin_comm = bucket_comm_s(thin);
        CHECK(full_comm <= thin_comm);
        // One node per leaf: every inter-node ring step crosses the spine at a quarter of the NIC rate.
        CHECK(thin_comm > 2.0 * full_comm);
        CHECK(analysis::run_scenario(full).iteration_s <= analysis::run_scenario(thin).iteration_s);
    }
}

TEST_CASE("a tensor- and pipeline-parallel plan prices every kind of collective at flow level") {
    const auto s = analysis::parse_scenarios(R"({"schema": 1, "name": "g",
      "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": 1536, "micro_batch": 1, "samples": 3072000,
                   "parallelism": {"tp": 8, "pp": 16, "recompute": "full"}},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100", "network_model": "flow"},
      "pricing": {"usd_per_gpu_hour": 2.0}})", "g.json").points.at(0);
    const auto flow = analysis::plan_step(s, s.cluster.gpus, analysis::cluster_network(s));
    auto analytic_s = s;
    analytic_s.cluster.network_model = analysis::NetworkModel::analytic;
    const auto analytic = analysis::plan_step(analytic_s, s.cluster.gpus, analysis::cluster_network(s));
    // Tensor-parallel all-reduces inside a node and pipeline sends: rings and pairs, where the
    // two models agree; the micro-batch slot carries them.
    CHECK(static_cast<double>(flow.training.micro_comm) ==
          doctest::Approx(static_cast<double>(analytic.training.micro_comm)).epsilon(0.05));
    for (const auto t : flow.training.bucket_comm) CHECK(t > 0);
}
