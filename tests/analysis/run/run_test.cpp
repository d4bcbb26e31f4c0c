#include <doctest/doctest.h>

#include "analysis/plan/plan.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

namespace {
const char* base = R"({
  "schema": 1, "name": "t",
  "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "dataset_samples": 1281167, "epochs": 90},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"usd_per_gpu_hour": 2.0},
  "sweep": {"cluster.gpus": [1, 8], "workload.precision": ["fp16", "tf32"]}
})";
const char* bert = R"({
  "schema": 1, "name": "b",
  "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1000000},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"usd_per_gpu_hour": 2.0}
})";
}  // namespace

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

namespace {
analysis::Result run_gpt(const std::string& parallelism, int gpus = 16) {
    const std::string text = R"({"schema": 1, "name": "p",
      "workload": {"model": "gpt3-1.3b", "precision": "bf16", "global_batch": 64, "micro_batch": 1,
                   "parallelism": )" + parallelism + R"(, "tokens": 1000000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": )" + std::to_string(gpus) + R"(, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
    return analysis::run_scenario(analysis::parse_scenarios(text, "p.json").points.at(0));
}
}  // namespace

TEST_CASE("GPipe and 1F1B take the same time but GPipe stashes every micro-batch") {
    const auto one = run_gpt(R"({"tp": 2, "pp": 4, "schedule": "1f1b"})");
    const auto gpipe = run_gpt(R"({"tp": 2, "pp": 4, "schedule": "gpipe"})");
    CHECK(one.tp == 2);
    CHECK(one.pp == 4);
    CHECK(one.dp == 2);
    CHECK(one.micro_steps == 32);
    CHECK(gpipe.iteration_s == doctest::Approx(one.iteration_s));
    CHECK(gpipe.memory_per_gpu_gib > one.memory_per_gpu_gib);
    // Bubble: (pp - 1) / m of the micro-batch slots.
    CHECK(one.breakdown.pipeline_bubble_s / (one.iteration_s - one.breakdown.pipeline_bubble_s) ==
          doctest::Approx(3.0 / 32).epsilon(0.05));
    const double sum = one.breakdown.compute_s + one.breakdown.exposed_comm_s + one.breakdown.input_stall_s +
                       one.breakdown.pipeline_bubble_s;
    CHECK(sum == doctest::Approx(one.iteration_s));
}

TEST_CASE("interleaved stages divide the pipeline bubble") {
    const auto plain = run_gpt(R"({"tp": 2, "pp": 4})");
    const auto interleaved = run_gpt(R"({"tp": 2, "pp": 4, "virtual_stages": 2})");
    const double ratio = interleaved.breakdown.pipeline_bubble_s / plain.breakdown.pipeline_bubble_s;
    CHECK(ratio > 0.45);
    CHECK(ratio < 0.6);
    CHECK(interleaved.memory_per_gpu_gib > plain.memory_per_gpu_gib);
}

TEST_CASE("tensor-parallel collectives are exposed communication and sequence parallelism saves memory") {
    const auto tp = run_gpt(R"({"tp": 8})", 8);
    const auto sp = run_gpt(R"({"tp": 8, "sequence_parallel": true})", 8);
    CHECK(tp.dp == 1);
    CHECK(tp.breakdown.exposed_comm_s > 0);
    CHECK(sp.memory_per_gpu_gib < tp.memory_per_gpu_gib);
    CHECK(tp.hardware_tflops_per_gpu == doctest::Approx(tp.tflops_per_gpu));
    const auto full = run_gpt(R"({"tp": 8, "recompute": "full"})", 8);
    CHECK(full.hardware_tflops_per_gpu > full.tflops_per_gpu);
    CHECK(full.memory_per_gpu_gib < tp.memory_per_gpu_gib);
}

TEST_CASE("ZeRO shards memory and the ZeRO-1/2 parameter gather after the optimizer is exposed") {
    const auto z0 = run_gpt(R"({"zero": 0})");
    const auto z1 = run_gpt(R"({"zero": 1})");
    const auto z2 = run_gpt(R"({"zero": 2})");
    const auto z3 = run_gpt(R"({"zero": 3})");
    CHECK(z1.memory_per_gpu_gib < z0.memory_per_gpu_gib);
    CHECK(z2.memory_per_gpu_gib < z1.memory_per_gpu_gib);
    CHECK(z3.memory_per_gpu_gib < z2.memory_per_gpu_gib);
    CHECK(z1.breakdown.exposed_comm_s > z0.breakdown.exposed_comm_s);
    // ZeRO-3 gathers for forward behind the forward compute and for backward behind it.
    CHECK(z3.breakdown.exposed_comm_s < z2.breakdown.exposed_comm_s);
}

TEST_CASE("a pricing instance with only a GPU count describes the cluster") {
    std::string text = bert;
    text.replace(text.find(R"({"gpu": "a100-sxm4-80gb", "gpus": 8})"), 36, R"({"gpus": 16})");
    text.replace(text.find(R"({"usd_per_gpu_hour": 2.0})"), 25, R"({"provider": "aws", "instance": "p5.48xlarge"})");
    const auto s = analysis::parse_scenarios(text, "t.json").points.at(0);
    CHECK(s.cluster.gpu->name == "h100-sxm5-80gb");
    CHECK(s.cluster.topology.preset == "aws-p5");
    CHECK(s.pricing.gpus_per_instance == 8);
    const auto r = analysis::run_scenario(s);
    CHECK(r.fits);
    CHECK(r.from_instance == s.cluster.from_instance);
}

TEST_CASE("a run longer than the simulated clock's budget is refused with its estimate") {
    const auto s = analysis::parse_scenarios(R"({"schema": 1, "name": "long",
      "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "samples": 1e15},
      "cluster": {"gpu": "v100-sxm2-16gb", "gpus": 1, "gpus_per_node": 1},
      "pricing": {"usd_per_gpu_hour": 2.0}})", "long.json").points.at(0);
    try {
        (void)analysis::run_scenario(s);
        FAIL("not refused");
    } catch (const analysis::BudgetError& e) {
        const std::string what = e.what();
        CHECK(what.starts_with("long.json: training 3906250000000 steps at 1 GPUs takes at least "));
        CHECK(what.ends_with(" years; rentsim simulates runs of up to 100 years: train fewer samples"));
    }
}

