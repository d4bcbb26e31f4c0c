#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/scenario/input_error.hpp"
#include "analysis/simulate/lifecycle.hpp"
#include "analysis/report/report.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/run/sweep.hpp"
#include "sim/random.hpp"

using namespace rentsim;
using analysis::LifecyclePlan;

namespace {

constexpr sim::Time hour = 3'600'000'000'000;

LifecyclePlan plain(double work_h, double usd_per_gpu_hour = 3.6, int gpus = 1, int per_instance = 1) {
    LifecyclePlan p;
    p.work = static_cast<sim::Time>(work_h * static_cast<double>(hour));
    p.phases.push_back({0, gpus, 1.0});
    p.bill = price::OnDemand{units::usd_per_hour(usd_per_gpu_hour), units::seconds(1), units::seconds(60), per_instance};
    return p;
}

double mean_time_h(const LifecyclePlan& p, int reps, std::uint64_t seed) {
    double sum = 0;
    for (int i = 0; i < reps; ++i) sum += sim::to_seconds(analysis::simulate_lifecycle(p, sim::derive_seed(seed, i)).time);
    return sum / reps / 3600.0;
}

}  // namespace

TEST_CASE("without interruptions the run takes the steady time and costs billed time x price") {
    auto p = plain(10.0, 4.0, 12, 8);
    p.provisioning = hour / 4;
    const auto o = analysis::simulate_lifecycle(p, 1);
    CHECK(o.time == p.work + hour / 4);
    CHECK(o.max_instances == 2);
    CHECK(o.billed_instance_s == doctest::Approx(2 * 10.25 * 3600));
    // 12 GPUs on 8-GPU instances bill 16 GPUs.
    CHECK(o.compute_usd == doctest::Approx(10.25 * 16 * 4.0));
    CHECK(o.preemptions == 0);
    CHECK(o.deadline_met);
}

TEST_CASE("work lost per preemption is about half the checkpoint interval when preemptions are rare") {
    // Rate 1/100 h, interval 1 h: E[lost] = 1/λ - τ/(exp(λτ) - 1) = 0.4992 h, about τ/2.
    auto p = plain(2000.0);
    p.preempt_mean_s = 100.0 * 3600;
    p.checkpoint_interval = hour;
    double lost = 0;
    int preemptions = 0;
    for (int i = 0; i < 100; ++i) {
        const auto o = analysis::simulate_lifecycle(p, sim::derive_seed(7, i));
        lost += o.lost_work_s;
        preemptions += o.preemptions;
    }
    REQUIRE(preemptions > 1000);
    const double per = lost / preemptions / 3600.0;
    const double lambda = 1.0 / 100.0, tau = 1.0;
    CHECK(per == doctest::Approx(1 / lambda - tau / std::expm1(lambda * tau)).epsilon(0.04));
    CHECK(per == doctest::Approx(0.5).epsilon(0.05));
}

TEST_CASE("a spot notice long enough to write a checkpoint loses only the notice period") {
    auto p = plain(200.0);
    p.preempt_mean_s = 20.0 * 3600;
    p.checkpoint_interval = 4 * hour;
    p.checkpoint_write = 60'000'000'000;  // 60 s
    p.notice = 120'000'000'000;           // 120 s, as AWS gives
    const auto o = analysis::simulate_lifecycle(p, 3);
    REQUIRE(o.preemptions > 3);
    CHECK(o.lost_work_s <= o.preemptions * 120.0 + 1e-6);
}

TEST_CASE("the simulated optimum checkpoint interval lands near Young/Daly sqrt(2 C MTBF)") {
    // 8 GPUs with a GPU MTBF of 80 h: the job fails every 10 h on average. C = 60 s.
    auto p = plain(200.0, 1.0, 8, 8);
    p.gpu_mtbf_s = 80.0 * 3600;
    p.checkpoint_write = 60'000'000'000;
    const double yd = analysis::young_daly_interval_s(60.0, 10.0 * 3600);
    CHECK(yd == doctest::Approx(std::sqrt(2 * 60.0 * 36000.0)));
    double best_factor = 0, best = 1e300;
    for (int k = -4; k <= 4; ++k) {
        const double factor = std::pow(2.0, k / 2.0);
        p.checkpoint_interval = sim::ceil_seconds(yd * factor);
        const double t = mean_time_h(p, 40, 11);  // same seeds for every interval
        if (t < best) {
            best = t;
            best_factor = factor;
        }
    }
    CHECK(best_factor >= 0.5);
    CHECK(best_factor <= 2.0);
    // First-order expected overhead at the optimum: sqrt(2 C / M) of the work.
    CHECK(best == doctest::Approx(200.0 * (1 + std::sqrt(2 * 60.0 / 36000.0))).epsilon(0.02));
}

