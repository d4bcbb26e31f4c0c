#include <doctest/doctest.h>

#include "analysis/simulate/trainer.hpp"

using namespace rentsim;
using analysis::TrainingPlan;
using analysis::simulate_training;

namespace {
constexpr sim::Time ms = 1'000'000;

TrainingPlan compute_only(std::int64_t iterations) {
    TrainingPlan p;
    p.iterations = iterations;
    p.last_fwd = 3 * ms;
    p.bucket_bwd = {2 * ms, 2 * ms, 2 * ms};
    p.bucket_comm = {0, 0, 0};
    p.optimizer = 1 * ms;
    return p;
}
}  // namespace

TEST_CASE("without communication or input waits a step is forward plus backward plus optimizer") {
    const auto t = simulate_training(compute_only(10), 1);
    CHECK(t.iteration == 10 * ms);
    CHECK(t.total == 100 * ms);
    CHECK(t.compute == 10 * ms);
    CHECK(t.exposed_comm == 0);
    CHECK(t.input_stall == 0);
}

TEST_CASE("bucket all-reduces overlap the remaining backward and only the tail is exposed") {
    // Backward buckets end at 5, 7, 9 ms (after a 3 ms forward). All-reduces of 3 ms each run
    // on one stream: 5-8, 8-11, 11-14. The optimizer starts at 14 and ends at 15: 5 ms exposed.
    auto p = compute_only(4);
    p.bucket_comm = {3 * ms, 3 * ms, 3 * ms};
    const auto t = simulate_training(p, 1);
    CHECK(t.iteration == 15 * ms);
    CHECK(t.exposed_comm == 5 * ms);
    CHECK(t.total == 60 * ms);
}

TEST_CASE("an input-bound step waits for the loader and the stall is measured") {
    // One worker builds a batch in 25 ms, the GPU needs 10 ms: steady state 25 ms per step,
    // 15 ms of it waiting. The first batch arrives at 25 ms.
    auto p = compute_only(100);
    p.workers = 1;
    p.prefetch_factor = 2;
    p.batch_build = 25 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(t.iteration == 25 * ms);
    CHECK(t.input_stall == 15 * ms);
    CHECK(t.total == 100 * 25 * ms + 10 * ms);
}

TEST_CASE("enough loader workers hide the input pipeline entirely") {
    auto p = compute_only(100);
    p.workers = 4;
    p.batch_build = 25 * ms;  // 4 workers: one batch every 6.25 ms, faster than the 10 ms step
    const auto t = simulate_training(p, 1);
    CHECK(t.iteration == 10 * ms);
    CHECK(t.input_stall == 0);
}

TEST_CASE("gradient accumulation runs the earlier micro-batches without communication") {
    auto p = compute_only(10);
    p.micro_steps = 4;
    p.micro_fwd_bwd = 9 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(t.iteration == 3 * 9 * ms + 10 * ms);
}

TEST_CASE("a million steps are fast-forwarded exactly from the periodic steady state") {
    auto p = compute_only(1'000'000);
    p.workers = 3;
    p.batch_build = 29 * ms;  // slightly input-bound: phases repeat with a period of steps
    p.bucket_comm = {1 * ms, 4 * ms, 2 * ms};
    const auto big = simulate_training(p, 1);
    CHECK(big.simulated_iterations < 100);
    CHECK(big.period_exact);
    // Linearity: the steady state adds exactly one period time per period of steps.
    p.iterations = 1'000'000 + big.period * 1000;
    const auto bigger = simulate_training(p, 1);
    CHECK(bigger.total - big.total == 1000 * big.period_time);
}

TEST_CASE("the same plan and seed give the same event fingerprint") {
    auto p = compute_only(50);
    p.workers = 2;
    p.batch_build = 15 * ms;
    const auto a = simulate_training(p, 7);
    const auto b = simulate_training(p, 7);
    CHECK(a.fingerprint == b.fingerprint);
    CHECK(a.total == b.total);
    p.batch_build = 16 * ms;
    CHECK(simulate_training(p, 7).fingerprint != a.fingerprint);
}

TEST_CASE("a plan without buckets is rejected") {
    auto p = compute_only(1);
    p.bucket_bwd.clear();
    p.bucket_comm.clear();
    CHECK_THROWS_AS(simulate_training(p, 1), std::invalid_argument);
}

TEST_CASE("a pipeline step is m stage slots plus the bubble, and blocking communication is exposed") {
    // pp = 4, m = 6 micro-batches, v = 1: the slot is 10 ms (forward 3 + backward 7), of which
    // 1 ms is tensor-parallel and pipeline communication. Bubble (pp - 1) / v slots = 30 ms.
    // Step: 5 slots of 10 ms, bubble 30, last forward 3 + backward 7, optimizer 1 = 91 ms.
    // Compute: 6 x (10 - 1) + 1 = 55 ms; exposed communication 6 x 1 = 6 ms; idle bubble 30 ms.
    TrainingPlan p;
    p.iterations = 3;
    p.micro_steps = 6;
    p.micro_fwd_bwd = 10 * ms;
    p.last_fwd = 3 * ms;
    p.bucket_bwd = {7 * ms};
    p.bucket_comm = {0};
    p.micro_comm = 1 * ms;
    p.pipeline_bubble = 30 * ms;
    p.optimizer = 1 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(t.iteration == 91 * ms);
    CHECK(t.total == 273 * ms);
    CHECK(t.compute == 55 * ms);
    CHECK(t.exposed_comm == 6 * ms);
    CHECK(t.pipeline_bubble == 30 * ms);
    CHECK(t.compute + t.exposed_comm + t.input_stall + t.pipeline_bubble == t.iteration);
}

TEST_CASE("data-parallel gradient buckets of the last stage overlap its last backward in a pipeline") {
    // As above with two 3.5 ms buckets whose all-reduces take 4 ms each: buckets end at
    // 50 + 30 + 3 + 3.5 = 86.5 and 90 ms; all-reduces run 86.5-90.5 and 90.5-94.5; the
    // optimizer ends at 95.5 ms, 4.5 ms later than without communication.
    TrainingPlan p;
    p.iterations = 2;
    p.micro_steps = 6;
    p.micro_fwd_bwd = 10 * ms;
    p.last_fwd = 3 * ms;
    p.bucket_bwd = {3'500'000, 3'500'000};
    p.bucket_comm = {4 * ms, 4 * ms};
    p.pipeline_bubble = 30 * ms;
    p.optimizer = 1 * ms;
    const auto t = simulate_training(p, 1);
    CHECK(t.iteration == 95'500'000);
    CHECK(t.exposed_comm == 4'500'000);
}
