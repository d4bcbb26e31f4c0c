// The storage-backed input pipeline: trainer timelines computed by hand, and the shipped
// input-pipeline scenarios checked against hand-computed bounds.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/simulate/trainer.hpp"
#include "sim/link.hpp"

using namespace rentsim;
using analysis::TrainingPlan;
using analysis::simulate_training;

namespace {
constexpr sim::Time ms = 1'000'000;

// A 10 ms step without communication, fed by storage-backed workers.
TrainingPlan fed(std::int64_t iterations, int workers) {
    TrainingPlan p;
    p.iterations = iterations;
    p.last_fwd = 3 * ms;
    p.bucket_bwd = {2 * ms, 2 * ms, 2 * ms};
    p.bucket_comm = {0, 0, 0};
    p.optimizer = 1 * ms;
    p.workers = workers;
    p.batch_build = 1 * ms;
    p.stages.enabled = true;
    p.stages.source_bytes_per_s = 1e9;
    p.stages.source_slots = workers;
    p.stages.cpu_cores = workers;
    return p;
}

double steady_ms(const analysis::Timeline& t) { return static_cast<double>(t.iteration) / ms; }

analysis::Result run_point(const std::string& file, std::size_t point) {
    const auto set = analysis::load_scenarios(std::string(RENTSIM_SOURCE_DIR) + "/scenarios/" + file);
    return analysis::run_scenario(set.points.at(point));
}
}  // namespace

TEST_CASE("workers sharing a source's bandwidth deliver batches at its rate") {
    // 50 MB per batch over 1 GB/s: at best one batch every 50 ms however many workers share
    // it; the GPU then waits 40 ms of each step. The 1 ms decodes overlap other workers'
    // reads, except when in-order delivery leaves a single worker reading (0.5% here).
    auto p = fed(200, 4);
    p.stages.cold_bytes = p.stages.warm_bytes = 50e6;
    const auto t = simulate_training(p, 1);
    CHECK(steady_ms(t) >= 50.0);
    CHECK(steady_ms(t) <= 50.0 * 1.01);
    CHECK(static_cast<double>(t.input_stall) / ms == doctest::Approx(steady_ms(t) - 10.0));
}

TEST_CASE("a worker pays its requests' latency in series with its decode") {
    // One worker: 30 ms of request latency, a negligible transfer, 1 ms decode: 31 ms a batch.
    auto p = fed(100, 1);
    p.stages.cold_bytes = p.stages.warm_bytes = 1000;
    p.stages.cold_latency = p.stages.warm_latency = 30 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(steady_ms(t) == doctest::Approx(31.0).epsilon(0.001));
}

TEST_CASE("the source's concurrency limit serialises requests across workers") {
    // Four workers, one request slot of 30 ms: one batch every 30 ms.
    auto p = fed(100, 4);
    p.stages.source_slots = 1;
    p.stages.cold_bytes = p.stages.warm_bytes = 1000;
    p.stages.cold_latency = p.stages.warm_latency = 30 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(steady_ms(t) == doctest::Approx(30.0).epsilon(0.001));
}

TEST_CASE("more workers than CPU cores share the cores") {
    // Eight workers on two cores, 40 ms of CPU per batch: two batches per 40 ms.
    auto p = fed(100, 8);
    p.stages.cpu_cores = 2;
    p.batch_build = 40 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(steady_ms(t) == doctest::Approx(20.0).epsilon(0.001));
}

TEST_CASE("the host-to-device copy follows the decode") {
    // One worker: 20 ms decode, then 31.5 MB over 31.5 GB/s of PCIe (1 ms): 21 ms a batch.
    auto p = fed(100, 1);
    p.batch_build = 20 * ms;
    p.stages.h2d_bytes = 31.5e6;
    p.stages.h2d_bytes_per_s = 31.5e9;
    const auto t = simulate_training(p, 1);
    CHECK(steady_ms(t) == doctest::Approx(21.0).epsilon(0.001));
}

