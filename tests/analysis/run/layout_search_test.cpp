// The layout search of scenarios with "parallelism": "auto" (analysis/run/run.hpp), on the
// planner and the engine: what it chooses, what it refuses, and how it times a candidate.
#include <doctest/doctest.h>

#include <numeric>
#include <regex>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "analysis/plan/plan.hpp"
#include "analysis/run/run.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

namespace {

// Llama 3 70B pretraining on 64 H100 (8 DGX H100 nodes), global batch 512 of 8,192 tokens.
std::string llama(const std::string& parallelism, const std::string& model = "llama3-70b", int gpus = 64) {
    return R"({"schema": 1, "name": "l",
      "workload": {"model": ")" + model + R"(", "precision": "bf16", "global_batch": 512, "seq_len": 8192,
                   "parallelism": )" + parallelism + R"(, "tokens": 1e10},
      "cluster": {"gpu": "h100-sxm5-80gb", "gpus": )" + std::to_string(gpus) + R"(, "topology": "dgx-h100"},
      "pricing": {"usd_per_gpu_hour": 6.88}})";
}

analysis::Scenario scenario(const std::string& text) { return analysis::parse_scenarios(text, "l.json").points.at(0); }

int refused_total(const analysis::LayoutSearchResult& s) {
    return std::accumulate(s.refused.begin(), s.refused.end(), 0, [](int n, const auto& r) { return n + r.second; });
}

}  // namespace

TEST_CASE("Llama 3 70B on 64 H100 with auto chooses a layout that fits, with a runner-up and refusals that add up") {
    const auto s = scenario(llama(R"("auto")"));
    REQUIRE(s.workload.parallelism.search);
    const auto search = analysis::search_scenario_layout(s, analysis::cluster_network(s));
    REQUIRE(search.best);
    REQUIRE(search.runner_up);
    CHECK(search.fitting >= 2);
    CHECK(refused_total(search) + search.fitting == search.candidates);
    CHECK(search.best->eval.step_s <= search.runner_up->eval.step_s);

    const auto r = analysis::run_scenario(s);
    CHECK(r.fits);
    CHECK(r.layout.searched);
    CHECK(r.layout.chosen == analysis::describe(search.best->layout));
    CHECK(r.layout.runner_up == analysis::describe(search.runner_up->layout));
    CHECK(r.layout.candidates == search.candidates);
    CHECK(r.layout.refused == search.refused);
    CHECK(r.tp * r.pp * r.cp * r.dp == 64);
    CHECK(r.global_batch == 512);
    CHECK(r.memory_per_gpu_gib <= 80.0);
    const auto& m = r.memory;
    CHECK(m.params_gib + m.gradients_gib + m.optimizer_gib + m.activations_gib + m.workspace_gib ==
          doctest::Approx(r.memory_per_gpu_gib));
    // The run's step is the search's estimate of it: the critical path is the simulated step.
    CHECK(r.iteration_s == doctest::Approx(search.best->eval.step_s).epsilon(1e-9));
}

TEST_CASE("the cost objective picks the same layout as the time objective or a cheaper one") {
    const auto by_time = analysis::run_scenario(scenario(llama(R"("auto")")));
    const auto s = scenario(llama(R"({"auto": true, "objective": "cost"})"));
    CHECK(s.workload.parallelism.objective == analysis::LayoutObjective::cost);
    const auto by_cost = analysis::run_scenario(s);
    REQUIRE(by_cost.fits);
    CHECK(by_cost.cost_usd <= by_time.cost_usd * (1 + 1e-9));
}

TEST_CASE("a model that fits no layout of 8 GPUs does not fit and the note names a GPU count") {
    const auto r = analysis::run_scenario(scenario(llama(R"("auto")", "llama3.1-405b", 8)));
    CHECK_FALSE(r.fits);
    CHECK(r.layout.searched);
    CHECK(r.layout.chosen.empty());
    CHECK(r.layout.candidates > 0);
    CHECK(r.memory_per_gpu_gib > 80.0);  // the closest misfit's
    CAPTURE(r.note);
    CHECK(std::regex_search(r.note, std::regex("use [0-9]+ GPUs")));
}

namespace {
// The Llama pretraining above with micro-batch 1 and the given `parallelism` value.
std::string llama_mb1(const std::string& parallelism, const std::string& model, int gpus) {
    std::string text = llama(parallelism, model, gpus);
    const std::string batch = R"("global_batch": 512,)";
    text.replace(text.find(batch), batch.size(), batch + R"( "micro_batch": 1,)");
    return text;
}
}  // namespace

TEST_CASE("a written layout that does not fit names the layout the search would run instead") {
    // Llama 3 8B with plain data parallelism on 8 H100: every GPU holds the whole model's
    // weights, gradients and Adam state (16 bytes per parameter, over 110 GiB).
    const auto written = analysis::run_scenario(scenario(llama_mb1(R"({"tp": 1, "pp": 1})", "llama3-8b", 8)));
    REQUIRE_FALSE(written.fits);
    CHECK_FALSE(written.layout.searched);
    CHECK(written.memory_per_gpu_gib > 80.0);
    const auto searched = analysis::run_scenario(scenario(llama_mb1(R"("auto")", "llama3-8b", 8)));
    REQUIRE(searched.fits);
    CHECK(written.note == fmt::format("\"parallelism\": \"auto\" fits {}, {:.1f} GiB", searched.layout.chosen,
                                      searched.memory_per_gpu_gib));
}

