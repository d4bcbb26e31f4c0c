// Whole-scenario speed: from compiled scenarios, build the models, simulate and price them
// (one prediction at 1,024 to 262,144 GPUs, a million steps with and without interruptions,
// 100 replications, the layout search, a 1,000-point sweep on 1 and on every hardware
// thread), and validate the whole measurement file. The million-step case is the README's
// "simulation speed" figure. After the benchmarks, the ratios between figures of this same
// run, and to the published speeds of other simulators, are printed under "Ratios measured
// in this run" (tests/bench/ratios.hpp). `make bench` runs it with the engine's benchmarks.
#include <benchmark/benchmark.h>

#include "analysis/plan/plan.hpp"
#include "analysis/run/run.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/simulate/lifecycle.hpp"
#include "analysis/simulate/trainer.hpp"
#include "analysis/studies/validate.hpp"
#include "tests/bench/ratios.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>

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

// GPT-3 175B at 1,024 to 262,144 A100s, grown by data parallelism as Megatron-LM's GPT-3
// example would be: tp 8, pp 16, dp = GPUs / 128, global batch 1.5 per GPU (1536 at 1,024),
// so that every size simulates the same 192 micro-batches per step and any growth of the
// time with the GPU count is overhead, not model. Per-GPU prices, on-demand, per-second
// billing with a 60 s minimum. Whole predictions: the cluster's network is built each time.
rentsim::analysis::Scenario gpt3_175b_on(int gpus) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": )" +
                             std::to_string(gpus / 2 * 3) + R"(, "micro_batch": 1,
                   "parallelism": {"tp": 8, "pp": 16, "dp": )" + std::to_string(gpus / 128) +
                             R"(, "schedule": "1f1b", "recompute": "full"},
                   "tokens": 300000000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": )" + std::to_string(gpus) + R"(, "topology": "dgx-a100"},
      "pricing": {"usd_per_gpu_hour": 3.43, "billing_increment_s": 1, "minimum_billed_s": 60}})";
    return rentsim::analysis::parse_scenarios(text, "bench.json").points.at(0);
}

void BM_gpt3_175b_prediction(benchmark::State& state) {
    const auto s = gpt3_175b_on(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        auto r = rentsim::analysis::run_scenario(s);
        benchmark::DoNotOptimize(r);
        state.counters["iteration_s"] = r.iteration_s;
        state.counters["billed_gpus"] = r.lifecycle.billed_gpus;
    }
}
BENCHMARK(BM_gpt3_175b_prediction)->ArgName("gpus")->Arg(1024)->Arg(4096)->Arg(16384)->Arg(262144)
    ->Unit(benchmark::kMicrosecond);

// 10^6 optimizer steps of BERT-large on two 8-GPU p4de.24xlarge instances at the spot price,
// interrupted by spot preemptions (one per instance every 24 h on average, 30 min wait for
// capacity, AWS's 120 s notice), GPU failures (MTBF 5,000 h per GPU) and checkpoints at the
// Young/Daly interval: about 3.5 days of training with some 8 preemptions, 0.3 failures and
// 780 checkpoints per run. Arg: the CLI's --replications (1 or 100), through the same
// RunOptions.
rentsim::analysis::Scenario interrupted_million_steps() {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 512, "batch_per_gpu": 32,
                   "samples": 512000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "gpus_per_node": 8,
                  "inter_node": {"fabric": "efa", "gbps_per_gpu": 50, "latency_us": 15}},
      "data": {"workers_per_gpu": 8, "samples_per_s_per_worker": 400},
      "pricing": {"provider": "aws", "instance": "p4de.24xlarge", "plan": "spot"},
      "lifecycle": {"provisioning_s": 300, "restart": {"boot_s": 180, "container_s": 120, "nccl_init_s": 30},
                    "checkpoint": {"optimal_interval": true, "write_gb_per_s": 2},
                    "spot": {"mean_time_between_preemptions_h": 24, "capacity_wait_s": 1800},
                    "failures": {"gpu_mtbf_h": 5000}}})";
    return rentsim::analysis::parse_scenarios(text, "bench.json").points.at(0);
}

void BM_million_steps_interrupted(benchmark::State& state) {
    const auto s = interrupted_million_steps();
    rentsim::analysis::RunOptions options;
    options.replications = static_cast<int>(state.range(0));
    for (auto _ : state) {
        auto r = rentsim::analysis::run_scenario(s, options);
        benchmark::DoNotOptimize(r);
        state.counters["steps"] = static_cast<double>(r.iterations);
        state.counters["preemptions"] = r.lifecycle.preemptions;
        state.counters["failures"] = r.lifecycle.failures;
        state.counters["checkpoints"] = r.lifecycle.checkpoints;
    }
}
BENCHMARK(BM_million_steps_interrupted)->ArgName("replications")->Arg(1)->Arg(100)->Unit(benchmark::kMillisecond);

