// Properties of the models over many random valid scenarios (a fixed seed, so failures
// reproduce): invariants that hold for any input, not values chosen by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "analysis/report/report.hpp"
#include "analysis/run/run.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

namespace {

struct Draw {
    analysis::ScenarioDraft draft;
    bool multi_node = false;
};

template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> values) {
    std::uniform_int_distribution<std::size_t> d(0, values.size() - 1);
    return *(values.begin() + static_cast<std::ptrdiff_t>(d(rng)));
}

double uniform(std::mt19937_64& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

// A random data-parallel scenario that the loader accepts.
Draw draw(std::mt19937_64& rng, int i) {
    Draw d;
    auto& s = d.draft;
    s.file = "random-" + std::to_string(i);
    s.set("schema", std::int64_t{1}).set("name", s.file).set("seed", std::int64_t{i});
    const std::string model = pick<std::string>(rng, {"resnet50", "bert-base", "bert-large", "gpt3-125m", "gpt3-350m"});
    const std::string gpu = pick<std::string>(rng, {"v100-sxm2-32gb", "a100-sxm4-80gb", "h100-sxm5-80gb"});
    s.set("workload.model", model).set("workload.precision", std::string("fp16"));
    if (model.starts_with("bert")) s.set("workload.seq_len", std::int64_t{pick(rng, {128, 512})});
    s.set("workload.batch_per_gpu", std::int64_t{pick(rng, {4, 8, 16})});
    s.set("workload.samples", std::floor(uniform(rng, 1e4, 2e5)));
    const int gpus = pick(rng, {1, 2, 4, 8, 16, 32});
    s.set("cluster.gpu", gpu).set("cluster.gpus", std::int64_t{gpus}).set("cluster.gpus_per_node", std::int64_t{8});
    d.multi_node = gpus > 8;
    s.set("cluster.inter_node.fabric", pick<std::string>(rng, {"infiniband", "efa", "tcp"}))
        .set("cluster.inter_node.gbps_per_gpu", uniform(rng, 10, 400))
        .set("cluster.inter_node.latency_us", uniform(rng, 1, 50));
    if (pick(rng, {false, true}))
        s.set("data.workers_per_gpu", std::int64_t{pick(rng, {1, 2, 4, 8})})
            .set("data.samples_per_s_per_worker", uniform(rng, 50, 2000));
    s.set("pricing.usd_per_gpu_hour", uniform(rng, 0.5, 8))
        .set("pricing.billing_increment_s", pick(rng, {1.0, 60.0, 3600.0}))
        .set("pricing.minimum_billed_s", pick(rng, {0.0, 60.0}))
        .set("pricing.gpus_per_instance", std::int64_t{pick(rng, {1, 8})});
    if (pick(rng, {false, true})) s.set("pricing.storage_usd_per_gb_month", 0.023).set("pricing.dataset_gb", uniform(rng, 1, 500));
    return d;
}

bool finite(const analysis::Result& r) {
    for (double x : {r.time_to_train_s, r.cost_usd, r.billed_s, r.throughput_samples_per_s, r.iteration_s,
                     r.breakdown.compute_s, r.breakdown.exposed_comm_s, r.breakdown.input_stall_s, r.tflops_per_gpu,
                     r.mfu, r.memory_per_gpu_gib, r.lifecycle.compute_usd, r.lifecycle.billed_instance_hours})
        if (!std::isfinite(x) || x < 0) return false;
    return true;
}

constexpr int draws = 300;

}  // namespace

