// PPO fine-tuning in the step plan (WorkloadSpec::rl, analysis/plan plan_rollout): the critic's
// copy of the training step, the rollout per step from the generation model and the scoring
// passes, the steps per rollout, and the memory of four models.
#include <doctest/doctest.h>

#include <string>

#include "analysis/plan/plan.hpp"
#include "analysis/scenario/scenario.hpp"
#include "models/compute/generation.hpp"

using namespace rentsim;

namespace {

analysis::Scenario scenario(const std::string& workload_extra) {
    const std::string text = R"({"schema": 1, "name": "ppo",
      "workload": {"model": "gpt3-1.3b", "precision": "bf16", "attention": "flash", "batch_per_gpu": 16, "micro_batch": 4,
                   "dataset_samples": 8192, "epochs": 1)" + workload_extra + R"(},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8, "gpus_per_node": 8, "intra_node": "nvlink"},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
    return analysis::parse_scenarios(text, "p.json").points.at(0);
}

analysis::StepPlan plan(const analysis::Scenario& s) { return analysis::plan_step(s, s.cluster.gpus, analysis::cluster_network(s)); }

const std::string ppo = R"(, "rl": {"algorithm": "ppo", "prompt_tokens": 384, "response_tokens": 640})";

}  // namespace

TEST_CASE("PPO: the policy's step at prompt + response tokens, the critic's copy beside it") {
    const auto rl = scenario(ppo);
    const auto sft = scenario(R"(, "seq_len": 1024)");  // the same step without RL
    CHECK(rl.workload.graph.seq_len == 1024);
    const auto a = plan(rl), b = plan(sft);
    CHECK(a.training.micro_fwd_bwd == 2 * b.training.micro_fwd_bwd);
    CHECK(a.training.last_fwd == 2 * b.training.last_fwd);
    CHECK(a.training.optimizer == 2 * b.training.optimizer);
    REQUIRE(a.training.bucket_bwd.size() == 2 * b.training.bucket_bwd.size());
    for (std::size_t i = 0; i < b.training.bucket_comm.size(); ++i) {
        CHECK(a.training.bucket_comm[i] == b.training.bucket_comm[i]);
        CHECK(a.training.bucket_comm[i + b.training.bucket_comm.size()] == b.training.bucket_comm[i]);
    }
    // Memory: weights of policy, critic, reference and reward model; gradients and optimizer
    // state of the two trained; the larger of activations and the K/V cache.
    CHECK(a.memory.weights.value == doctest::Approx(4 * b.memory.weights.value));
    CHECK(a.memory.gradients.value == doctest::Approx(2 * b.memory.gradients.value));
    CHECK(a.memory.optimizer.value == doctest::Approx(2 * b.memory.optimizer.value));
    CHECK(a.memory.activations.value >= b.memory.activations.value);
    CHECK(a.memory.activations.value >= a.rollout_kv_cache_gib * 1024 * 1024 * 1024 * (1 - 1e-12));
    CHECK(b.training.rollout == 0);
}

TEST_CASE("PPO: the rollout is the generation of each GPU's prompts plus four scoring passes, per PPO epoch") {
    const auto s = scenario(ppo);
    const auto p = plan(s);
    const compute::GpuModel gpu(*s.cluster.gpu, s.cluster.calibration);
    const auto gen = compute::generation_cost(s.workload.graph, gpu, s.workload.precision, 16, 384, 640);
    CHECK(p.rollout_generation_s == doctest::Approx(gen.total().value));
    // Policy (old log-probabilities), critic, reference, reward: one forward each per micro-batch.
    CHECK(p.rollout_scoring_s == doctest::Approx(4 * 4 * p.step.fwd.value));
    CHECK(sim::to_seconds(p.training.rollout) == doctest::Approx(gen.total().value + p.rollout_scoring_s).epsilon(1e-8));
    CHECK(p.iterations == 8192 / 128);
    CHECK(p.rollout_kv_cache_gib == doctest::Approx(gen.kv_cache.value / (1024.0 * 1024 * 1024)));

    // Three PPO epochs: three optimizer steps per rollout, each carrying a third of it.
    const auto three = plan(scenario(R"(, "rl": {"algorithm": "ppo", "prompt_tokens": 384, "response_tokens": 640, "ppo_epochs": 3})"));
    CHECK(three.iterations == 3 * p.iterations);
    CHECK(static_cast<double>(three.training.rollout) == doctest::Approx(static_cast<double>(p.training.rollout) / 3).epsilon(1e-8));

    // Without critic, reference and reward model: the policy's own pass scores, nothing is copied.
    const auto alone = plan(scenario(R"(, "rl": {"algorithm": "ppo", "prompt_tokens": 384, "response_tokens": 640,
                                                 "critic": false, "reference": false, "reward_model": false})"));
    CHECK(alone.rollout_scoring_s == doctest::Approx(4 * alone.step.fwd.value));
    CHECK(alone.training.micro_fwd_bwd == plan(scenario(R"(, "seq_len": 1024)")).training.micro_fwd_bwd);
}