TEST_CASE("later epochs read from the page cache, and each regime is fast-forwarded exactly") {
    // 500 batches per epoch. Cold: 50 MB per batch at 1 GB/s, 50 ms per step. Warm: all
    // hits, the 10 ms step is compute-bound.
    auto p = fed(1500, 4);
    p.epoch_batches = 500;
    p.stages.cold_bytes = 50e6;
    p.stages.warm_bytes = 0;
    const auto t = simulate_training(p, 1);
    REQUIRE(t.epochs.size() == 3);
    CHECK(static_cast<double>(t.epochs[0].time) / 1e9 == doctest::Approx(25.0).epsilon(0.01));
    CHECK(static_cast<double>(t.epochs[1].time) / 1e9 == doctest::Approx(5.0).epsilon(0.01));
    CHECK(static_cast<double>(t.epochs[2].time) / 1e9 == doctest::Approx(5.0).epsilon(0.01));
    CHECK(t.epochs[2].input_stall == 0);
    CHECK(t.simulated_iterations < 200);
    // Simulating every step gives the same times, stalls and epochs.
    auto slow = p;
    slow.fast_forward = false;
    const auto full = simulate_training(slow, 1);
    CHECK(full.simulated_iterations == 1500);
    CHECK(full.total == t.total);
    CHECK(full.total_input_stall == t.total_input_stall);
    for (std::size_t e = 0; e < 3; ++e) {
        CHECK(full.epochs[e].time == t.epochs[e].time);
        CHECK(full.epochs[e].input_stall == t.epochs[e].input_stall);
    }
}

TEST_CASE("the legacy worker model is unchanged by the epoch bookkeeping and its fast-forward is exact") {
    auto p = fed(3000, 3);
    p.stages = {};
    p.batch_build = 29 * ms;
    p.epoch_batches = 1000;
    const auto t = simulate_training(p, 1);
    auto slow = p;
    slow.fast_forward = false;
    const auto full = simulate_training(slow, 1);
    CHECK(t.simulated_iterations < 100);
    CHECK(full.total == t.total);
    REQUIRE(t.epochs.size() == 3);
    for (std::size_t e = 0; e < 3; ++e) CHECK(full.epochs[e].time == t.epochs[e].time);
}

TEST_CASE("ResNet-50 throughput rises with loader workers until the job is compute-bound") {
    // Steady state reads from the page cache (ImageNet fits 80% of 1152 GiB), so one worker
    // delivers 1 / (2 x 1.3004 ms) = 384.5 images/s: W workers feed at most 8 x 384.5 x W.
    const auto set = analysis::load_scenarios(std::string(RENTSIM_SOURCE_DIR) +
                                              "/scenarios/resnet50-input-bound-workers.json");
    double last = 0;
    for (const auto& s : set.points) {
        const auto r = analysis::run_scenario(s);
        const int w = s.data.workers_per_gpu;
        const double bound = 8 * 384.5 * std::min(w, 12);  // 96 vCPUs / 8 GPUs = 12 cores per GPU
        const double compute = 8 * r.input.compute_samples_per_s;
        CHECK(r.throughput_samples_per_s <= std::min(bound, compute) * 1.001);
        CHECK(r.throughput_samples_per_s >= std::min(bound, compute) * 0.98);
        CHECK(r.throughput_samples_per_s >= last);
        last = r.throughput_samples_per_s;
        // Hand computation of the analytic lower bound: ceil(compute rate per GPU x 2.6008 ms
        // per sample per worker) = ceil(1560.0 x 2.6008e-3) = ceil(4.06) = 5. The simulation
        // also pays 0.1 ms per NVMe read in the first epoch and in-order delivery, which can
        // take one more; here the 0.94 of a worker to spare covers them.
        const int analytic = static_cast<int>(std::ceil(r.input.compute_samples_per_s * 2.6008e-3));
        CHECK(analytic == 5);
        CHECK(r.input.workers_to_compute_bound >= analytic);
        CHECK(r.input.workers_to_compute_bound <= analytic + 1);
        CHECK(r.input.workers_to_compute_bound == 5);
        CHECK(r.input.bound_by == (w < r.input.workers_to_compute_bound ? analysis::InputBound::cpu_workers
                                                                         : analysis::InputBound::compute));
    }
    // The bisection's answer is what the simulation says: with that many workers the run
    // waits less than 2% of the time, with one fewer it does not.
    const std::string file = std::string(RENTSIM_SOURCE_DIR) + "/scenarios/resnet50-input-bound-workers.json";
    const auto with_workers = [&](int w) {
        return analysis::run_scenario(
            analysis::load_scenarios(file, {{"data.workers_per_gpu", std::int64_t{w}}}).points.front());
    };
    const int need = analysis::run_scenario(set.points.front()).input.workers_to_compute_bound;
    const auto at = with_workers(need);
    const auto below = with_workers(need - 1);
    CHECK(at.input.stall_fraction < 0.02);
    CHECK(below.input.stall_fraction >= 0.02);
    // Later epochs read from the page cache: compute-bound with the analytic count, and with
    // one worker fewer (1,538 of 1,560.0 images/s) short by about the difference.
    const int analytic = static_cast<int>(std::ceil(at.input.compute_samples_per_s * 2.6008e-3));
    CHECK(with_workers(analytic).epochs.back().stall_fraction < 0.01);
    CHECK(with_workers(analytic - 1).epochs.back().stall_fraction > 0.003);
}

