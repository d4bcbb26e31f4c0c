// Whole-scenario speed: parse nothing, build the models, simulate and price one scenario.
// The million-step case is the README's "simulation speed" figure.
#include <benchmark/benchmark.h>

#include "analysis/plan/plan.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"

#include <string>

namespace {

rentsim::analysis::Scenario scenario(double samples, int gpus, int workers) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 512, "batch_per_gpu": 32, "samples": )" +
                             std::to_string(samples) + R"(},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": )" + std::to_string(gpus) + R"(, "gpus_per_node": 8,
                  "inter_node": {"fabric": "efa", "gbps_per_gpu": 50, "latency_us": 15}},
      "data": {"workers_per_gpu": )" + std::to_string(workers) + R"(, "samples_per_s_per_worker": 14},
      "pricing": {"usd_per_gpu_hour": 3.43}})";
    return rentsim::analysis::parse_scenarios(text, "bench.json").points.at(0);
}

// 1e6 optimizer steps of BERT-large on 16 GPUs, slightly input-bound (8 workers x 14 samples/s
// against about 113 samples/s of compute), so the loader and the GPU settle into a periodic
// state that is fast-forwarded.
void BM_million_steps(benchmark::State& state) {
    const auto s = scenario(32.0 * 16 * 1e6, 16, 8);
    for (auto _ : state) {
        auto r = rentsim::analysis::run_scenario(s);
        benchmark::DoNotOptimize(r);
        state.counters["simulated_steps"] = static_cast<double>(r.simulated_iterations);
        state.counters["steps"] = static_cast<double>(r.iterations);
    }
}
BENCHMARK(BM_million_steps)->Unit(benchmark::kMillisecond);

// One prediction of GPT-3 175B on 1,024 A100s as Megatron-LM's GPT-3 example runs it: tp 8,
// pp 16, dp 8, 1F1B, full recomputation, global batch 1536, micro-batch 1 (the README's
// "prediction speed" figure).
void BM_gpt3_175b_1024_a100(benchmark::State& state) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": 1536, "micro_batch": 1,
                   "parallelism": {"tp": 8, "pp": 16, "dp": 8, "schedule": "1f1b", "recompute": "full"},
                   "tokens": 300000000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 3.43}})";
    const auto s = rentsim::analysis::parse_scenarios(text, "bench.json").points.at(0);
    const auto network = rentsim::analysis::cluster_network(s);
    for (auto _ : state) {
        auto r = state.range(0) ? rentsim::analysis::run_scenario(s) : rentsim::analysis::run_scenario(s, network);
        benchmark::DoNotOptimize(r);
        state.counters["iteration_s"] = r.iteration_s;
    }
}
// Arg 0: on the cluster's network built once; arg 1: building the 1,024-GPU topology too.
BENCHMARK(BM_gpt3_175b_1024_a100)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The layout search for GPT-3 175B on 1,024 A100s ("parallelism": "auto", global batch 1536):
// every candidate layout planned and timed, the network built once (the README's "a 175B
// model on 1,024 GPUs is planned in under 1 s"). Arg 1 runs the chosen layout too.
void BM_auto_layout_gpt3_175b_1024_a100(benchmark::State& state) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": 1536, "parallelism": "auto",
                   "tokens": 300000000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 3.43}})";
    const auto s = rentsim::analysis::parse_scenarios(text, "bench.json").points.at(0);
    const auto network = rentsim::analysis::cluster_network(s);
    for (auto _ : state) {
        if (state.range(0)) {
            auto r = rentsim::analysis::run_scenario(s, network);
            benchmark::DoNotOptimize(r);
            state.counters["iteration_s"] = r.iteration_s;
        } else {
            auto search = rentsim::analysis::search_scenario_layout(s, network);
            benchmark::DoNotOptimize(search);
            state.counters["candidates"] = search.candidates;
            state.counters["evaluated"] = search.evaluated;
            state.counters["step_s"] = search.best ? search.best->eval.step_s : 0.0;
        }
    }
}
BENCHMARK(BM_auto_layout_gpt3_175b_1024_a100)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The scenario compiler on the same scenario: parsing, checking every rule, building the
// 175B model's layers and resolving the GPU, calibration and topology.
void BM_compile_gpt3_175b(benchmark::State& state) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": 1536, "micro_batch": 1,
                   "parallelism": {"tp": 8, "pp": 16, "dp": 8, "schedule": "1f1b", "recompute": "full"},
                   "tokens": 300000000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 3.43}})";
    for (auto _ : state) {
        auto set = rentsim::analysis::parse_scenarios(text, "bench.json");
        benchmark::DoNotOptimize(set);
    }
}
BENCHMARK(BM_compile_gpt3_175b)->Unit(benchmark::kMicrosecond);

// 90 epochs of ResNet-50 on ImageNet, 8 GPUs, read from object storage with a page cache
// that holds a quarter of the dataset: a cold first epoch and warm later ones, each
// fast-forwarded from its own periodic state (56,302 steps).
void BM_storage_pipeline_90_epochs(benchmark::State& state) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256,
                   "dataset_samples": 1281167, "epochs": 90},
      "cluster": {"gpu": "a100-sxm4-40gb", "gpus": 8, "gpus_per_node": 8},
      "data": {"sample_kind": "imagenet-jpeg", "instance": "aws-p4d.24xlarge", "workers_per_gpu": 12,
               "host_ram_gib": 128, "source": {"kind": "object-storage"}},
      "pricing": {"usd_per_gpu_hour": 2.74}})";
    const auto s = rentsim::analysis::parse_scenarios(text, "bench.json").points.at(0);
    for (auto _ : state) {
        auto r = rentsim::analysis::run_scenario(s);
        benchmark::DoNotOptimize(r);
        state.counters["simulated_steps"] = static_cast<double>(r.simulated_iterations);
        state.counters["steps"] = static_cast<double>(r.iterations);
    }
}
BENCHMARK(BM_storage_pipeline_90_epochs)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