TEST_CASE("the budget alerts at its fraction, stops the run, and the deadline is missed") {
    auto p = plain(10.0, 3.6);
    p.budget_usd = 18.0;
    p.alert_fraction = 0.8;
    p.deadline = 8 * hour;
    const auto o = analysis::simulate_lifecycle(p, 1);
    CHECK_FALSE(o.finished);
    CHECK_FALSE(o.deadline_met);
    CHECK(sim::to_seconds(o.time) == doctest::Approx(5 * 3600.0));
    CHECK(sim::to_seconds(o.budget_alert) == doctest::Approx(4 * 3600.0));
    CHECK(o.compute_usd == doctest::Approx(18.0));
}

TEST_CASE("an elastic schedule resizes, trains at each phase's speed and bills the instances held") {
    auto p = plain(9.0, 1.0, 16, 8);
    p.phases = {{0, 16, 1.0}, {8 * hour, 2, 0.125}};
    p.repeat = 24 * hour;
    const auto o = analysis::simulate_lifecycle(p, 1);
    CHECK(o.resizes == 1);
    // 8 h at full speed, then 1 h of work at 1/8 speed: 16 h.
    CHECK(sim::to_seconds(o.time) == doctest::Approx(16 * 3600.0));
    CHECK(o.max_instances == 2);
    // One instance for 16 h, one for 8 h, 8 GPUs each, 1 USD/GPU-h.
    CHECK(o.compute_usd == doctest::Approx((16 + 8) * 8.0));
}

TEST_CASE("committed capacity is billed for the largest count whether used or not") {
    auto p = plain(9.0, 1.0, 16, 8);
    p.phases = {{0, 16, 1.0}, {8 * hour, 2, 0.125}};
    p.billing = analysis::Billing::committed;
    const auto o = analysis::simulate_lifecycle(p, 1);
    CHECK(o.compute_usd == doctest::Approx(16 * 2 * 8.0));
}

namespace {
const char* spot_scenario = R"({
  "schema": 1, "name": "spot",
  "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 64, "samples": 40000000},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"provider": "aws", "instance": "p4de.24xlarge", "plan": "spot",
              "ownership": {"purchase_usd": 250000, "depreciation_years": 4, "power_kw": 6.5, "pue": 1.5, "usd_per_kwh": 0.08}},
  "lifecycle": {"restart": {"boot_s": 120, "nccl_init_s": 30},
                "checkpoint": {"optimal_interval": true, "write_gb_per_s": 2},
                "spot": {"mean_time_between_preemptions_h": 6, "capacity_wait_s": 600}},
  "sweep": {"pricing.plan": ["on-demand", "spot", "reserved_1y_standard_no_upfront", "self-owned"]}
})";
}

TEST_CASE("replications give the same results whatever the thread count") {
    const auto set = analysis::parse_scenarios(spot_scenario, "spot.json");
    analysis::RunOptions options;
    options.replications = 20;
    const auto one = analysis::results_to_json(analysis::run_all(set, 1, options));
    const auto two = analysis::results_to_json(analysis::run_all(set, 2, options));
    CHECK(one == two);
    const auto r = analysis::run_all(set, 2, options);
    REQUIRE(r.size() == 4);
    CHECK(r[1].lifecycle.preemptions > 0);
    CHECK(r[1].time_stats.p5 <= r[1].time_stats.p50);
    CHECK(r[1].time_stats.p50 <= r[1].time_stats.p95);
    CHECK(r[1].time_to_train_s == doctest::Approx(r[1].time_stats.mean));
    CHECK(r[0].lifecycle.preemptions == 0);
}

TEST_CASE("on-demand cost equals billed instance time x the catalog price") {
    const auto set = analysis::parse_scenarios(spot_scenario, "spot.json");
    const auto r = analysis::run_scenario(set.points[0]);
    const auto& l = r.lifecycle;
    CHECK(l.usd_per_gpu_hour * 8 == doctest::Approx(27.44705));
    CHECK(l.compute_usd == doctest::Approx(l.billed_instance_hours * 27.44705));
    CHECK(r.cost_usd == doctest::Approx(l.compute_usd + l.storage_usd + l.egress_usd));
}