TEST_CASE("random valid scenarios give finite results whose cost is billed time times price plus storage") {
    std::mt19937_64 rng(20261201);
    int fitted = 0;
    for (int i = 0; i < draws; ++i) {
        const auto d = draw(rng, i);
        const auto s = analysis::compile_scenario(d.draft);
        const auto r = analysis::run_scenario(s);
        CAPTURE(s.file);
        if (!r.fits) continue;
        ++fitted;
        CHECK(finite(r));
        // Cost: billed instance-hours x the instance's price, plus storage and egress.
        const auto& l = r.lifecycle;
        CHECK(l.compute_usd == doctest::Approx(l.billed_instance_hours * l.usd_per_gpu_hour * l.gpus_per_instance).epsilon(1e-9));
        CHECK(r.cost_usd == doctest::Approx(l.compute_usd + l.storage_usd + l.egress_usd).epsilon(1e-9));
        // Billing rounds up: never less than the time held.
        CHECK(l.billed_instance_hours >= l.instance_hours * (1 - 1e-12));
        // Time to train is at least its steps at the compute-only step time.
        CHECK(r.time_to_train_s >= static_cast<double>(r.iterations - 1) * r.breakdown.compute_s * (1 - 1e-9));
        // The breakdown adds up to the step.
        CHECK(r.breakdown.compute_s + r.breakdown.exposed_comm_s + r.breakdown.input_stall_s + r.breakdown.pipeline_bubble_s ==
              doctest::Approx(r.iteration_s).epsilon(1e-6));
    }
    CHECK(fitted > draws / 2);
}

TEST_CASE("more inter-node bandwidth never slows a random multi-node run") {
    std::mt19937_64 rng(7);
    int compared = 0;
    for (int i = 0; i < 3 * draws && compared < 15; ++i) {
        auto d = draw(rng, i);
        if (!d.multi_node) continue;
        const auto slow = analysis::run_scenario(analysis::compile_scenario(d.draft));
        d.draft.set("cluster.inter_node.gbps_per_gpu", 800.0);
        const auto fast = analysis::run_scenario(analysis::compile_scenario(d.draft));
        if (!slow.fits) continue;
        ++compared;
        CAPTURE(d.draft.file);
        CHECK(fast.iteration_s <= slow.iteration_s * (1 + 1e-9));
        CHECK(fast.time_to_train_s <= slow.time_to_train_s * (1 + 1e-9));
    }
    CHECK(compared >= 10);
}

TEST_CASE("more data-parallel GPUs never use fewer GPU-hours than the compute the samples need") {
    std::mt19937_64 rng(11);
    for (int i = 0; i < draws / 2; ++i) {
        auto d = draw(rng, i);
        const auto one = analysis::run_scenario(analysis::compile_scenario(d.draft.set("cluster.gpus", std::int64_t{1})));
        if (!one.fits) continue;
        // One GPU's compute per sample, without communication or input waits.
        const double per_sample = one.breakdown.compute_s / one.global_batch;
        for (int gpus : {2, 8, 32}) {
            const auto r = analysis::run_scenario(analysis::compile_scenario(d.draft.set("cluster.gpus", std::int64_t{gpus})));
            CAPTURE(d.draft.file);
            CAPTURE(gpus);
            CHECK(r.time_to_train_s * gpus >= per_sample * r.samples * (1 - 1e-6) * 0.999);
        }
    }
}

TEST_CASE("the same random scenarios and seeds give byte-identical results on 1 and 3 threads") {
    std::mt19937_64 rng(3);
    analysis::ScenarioSet set;
    for (int i = 0; i < 12; ++i) {
        auto d = draw(rng, i);
        d.draft.set("pricing.billing_increment_s", 1.0);
        d.draft.set("lifecycle.spot.mean_time_between_preemptions_h", uniform(rng, 0.5, 20))
            .set("lifecycle.checkpoint.interval_s", 600.0)
            .set("lifecycle.checkpoint.write_gb_per_s", 5.0)
            .set("pricing.plan", std::string("spot"));
        set.points.push_back(analysis::compile_scenario(d.draft));
    }
    analysis::RunOptions options;
    options.replications = 5;
    CHECK(analysis::results_to_json(analysis::run_all(set, 1, options)) ==
          analysis::results_to_json(analysis::run_all(set, 3, options)));
}