TEST_CASE("a lifecycle that would draw more interruptions than the budget is refused up front") {
    const auto s = analysis::parse_scenarios(R"({"schema": 1, "name": "flaky",
      "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "samples": 1e13},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 2.0},
      "lifecycle": {"failures": {"gpu_mtbf_h": 1}}})", "flaky.json").points.at(0);
    try {
        (void)analysis::run_scenario(s);
        FAIL("not refused");
    } catch (const analysis::BudgetError& e) {
        CHECK(std::string(e.what()).find("interruptions (preemptions and failures up to the give-up horizon)") !=
              std::string::npos);
    }
}

namespace {
std::string resnet_fp32(const std::string& gpu, const std::string& extra) {
    return R"({"schema": 1, "name": "r", "workload": {"model": "resnet50", "precision": ")" + extra +
           R"(, "batch_per_gpu": 128, "samples": 128000}, "cluster": {"gpu": ")" + gpu +
           R"(", "gpus": 1}, "pricing": {"usd_per_gpu_hour": 1}})";
}
double fp32_rate(const std::string& gpu, const std::string& extra = "fp32\"") {
    return analysis::run_scenario(analysis::parse_scenarios(resnet_fp32(gpu, extra), "r.json").points.at(0))
        .throughput_samples_per_s;
}
}  // namespace

TEST_CASE("V100 has no TF32 units and refuses tf32, naming the precisions it has") {
    try {
        (void)analysis::parse_scenarios(resnet_fp32("v100-sxm2-16gb", "tf32\""), "r.json");
        FAIL("accepted");
    } catch (const analysis::InputError& e) {
        CHECK(e.message() == "GPU 'v100-sxm2-16gb' has no tf32 support; valid: fp32, fp16");
    }
}