TEST_CASE("catalog names are checked with a did-you-mean and flagged rows are refused") {
    std::string text = spot_scenario;
    text.replace(text.find("p4de.24xlarge"), 13, "p4de.24xlarg");
    try {
        (void)analysis::parse_scenarios(text, "s.json");
        FAIL("no error");
    } catch (const analysis::InputError& e) {
        CHECK(e.where() == "/pricing/instance");
        CHECK(e.message().find("did you mean 'p4de.24xlarge'") != std::string::npos);
    }
    std::string flagged = spot_scenario;
    flagged.replace(flagged.find("p4de.24xlarge"), 13, "p4d.24xlarge");
    flagged.replace(flagged.find("a100-sxm4-80gb"), 14, "a100-sxm4-40gb");
    {
        // Only the spot point names the flagged row: it alone is refused, in its row.
        const auto set = analysis::parse_scenarios(flagged, "s.json");
        REQUIRE(set.points.size() == 4);
        CHECK(set.points[0].invalid.empty());
        CHECK(set.points[1].invalid.find("is flagged: lowest-zone spot price is an outlier") != std::string::npos);
        CHECK(set.points[1].invalid.starts_with("s.json: /sweep/pricing.plan/1: "));
        const auto r = analysis::run_all(set, 1, {});
        CHECK(r[1].status == "invalid");
        CHECK(r[1].note == set.points[1].invalid);
        CHECK(r[0].status == "done");
    }
    flagged.replace(flagged.find("\"plan\": \"spot\""), 14, "\"plan\": \"spot\", \"allow_flagged\": true");
    CHECK_NOTHROW((void)analysis::parse_scenarios(flagged, "s.json"));
}

TEST_CASE("a replayed spot trace preempts the job's share of the recorded removals") {
    const auto trace = price::shipped_trace("bamboo-p3");
    auto p = plain(100.0, 1.0, 16, 8);
    p.trace = &trace;
    p.checkpoint_interval = hour / 2;
    double preemptions = 0;
    for (int i = 0; i < 20; ++i) preemptions += analysis::simulate_lifecycle(p, sim::derive_seed(5, i)).preemptions;
    // Two instances live 1.64 h on average in this trace: about 2 x 100 / 1.64 = 122 preemptions
    // in 100 h of work (more, as the run stretches while it waits and restarts).
    CHECK(preemptions / 20 > 60);
    CHECK(preemptions / 20 < 250);
}

TEST_CASE("every mix of preemptions, failures, resizes and checkpoints finishes with consistent totals") {
    const auto trace = price::shipped_trace("bamboo-p3");
    int preemptions = 0, failures = 0, resizes = 0;
    for (int i = 0; i < 200; ++i) {
        auto p = plain(30.0, 2.0, 16, 8);
        p.phases = {{0, 16, 1.0}, {3 * hour, 8, 0.5}, {5 * hour, 2, 0.125}};
        p.repeat = 7 * hour;
        p.checkpoint_interval = hour / 3;
        p.checkpoint_write = 90'000'000'000;
        p.notice = i % 2 ? 120'000'000'000 : 0;
        p.restart = 300'000'000'000;
        p.resize_extra = 60'000'000'000;
        p.capacity_wait_mean_s = 900;
        p.gpu_mtbf_s = 200.0 * 3600;
        if (i % 3 == 0) p.trace = &trace;
        else p.preempt_mean_s = 4.0 * 3600;
        const auto o = analysis::simulate_lifecycle(p, sim::derive_seed(99, i));
        REQUIRE(o.finished);
        CHECK(o.time >= p.work);
        CHECK(o.lost_work_s >= 0);
        CHECK(o.billed_instance_s >= o.instance_s - 1e-6);
        CHECK(o.instance_s <= sim::to_seconds(o.time) * 2 + 1e-6);
        CHECK(o.compute_usd == doctest::Approx(o.billed_instance_s / 3600 * 16.0));
        preemptions += o.preemptions;
        failures += o.failures;
        resizes += o.resizes;
    }
    CHECK(preemptions > 1000);
    CHECK(failures > 50);
    CHECK(resizes > 1000);
}

TEST_CASE("an explicit price in another currency is converted with usd_per_unit") {
    const char* text = R"({"schema": 1, "name": "cny",
      "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "samples": 1000000},
      "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
      "pricing": {"price_per_gpu_hour": 20.0, "currency": "CNY", "usd_per_unit": 0.14}})";
    const auto set = analysis::parse_scenarios(text, "cny.json");
    CHECK(set.points[0].pricing.usd_per_gpu_hour == doctest::Approx(2.8));
    CHECK(set.points[0].pricing.currency == "CNY");
}