// The lifecycle simulations alone of the 100 replications above (plan built once): the
// engine's events per CPU-second, the unit in which ASTRA-sim states its speed. The events
// differ (here checkpoints, preemptions, failures, restarts; there network chunks), so the
// ratio compares engines, not predictions.
void BM_lifecycle_events(benchmark::State& state) {
    const auto s = interrupted_million_steps();
    auto job = rentsim::analysis::plan_job(s, rentsim::analysis::cluster_network(s));
    // The work is the trainer's whole run, as run_scenario sets it.
    job.lifecycle.work = rentsim::analysis::simulate_training(job.step.training, s.seed).total;
    std::uint64_t events = 0;
    for (auto _ : state) {
        for (std::uint64_t i = 0; i < 100; ++i) {
            const auto o = rentsim::analysis::simulate_lifecycle(job.lifecycle, i + 1);
            events += o.events;
            benchmark::DoNotOptimize(o);
        }
    }
    state.counters["events"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_lifecycle_events)->Unit(benchmark::kMillisecond);

// A 1,000-point sweep (10 GPU counts x 10 loader-worker counts x 10 prices) of BERT-large
// with checkpoints and failures, run as `rentsim sweep -j N` runs it (run_all; parsing and
// writing not included). Arg: threads, 1 or the machine's hardware threads. Wall time.
void BM_sweep_1000_points(benchmark::State& state) {
    const std::string text = R"({"schema": 1, "name": "bench",
      "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 512, "batch_per_gpu": 32,
                   "samples": 51200000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 16, "gpus_per_node": 8,
                  "inter_node": {"fabric": "efa", "gbps_per_gpu": 50, "latency_us": 15}},
      "data": {"workers_per_gpu": 8, "samples_per_s_per_worker": 14},
      "pricing": {"usd_per_gpu_hour": 3.43},
      "lifecycle": {"checkpoint": {"interval_s": 3600, "write_gb_per_s": 2}, "failures": {"gpu_mtbf_h": 50000}},
      "sweep": {"cluster.gpus": [8, 16, 24, 32, 40, 48, 56, 64, 72, 80],
                "data.workers_per_gpu": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                "pricing.usd_per_gpu_hour": [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5]}})";
    const auto set = rentsim::analysis::parse_scenarios(text, "bench.json");
    const int jobs = static_cast<int>(state.range(0));
    for (auto _ : state) {
        auto results = rentsim::analysis::run_all(set, jobs);
        benchmark::DoNotOptimize(results);
        state.counters["points"] = static_cast<double>(results.size());
    }
    state.counters["threads"] = jobs;
}
BENCHMARK(BM_sweep_1000_points)->ArgName("j")->Arg(1)->Arg(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))
    ->UseRealTime()->Unit(benchmark::kMillisecond);

// `rentsim validate` over the whole measurement file: every row predicted and compared.
void BM_validate_measured_csv(benchmark::State& state) {
    for (auto _ : state) {
        auto report = rentsim::analysis::validate_file(RENTSIM_SOURCE_DIR "/models/compute/measurements/measured.csv");
        benchmark::DoNotOptimize(report);
        state.counters["rows"] = static_cast<double>(report.rows.size());
    }
}
BENCHMARK(BM_validate_measured_csv)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    rentsim::bench::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    using rentsim::bench::Ratio;
    const std::string prediction = "BM_gpt3_175b_prediction/gpus:";
    const std::string lifecycle = "BM_million_steps_interrupted/replications:";
    const std::string sweep = "BM_sweep_1000_points/j:";
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::string n = std::to_string(threads);
    // Each line reads "what / baseline = ratio"; the anchors are the issue's published figures:
    // Calculon about 1.1 s per configuration, ASTRA-sim's analytical backends 0.5-3 M events
    // per CPU-second.
    reporter.print_ratios(std::cout, {
        Ratio::of(prediction + "4096", prediction + "1024", "one GPT-3 175B prediction, time at 4,096 / at 1,024 GPUs"),
        Ratio::of(prediction + "16384", prediction + "1024", "one GPT-3 175B prediction, time at 16,384 / at 1,024 GPUs"),
        Ratio::of(prediction + "262144", prediction + "1024", "one GPT-3 175B prediction, time at 262,144 / at 1,024 GPUs"),
        Ratio::of("BM_gpt3_175b_1024_a100/1", "BM_gpt3_175b_1024_a100/0",
                  "the 1,024-GPU prediction, time building its network / on a network built once"),
        Ratio::anchor(prediction + "1024", 1.1, "Calculon's 1.1 s per configuration / one prediction at 1,024 GPUs (times faster)"),
        Ratio::anchor_per("BM_auto_layout_gpt3_175b_1024_a100/0", 1.1, "evaluated",
                          "Calculon's 1.1 s per configuration / the layout search's time per configuration timed (times faster)"),
        Ratio::of("BM_auto_layout_gpt3_175b_1024_a100/1", "BM_auto_layout_gpt3_175b_1024_a100/0",
                  "the layout search, time with the chosen layout's run / without"),
        Ratio::of(lifecycle + "100", lifecycle + "1", "10^6 interrupted steps, time of 100 replications / of 1"),
        Ratio::of(sweep + "1", sweep + n, "1,000-point sweep, wall time at -j1 / at -j" + n + " (speed-up on " + n + " threads)"),
        Ratio::rate_anchor("BM_lifecycle_events", "events", 0.5e6,
                           "lifecycle events per CPU-second / ASTRA-sim analytical's 0.5 M (its low end)"),
        Ratio::rate_anchor("BM_lifecycle_events", "events", 3e6,
                           "lifecycle events per CPU-second / ASTRA-sim analytical's 3 M (its high end)"),
    });
    benchmark::Shutdown();
    return 0;
}
