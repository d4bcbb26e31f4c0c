// The step simulator's recording of its last simulated step (StepRecording): spans computed by
// hand, loader spans of the consumed batches, and a run that records exactly like one that
// does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "analysis/simulate/trainer.hpp"

using namespace rentsim;
using analysis::StepActivity;
using analysis::StepRecording;
using analysis::StepSpan;
using analysis::TrainingPlan;
using analysis::simulate_training;

namespace {
constexpr sim::Time ms = 1'000'000;

struct Expected {
    StepActivity kind;
    int index;
    sim::Time start, end;
};

std::vector<Expected> shape(const StepRecording& r) {
    std::vector<Expected> v;
    for (const auto& s : r.spans) v.push_back({s.kind, s.index, s.start, s.end});
    return v;
}

bool operator==(const Expected& a, const Expected& b) {
    return a.kind == b.kind && a.index == b.index && a.start == b.start && a.end == b.end;
}

const StepSpan* find(const StepRecording& r, StepActivity kind) {
    for (const auto& s : r.spans)
        if (s.kind == kind) return &s;
    return nullptr;
}
}  // namespace

TEST_CASE("the recorded step has the spans of its activities, computed by hand") {
    // Two micro-batches: the first 100 ms of forward and backward, then the last one's 40 ms
    // forward; backward buckets 140-150 and 150-170; their reductions queue on one stream:
    // 150-175 and 175-180; the optimizer waits for the last, 180-187, then 3 ms of overhead.
    TrainingPlan p;
    p.iterations = 5;
    p.micro_steps = 2;
    p.micro_fwd_bwd = 100 * ms;
    p.last_fwd = 40 * ms;
    p.bucket_bwd = {10 * ms, 20 * ms};
    p.bucket_comm = {25 * ms, 5 * ms};
    p.optimizer = 7 * ms;
    p.step_overhead = 3 * ms;
    StepRecording r;
    const auto t = simulate_training(p, 1, nullptr, &r);
    CHECK(t.iteration == 190 * ms);
    // No state to wait for: step 1 repeats step 0 and the run stops there; step 0 is recorded.
    CHECK(r.step == 0);
    CHECK(r.start == 0);
    CHECK(r.end == 190 * ms);
    const std::vector<Expected> expected = {
        {StepActivity::micro_batch, 0, 0, 100 * ms},      {StepActivity::forward, 1, 100 * ms, 140 * ms},
        {StepActivity::backward, 0, 140 * ms, 150 * ms},  {StepActivity::gradient_comm, 0, 150 * ms, 175 * ms},
        {StepActivity::backward, 1, 150 * ms, 170 * ms},  {StepActivity::gradient_comm, 1, 175 * ms, 180 * ms},
        {StepActivity::optimizer, -1, 180 * ms, 187 * ms}, {StepActivity::step_overhead, -1, 187 * ms, 190 * ms},
    };
    CHECK(shape(r) == expected);
}

TEST_CASE("an input-bound step records its wait and the loader span of the batch it consumes") {
    // One worker builds a batch in 25 ms, the GPU computes 10 ms. Step 0 waits 0-25 and
    // computes 25-35; step 1 waits 35-50 for batch 1 (built 25-50) and computes 50-60; step 2
    // starts in the state step 1 started in, so step 1 is the steady step recorded.
    TrainingPlan p;
    p.iterations = 100;
    p.last_fwd = 3 * ms;
    p.bucket_bwd = {2 * ms, 2 * ms, 2 * ms};
    p.bucket_comm = {0, 0, 0};
    p.optimizer = 1 * ms;
    p.workers = 1;
    p.prefetch_factor = 2;
    p.batch_build = 25 * ms;
    StepRecording r;
    const auto t = simulate_training(p, 1, nullptr, &r);
    CHECK(t.iteration == 25 * ms);
    CHECK(r.step == 1);
    CHECK(r.start == 35 * ms);
    CHECK(r.end == 60 * ms);
    const StepSpan* wait = find(r, StepActivity::input_wait);
    REQUIRE(wait);
    CHECK(wait->batch == 1);
    CHECK(wait->start == 35 * ms);
    CHECK(wait->end == 50 * ms);
    const StepSpan* fwd = find(r, StepActivity::forward);
    REQUIRE(fwd);
    CHECK(fwd->batch == 1);
    CHECK(fwd->start == 50 * ms);
    const StepSpan* built = find(r, StepActivity::batch);
    REQUIRE(built);
    CHECK(built->batch == 1);
    CHECK(built->worker == 0);
    CHECK(built->start == 25 * ms);
    CHECK(built->end == 50 * ms);
    // Batch 0 (step 0's) is not shown; batch 2, still being built when the run stopped, neither.
    CHECK(std::count_if(r.spans.begin(), r.spans.end(), [](const StepSpan& s) { return s.kind == StepActivity::batch; }) == 1);
}

TEST_CASE("recording a step changes nothing in the simulation") {
    // Storage stages, two epochs (the cold one fast-forwarded in place), four workers.
    TrainingPlan p;
    p.iterations = 400;
    p.last_fwd = 3 * ms;
    p.bucket_bwd = {2 * ms, 2 * ms};
    p.bucket_comm = {1 * ms, 4 * ms};
    p.optimizer = 1 * ms;
    p.workers = 4;
    p.batch_build = 4 * ms;
    p.epoch_batches = 150;
    p.stages.enabled = true;
    p.stages.source_bytes_per_s = 1e9;
    p.stages.source_slots = 2;
    p.stages.cpu_cores = 2;
    p.stages.cold_bytes = 20e6;
    p.stages.warm_bytes = 2e6;
    p.stages.cold_latency = 2 * ms;
    p.stages.h2d_bytes = 1e6;
    p.stages.h2d_bytes_per_s = 1e9;
    StepRecording r;
    const auto with = simulate_training(p, 1, nullptr, &r);
    const auto without = simulate_training(p, 1);
    CHECK(with.fingerprint == without.fingerprint);
    CHECK(with.events == without.events);
    CHECK(with.total == without.total);
    CHECK(with.iteration == without.iteration);
    CHECK(with.simulated_iterations < p.iterations);  // some steps were fast-forwarded

    // Every batch the step consumes was built before it is used, by the worker that owns it
    // (batches go round-robin), and each stage of a batch lies inside the batch's span.
    int consumers = 0;
    for (const auto& s : r.spans) {
        if (s.kind != StepActivity::forward && s.kind != StepActivity::micro_batch) continue;
        ++consumers;
        const auto built = std::find_if(r.spans.begin(), r.spans.end(), [&](const StepSpan& b) {
            return b.kind == StepActivity::batch && b.batch == s.batch;
        });
        REQUIRE(built != r.spans.end());
        CHECK(built->end <= s.start);
        CHECK(built->worker == s.batch % p.workers);
    }
    CHECK(consumers == 1);
    for (const auto& s : r.spans) {
        if (s.kind != StepActivity::fetch && s.kind != StepActivity::decode && s.kind != StepActivity::copy) continue;
        const auto parent = std::find_if(r.spans.begin(), r.spans.end(), [&](const StepSpan& b) {
            return b.kind == StepActivity::batch && b.batch == s.batch;
        });
        if (parent == r.spans.end()) continue;  // its batch is still being built when the run stops
        CHECK(parent->start <= s.start);
        CHECK(s.end <= parent->end);
        CHECK(parent->worker == s.worker);
    }
    CHECK(r.end - r.start > 0);
}