TEST_CASE("a run whose interruptions outpace its checkpoints is given up at the horizon") {
    auto p = plain(10.0);
    p.preempt_mean_s = 600;  // every 10 minutes, and no checkpoints: 10 h of work never completes
    const auto o = analysis::simulate_lifecycle(p, 1);
    CHECK_FALSE(o.finished);
    CHECK(o.gave_up);
    CHECK(o.time > 100 * p.work);
}

TEST_CASE("grouped leases bill each instance with its own increment and minimum") {
    // 2-GPU instances at 3.6 USD per GPU-hour (0.002 USD per instance-second), billed per
    // 60 s with a 300 s minimum. 1,000 s of work: 100 s on 4 GPUs, 200 s at twice the speed
    // on 8, then the remaining 500 s on 2 (checkpoints and restarts take no time).
    auto p = plain(1000.0 / 3600.0, 3.6, 4, 2);
    p.bill.increment = units::seconds(60);
    p.bill.minimum = units::seconds(300);
    const sim::Time second = 1'000'000'000;
    p.phases = {{0, 4, 1.0}, {100 * second, 8, 2.0}, {300 * second, 2, 1.0}};
    const auto o = analysis::simulate_lifecycle(p, 1);
    REQUIRE(o.finished);
    CHECK(o.time == 800 * second);
    CHECK(o.resizes == 2);
    CHECK(o.max_instances == 4);
    // Leases: two instances opened at 0 and two at 100 s. Shrinking at 300 s closes the two
    // newest (200 s each, billed the 300 s minimum) and one of the first (300 s); the last
    // runs to 800 s, billed 14 increments (840 s).
    CHECK(o.billed_instance_s == 2 * 300.0 + 300.0 + 840.0);
    CHECK(o.instance_s == doctest::Approx(2 * 100.0 + 4 * 200.0 + 1 * 500.0));
    CHECK(o.compute_usd == doctest::Approx(1740 * 0.002));
}

TEST_CASE("262,144 GPUs priced per GPU bill 262,144 leases in one group, exactly") {
    auto p = plain(10.0, 3.6, 262144, 1);
    p.provisioning = 30'000'000'000;  // 30 s: under the 60 s minimum, but the run is longer
    const auto o = analysis::simulate_lifecycle(p, 1);
    CHECK(o.max_instances == 262144);
    CHECK(o.billed_instance_s == 262144.0 * 36030.0);
    CHECK(o.compute_usd == doctest::Approx(262144.0 * 36030 * 0.001));
}

TEST_CASE("a run priced per GPU and the same run on 8-GPU instances bill the same seconds and cost") {
    // GPT-3 175B on 1,024 GPUs with GPU failures and checkpoints (neither depends on how GPUs
    // are grouped into instances): 1,024 one-GPU leases against 128 eight-GPU ones.
    const auto text = [](const char* instance) {
        return std::string(R"({"schema": 1, "name": "grouping",
          "workload": {"model": "gpt3-175b", "precision": "fp16", "global_batch": 1536, "micro_batch": 1,
                       "parallelism": {"tp": 8, "pp": 16, "dp": 8, "schedule": "1f1b", "recompute": "full"},
                       "tokens": 30000000000},
          "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 1024, "topology": "dgx-a100"},
          "pricing": {"usd_per_gpu_hour": 3.43, "billing_increment_s": 60, "minimum_billed_s": 600)") +
               instance + R"(},
          "lifecycle": {"restart": {"boot_s": 180, "nccl_init_s": 30},
                        "checkpoint": {"optimal_interval": true, "write_gb_per_s": 20},
                        "failures": {"gpu_mtbf_h": 50000}}})";
    };
    const auto per_gpu = analysis::run_scenario(analysis::parse_scenarios(text(""), "a.json").points.at(0));
    const auto grouped =
        analysis::run_scenario(analysis::parse_scenarios(text(R"(, "gpus_per_instance": 8)"), "b.json").points.at(0));
    REQUIRE(per_gpu.lifecycle.failures > 0);
    CHECK(per_gpu.lifecycle.instances == 1024);
    CHECK(grouped.lifecycle.instances == 128);
    CHECK(per_gpu.lifecycle.billed_gpus == grouped.lifecycle.billed_gpus);
    CHECK(per_gpu.time_to_train_s == grouped.time_to_train_s);
    CHECK(per_gpu.billed_s == grouped.billed_s);
    CHECK(per_gpu.lifecycle.compute_usd == grouped.lifecycle.compute_usd);
    CHECK(per_gpu.cost_usd == grouped.cost_usd);
    CHECK(per_gpu.lifecycle.billed_instance_hours == doctest::Approx(8 * grouped.lifecycle.billed_instance_hours));
}