// With TF32 switched off the A100 comes out 14% slower than the V100, not faster: the
// A100 family's fitted memory efficiency (0.49) absorbs what its heterogeneous rows disagree
// on (README, "Validation"). That is a known weakness, not asserted here.
TEST_CASE("fp32 ResNet-50 on an A100 is faster than on a V100 with PyTorch's TF32 convolutions") {
    const double v100 = fp32_rate("v100-sxm2-16gb");
    // PyTorch's default: cuDNN runs fp32 convolutions on TF32 tensor cores on Ampere.
    CHECK(fp32_rate("a100-sxm4-40gb") > v100);
    CHECK(fp32_rate("a100-sxm4-40gb") > fp32_rate("a100-sxm4-40gb", R"(fp32", "tf32": false)"));
}

TEST_CASE("MFU of an fp32 run counts the FLOPs that run on TF32 tensor cores at the TF32 peak") {
    const auto result = [](const std::string& extra) {
        const auto s = analysis::parse_scenarios(resnet_fp32("a100-sxm4-80gb", extra), "r.json").points.at(0);
        return std::pair{analysis::run_scenario(s), analysis::plan_step(s, 1, analysis::cluster_network(s))};
    };
    // A100: fp32 19.5, TF32 156 TFLOP/s dense (the catalog).
    const auto [on, on_plan] = result("fp32\"");
    const double share = on_plan.step.tf32_flops_share;
    // PyTorch's default runs the convolutions on TF32; the classifier's GEMM and the streaming
    // ops' FLOPs stay fp32.
    CHECK(share > 0.98);
    CHECK(share < 1.0);
    CHECK(on.mfu == doctest::Approx(on.tflops_per_gpu * ((1 - share) / 19.5 + share / 156.0)));
    CHECK(on.mfu < 1.0);
    CHECK(on.tflops_per_gpu / 19.5 > 1.0);  // against the fp32 peak alone: over 1
    // With TF32 off every FLOP runs at the fp32 peak.
    const auto [off, off_plan] = result(R"(fp32", "tf32": false)");
    CHECK(off_plan.step.tf32_flops_share == 0.0);
    CHECK(off.mfu == doctest::Approx(off.tflops_per_gpu / 19.5));
}

TEST_CASE("held-out evaluations add their forward passes to the time to train, and are billed") {
    std::string text = R"({"schema": 1, "name": "e",
      "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "dataset_samples": 1281167, "epochs": 90},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
    const auto plain = analysis::parse_scenarios(text, "e.json").points[0];
    const std::string epochs = R"("epochs": 90)";
    text.replace(text.find(epochs), epochs.size(), R"("epochs": 90, "evaluation": {"every_epochs": 1, "samples": 50000})");
    const auto evaluated = analysis::parse_scenarios(text, "e.json").points[0];
    CHECK(evaluated.workload.evaluation.every_samples == 1281167.0);
    const auto a = analysis::run_scenario(plain);
    const auto b = analysis::run_scenario(evaluated);
    CHECK(a.evaluations == 0);
    CHECK(a.evaluation_s == 0.0);
    // 90 evaluations, each ceil(50,000 / (8 GPUs x 256)) = 25 forward passes of a micro-batch.
    const auto p = analysis::plan_step(evaluated, 8, analysis::cluster_network(evaluated));
    CHECK(b.evaluations == 90);
    CHECK(b.evaluation_s == doctest::Approx(90 * 25 * p.step.fwd.value));
    CHECK(b.time_to_train_s - a.time_to_train_s == doctest::Approx(b.evaluation_s).epsilon(1e-6));
    CHECK(b.iteration_s == a.iteration_s);
    CHECK(b.throughput_samples_per_s == a.throughput_samples_per_s);
    CHECK(b.cost_usd == doctest::Approx(b.billed_s / 3600.0 * 2.0 * 8));
    CHECK(b.cost_usd > a.cost_usd);
}

TEST_CASE("an evaluation is pipelined through the stages: pp - 1 micro-batches of fill") {
    const char* text = R"({"schema": 1, "name": "p",
      "workload": {"model": "gpt", "layers": 8, "hidden": 1024, "heads": 16, "seq_len": 1024, "vocab": 32000,
                   "precision": "bf16", "global_batch": 64, "micro_batch": 2, "samples": 6400,
                   "parallelism": {"tp": 1, "pp": 2},
                   "evaluation": {"every_samples": 3200, "samples": 100}},
      "cluster": {"gpu": "h100-sxm5-80gb", "gpus": 8},
      "pricing": {"usd_per_gpu_hour": 2.0}})";
    const auto s = analysis::parse_scenarios(text, "p.json").points[0];
    const auto r = analysis::run_scenario(s);
    const auto p = analysis::plan_step(s, 8, analysis::cluster_network(s));
    REQUIRE(p.dp == 4);
    // 2 evaluations; ceil(100 / (4 replicas x 2)) = 13 micro-batches, plus 1 of fill, each
    // the forward of one of 2 stages.
    CHECK(r.evaluations == 2);
    CHECK(r.evaluation_s == doctest::Approx(2 * (13 + 1) * p.step.fwd.value / 2));
}

TEST_CASE("reducing fp32 gradients moves twice the bytes of 16-bit ones and never speeds a run") {
    std::string text = R"({"schema": 1, "name": "g",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1e6,
                   "grad_reduce": "param"},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "gpus_per_node": 8,
                  "inter_node": {"fabric": "infiniband", "gbps_per_gpu": 25, "latency_us": 5}},
      "pricing": {"usd_per_gpu_hour": 1.0}})";
    const auto half = analysis::run_scenario(analysis::parse_scenarios(text, "g.json").points[0]);
    text.replace(text.find(R"("param")"), 7, R"("fp32")");
    const auto full = analysis::run_scenario(analysis::parse_scenarios(text, "g.json").points[0]);
    CHECK(full.time_to_train_s >= half.time_to_train_s);
    CHECK(full.breakdown.exposed_comm_s > half.breakdown.exposed_comm_s);
}