TEST_CASE("a written layout of a model that fits no layout of its GPUs names the smallest change") {
    const auto r = analysis::run_scenario(scenario(llama_mb1(R"({"tp": 8, "pp": 1})", "llama3.1-405b", 8)));
    REQUIRE_FALSE(r.fits);
    const auto searched = analysis::run_scenario(scenario(llama_mb1(R"("auto")", "llama3.1-405b", 8)));
    REQUIRE_FALSE(searched.fits);
    CHECK(r.note == "no layout of these GPUs fits: " + searched.note);
    CHECK(std::regex_search(r.note, std::regex("use [0-9]+ GPUs")));
}

TEST_CASE("a written layout that fits has no note") {
    const auto r = analysis::run_scenario(
        scenario(llama_mb1(R"({"tp": 1, "pp": 1, "zero": 3, "recompute": "full"})", "llama3-8b", 8)));
    REQUIRE(r.fits);
    CHECK(r.note.empty());
}

TEST_CASE("auto on ResNet-50 searches data-parallel layouts only") {
    const char* text = R"({"schema": 1, "name": "r",
      "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "parallelism": "auto",
                   "dataset_samples": 1281167, "epochs": 1},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
    const auto r = analysis::run_scenario(scenario(text));
    REQUIRE(r.fits);
    CHECK(r.layout.searched);
    CHECK(r.tp == 1);
    CHECK(r.pp == 1);
    CHECK(r.cp == 1);
    CHECK(r.dp == 16);
    CHECK(r.global_batch == 256 * 16);
    CHECK(256 % r.micro_batch == 0);
    CHECK(!r.layout.runner_up.empty());
}

TEST_CASE("a layout given to the planner plans as the same layout written in the scenario") {
    const auto searched = scenario(llama(R"("auto")"));
    analysis::Layout l;
    l.tp = 4, l.pp = 4, l.virtual_stages = 2, l.cp = 2, l.dp = 2, l.sequence_parallel = true;
    l.recompute = compute::Recompute::selective, l.zero = 1, l.micro_batch = 1;
    auto text = llama(R"({"tp": 4, "pp": 4, "virtual_stages": 2, "cp": 2, "sequence_parallel": true,
                          "recompute": "selective", "zero": 1})");
    text.replace(text.find("\"global_batch\": 512"), 19, "\"global_batch\": 512, \"micro_batch\": 1");
    const auto fixed = scenario(text);
    const auto net = analysis::cluster_network(searched);
    const auto a = analysis::plan_step(searched, 64, net, &l);
    const auto b = analysis::plan_step(fixed, 64, net);
    CHECK(a.tp == b.tp);
    CHECK(a.pp == b.pp);
    CHECK(a.cp == b.cp);
    CHECK(a.dp == b.dp);
    CHECK(a.micro_steps == b.micro_steps);
    CHECK(a.memory_per_gpu_gib == b.memory_per_gpu_gib);
    CHECK(analysis::critical_path_s(a.training) == analysis::critical_path_s(b.training));
    CHECK(searched.workload.parallelism.tp == 1);  // the scenario is not changed
    CHECK(searched.workload.micro_batch == 0);     // the search's variable
}

TEST_CASE("the critical path of a step plan is the simulated steady step without loader workers") {
    const auto s = scenario(llama(R"("auto")"));
    const auto net = analysis::cluster_network(s);
    for (const auto& [tp, pp, v, cp, zero] : {std::tuple{8, 1, 1, 1, 1}, std::tuple{4, 4, 2, 1, 1}, std::tuple{2, 1, 1, 2, 3},
                                             std::tuple{8, 8, 1, 1, 0}, std::tuple{4, 2, 1, 2, 1}}) {
        analysis::Layout l;
        l.tp = tp, l.pp = pp, l.virtual_stages = v, l.cp = cp, l.zero = zero, l.sequence_parallel = true;
        l.dp = 64 / (tp * pp * cp);
        l.recompute = compute::Recompute::selective;
        const auto p = analysis::plan_step(s, 64, net, &l);
        auto few = p.training;
        few.iterations = 8;
        const auto tl = analysis::simulate_training(few, 1);
        const double simulated = static_cast<double>(tl.period_time) / static_cast<double>(tl.period) * 1e-9;
        CAPTURE(analysis::describe(l));
        CHECK(analysis::critical_path_s(p.training) == doctest::Approx(simulated).epsilon(1e-9));
    }
}

TEST_CASE("a sweep point where no layout fits carries the reason and the other points still run") {
    std::string text = llama(R"("auto")", "llama3.1-405b", 8);
    text.replace(text.rfind('}'), 1, R"(, "sweep": {"cluster.gpus": [8, 128]}})");
    const auto results = analysis::run_all(analysis::parse_scenarios(text, "l.json"), 2);
    REQUIRE(results.size() == 2);
    CHECK_FALSE(results[0].fits);
    CHECK(results[0].note.find("GPUs") != std::string::npos);
    CHECK(results[1].fits);
    CHECK(results[1].note.empty());
    CHECK(results[1].layout.searched);
}