TEST_CASE("run_status names how a run ended, first the budget, then giving up, then the deadline") {
    analysis::Result r;
    CHECK(analysis::run_status(r) == "done");
    r.lifecycle.deadline_met_fraction = 0.25;
    CHECK(analysis::run_status(r) == "missed deadline in 75% of runs");
    r.lifecycle.deadline_met_fraction = 0;
    CHECK(analysis::run_status(r) == "missed deadline");
    r.lifecycle.finished_fraction = 0;  // every replication stopped by its budget
    r.lifecycle.trained_fraction = 0.614;
    CHECK(analysis::run_status(r) == "stopped by budget at 61%");
    r.lifecycle.finished_fraction = 0.6;
    CHECK(analysis::run_status(r) == "stopped by budget in 40% of runs");
    r.lifecycle.finished_fraction = 0;
    r.lifecycle.gave_up_fraction = 1;
    CHECK(analysis::run_status(r) == "gave up");
    r.fits = false;
    CHECK(analysis::run_status(r) == "does not fit");
}

TEST_CASE("a budget that runs out stops the run part-way and says how far it got") {
    analysis::ScenarioDraft d{"budget", {}};
    d.set("schema", std::int64_t{1}).set("name", std::string("b"))
        .set("workload.model", std::string("bert-large")).set("workload.precision", std::string("fp16"))
        .set("workload.seq_len", std::int64_t{512}).set("workload.batch_per_gpu", std::int64_t{32})
        .set("workload.dataset_samples", std::int64_t{1000000}).set("workload.epochs", std::int64_t{1})
        .set("cluster.gpu", std::string("a100-sxm4-80gb")).set("cluster.gpus", std::int64_t{8})
        .set("pricing.usd_per_gpu_hour", 4.0).set("pricing.billing_increment_s", std::int64_t{1})
        .set("pricing.minimum_billed_s", std::int64_t{0});
    const auto full = analysis::run_scenario(analysis::compile_scenario(d));
    REQUIRE(full.status == "done");
    // Half the finished run's cost: the budget stops it at half the work (no start-up delay).
    d.set("lifecycle.budget_usd", full.cost_usd / 2);
    const auto half = analysis::run_scenario(analysis::compile_scenario(d));
    CHECK(half.lifecycle.finished_fraction == 0);
    CHECK(half.lifecycle.trained_fraction == doctest::Approx(0.5).epsilon(0.01));
    CHECK(half.status == "stopped by budget at 50%");
    CHECK(half.cost_usd == doctest::Approx(full.cost_usd / 2).epsilon(0.001));
}

TEST_CASE("a calendar window runs for its length and reports the work it held") {
    analysis::ScenarioDraft d{"window", {}};
    d.set("schema", std::int64_t{1}).set("name", std::string("w"))
        .set("workload.model", std::string("bert-large")).set("workload.precision", std::string("fp16"))
        .set("workload.seq_len", std::int64_t{512}).set("workload.batch_per_gpu", std::int64_t{32})
        .set("workload.dataset_samples", std::int64_t{1000000}).set("workload.epochs", std::int64_t{1})
        .set("cluster.gpu", std::string("a100-sxm4-80gb")).set("cluster.gpus", std::int64_t{8})
        .set("pricing.usd_per_gpu_hour", 4.0).set("pricing.billing_increment_s", std::int64_t{1})
        .set("pricing.minimum_billed_s", std::int64_t{0}).set("lifecycle.window_h", 10.0);
    const auto r = analysis::run_scenario(analysis::compile_scenario(d));
    REQUIRE(r.fits);
    CHECK(r.status == "done");
    CHECK(r.time_to_train_s == doctest::Approx(36000.0));
    // No start-up, no interruptions: ten hours at the steady rate, 8 GPUs at 4 USD/h.
    CHECK(r.samples == doctest::Approx(36000.0 * r.throughput_samples_per_s).epsilon(1e-6));
    CHECK(r.cost_usd == doctest::Approx(10 * 8 * 4.0));
    CHECK(r.cost_per_sample_usd == doctest::Approx(r.cost_usd / r.samples));
    CHECK(r.lifecycle.window_h == 10.0);
    // A window of half the fixed-work run holds half its samples.
    d.set("lifecycle.window_h", 0.0);
    const auto full = analysis::run_scenario(analysis::compile_scenario(d));
    d.set("lifecycle.window_h", full.time_to_train_s / 2 / 3600);
    const auto half = analysis::run_scenario(analysis::compile_scenario(d));
    CHECK(half.samples == doctest::Approx(full.samples / 2).epsilon(0.001));
}