TEST_CASE("with workers alone the worker count is analytic: compute rate over one worker's rate") {
    const std::string text = R"({"schema": 1, "name": "w",
      "workload": {"model": "resnet50", "framework": "nvidia-dle", "precision": "fp16", "batch_per_gpu": 256, "samples": 2048000},
      "cluster": {"gpu": "a100-sxm4-40gb", "gpus": 8, "gpus_per_node": 8},
      "data": {"workers_per_gpu": 2, "samples_per_s_per_worker": 300},
      "pricing": {"usd_per_gpu_hour": 2.74}})";
    const auto s = analysis::parse_scenarios(text, "w.json").points.at(0);
    const auto r = analysis::run_scenario(s);
    const auto with_workers = [&](int w) {
        return analysis::run_scenario(
            analysis::parse_scenarios(text, "w.json", {{"data.workers_per_gpu", std::int64_t{w}}}).points.at(0));
    };
    // ceil(1560.0 / 300) = 6 workers; two deliver 600 samples/s per GPU.
    CHECK(r.input.workers_to_compute_bound == static_cast<int>(std::ceil(r.input.compute_samples_per_s / 300)));
    CHECK(r.input.workers_to_compute_bound == 6);
    CHECK(r.input.bound_by == analysis::InputBound::cpu_workers);
    CHECK(r.throughput_samples_per_s == doctest::Approx(8 * 600.0).epsilon(0.01));
    CHECK(with_workers(6).input.stall_fraction < 0.02);
    // Five deliver 1,500 of 1,560.0 samples/s: the GPUs wait about 4% of the time.
    CHECK(with_workers(5).input.stall_fraction > 0.02);
    CHECK(with_workers(4).input.stall_fraction > 0.05);
}

TEST_CASE("a dataset that fits in RAM makes later epochs faster than one that does not") {
    const auto fits = run_point("resnet50-page-cache.json", 0);
    const auto larger = run_point("resnet50-page-cache.json", 1);
    REQUIRE(fits.epochs.size() == 3);
    REQUIRE(larger.epochs.size() == 3);
    // First epoch: 8 request slots per GPU of 30 ms each, 266.7 images/s per GPU:
    // 160,146 images per GPU take at least 600.5 s.
    const double per_gpu = std::ceil(1281167.0 / (8 * 256)) * 256;
    CHECK(fits.epochs[0].time_s >= per_gpu / (8 / 0.030));
    CHECK(fits.epochs[0].time_s <= per_gpu / (8 / 0.030) * 1.03);
    CHECK(fits.epochs[1].time_s < fits.epochs[0].time_s / 5);
    CHECK(fits.epochs[2].stall_fraction < 0.01);
    // 128 GiB: the cache holds 0.8 x 128 GiB of 147.9 GB, misses cost 30 ms in the slots.
    const double miss = 1 - 0.8 * 128 * 1073741824.0 / 147897477120.0;
    const double warm = per_gpu / (8 / (0.030 * miss));
    CHECK(larger.epochs[1].time_s == doctest::Approx(warm).epsilon(0.02));
    CHECK(larger.epochs[1].time_s > fits.epochs[1].time_s);
    CHECK(larger.input.bound_by == analysis::InputBound::storage);
}

TEST_CASE("staging on NVMe is billed up front, and streaming pays at the ingress link") {
    const auto stream = run_point("resnet50-stream-vs-stage.json", 0);
    const auto staged = run_point("resnet50-stream-vs-stage.json", 1);
    const auto stream_small = run_point("resnet50-stream-vs-stage.json", 2);
    const auto staged_small = run_point("resnet50-stream-vs-stage.json", 3);
    // 147.9 GB over 5 Gb/s plus one 30 ms request.
    const double copy = 147897477120.0 / 0.625e9 + 0.030;
    CHECK(stream.staging_s == 0);
    CHECK(staged.staging_s == doctest::Approx(copy).epsilon(1e-6));
    CHECK(staged.billed_s >= staged.time_to_train_s);
    CHECK(staged.time_to_train_s > staged.staging_s + staged.epochs[0].time_s);
    // Streaming's first epoch moves the dataset through the same link: at least as long as the copy.
    CHECK(stream.epochs[0].time_s >= copy - 0.1);
    CHECK(stream.input.bound_by == analysis::InputBound::ingress);
    // Cached after one epoch, streaming wins; with a 16 GiB cache every epoch streams and staging wins.
    CHECK(stream.time_to_train_s < staged.time_to_train_s);
    CHECK(stream.cost_usd < staged.cost_usd);
    CHECK(staged_small.time_to_train_s < stream_small.time_to_train_s);
    CHECK(staged_small.cost_usd < stream_small.cost_usd);
    // Warm epochs with a 16 GiB cache: 8.9% hits, the rest at 5 Gb/s / 8 GPUs per GPU.
    const double miss = 1 - 0.8 * 16 * 1073741824.0 / 147897477120.0;
    const double per_gpu = std::ceil(1281167.0 / (8 * 256)) * 256;
    const double warm = per_gpu * miss * 147897477120.0 / 1281167.0 / (0.625e9 / 8);
    CHECK(stream_small.epochs[1].time_s == doctest::Approx(warm).epsilon(0.005));
}

TEST_CASE("GPU decode moves decode time to the GPU step") {
    const std::string file = std::string(RENTSIM_SOURCE_DIR) + "/scenarios/resnet50-input-bound-workers.json";
    const auto cpu = analysis::run_scenario(analysis::load_scenarios(file).points.front());
    const auto gpu = analysis::run_scenario(analysis::load_scenarios(file, {{"data.gpu_decode", true}}).points.front());
    // 256 images at 7,830.85 images/s: 32.7 ms more GPU work per step; the CPU is no longer the bound.
    CHECK(gpu.breakdown.compute_s - cpu.breakdown.compute_s == doctest::Approx(256 / 7830.853563).epsilon(1e-3));
    CHECK(gpu.input.bound_by == analysis::InputBound::compute);
    CHECK(gpu.throughput_samples_per_s > cpu.throughput_samples_per_s);
}

TEST_CASE("the cold epoch's in-place fast-forward is exact with gradient accumulation and shared cores") {
    // Three workers on two cores, two micro-batches per step, a cold epoch that leaves 40% of
    // each batch to the source in later epochs; the epoch ends mid-step (1001 batches).
    auto p = fed(2000, 3);
    p.micro_steps = 2;
    p.micro_fwd_bwd = 4 * ms;
    p.batch_build = 7 * ms;
    p.epoch_batches = 1001;
    p.stages.cpu_cores = 2;
    p.stages.source_slots = 2;
    p.stages.cold_bytes = 12e6;
    p.stages.warm_bytes = 4.8e6;
    p.stages.cold_latency = 3 * ms;
    p.stages.warm_latency = 1200000;
    p.stages.h2d_bytes = 1e6;
    p.stages.h2d_bytes_per_s = 0.5e9;
    const auto fast = simulate_training(p, 1);
    auto slow = p;
    slow.fast_forward = false;
    const auto full = simulate_training(slow, 1);
    CHECK(fast.simulated_iterations < full.simulated_iterations / 4);
    CHECK(fast.total == full.total);
    CHECK(fast.total_input_stall == full.total_input_stall);
    REQUIRE(fast.epochs.size() == full.epochs.size());
    for (std::size_t e = 0; e < fast.epochs.size(); ++e) {
        CHECK(fast.epochs[e].time == full.epochs[e].time);
        CHECK(fast.epochs[e].input_stall == full.epochs[e].input_stall);
    }
}

TEST_CASE("one GPU's share of a node-wide link gives each flow the rate it has among all the node's flows") {
    // The trainer simulates one GPU's loaders against 1/gpus_per_node of the source and
    // ingress links. Under max-min sharing, 8 GPUs x 3 identical flows over two links finish
    // when 3 flows do over links of 1/8 the capacity.
    const auto finish_times = [](int gpus, double scale) {
        sim::Engine e;
        sim::FlowNetwork net(e);
        const sim::LinkId source = net.add_link(12.5e9 * scale), ingress = net.add_link(1.25e9 * scale);
        const sim::LinkId path[] = {source, ingress};
        std::vector<sim::Time> done;
        for (int g = 0; g < gpus; ++g)
            for (int f = 0; f < 3; ++f)
                net.start_flow(path, 1e6 * (f + 1), [&done, &e] { done.push_back(e.now()); }, 1000 * f);
        e.run();
        return done;
    };
    const auto node = finish_times(8, 1.0);
    const auto share = finish_times(1, 1.0 / 8);
    REQUIRE(node.size() == 24);
    REQUIRE(share.size() == 3);
    for (std::size_t f = 0; f < 3; ++f) CHECK(node[f * 8] == share[f]);
}
