// The capacity simulator against hand-computed schedules and bills.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/capacity/policy.hpp"
#include "analysis/capacity/quantiles.hpp"
#include "analysis/capacity/simulator.hpp"
#include "models/compute/gpu.hpp"

using namespace rentsim;
using capacity::ClusterConfig;
using capacity::Pool;
using capacity::PoolKind;

namespace {

jobs::Job job(double submit, int gpus, double duration, std::string user = "u", bool spot_ok = false) {
    jobs::Job j;
    j.id = "j" + std::to_string(static_cast<int>(submit)) + "-" + std::to_string(gpus) + "-" +
           std::to_string(static_cast<int>(duration));
    j.submit_s = submit;
    j.gpus = gpus;
    j.duration_s = duration;
    j.user = std::move(user);
    j.spot_ok = spot_ok;
    return j;
}

Pool pool(std::string name, PoolKind kind, int nodes, int max_nodes, double usd_per_node_hour = 10.0) {
    Pool p;
    p.name = std::move(name);
    p.provider = "test";
    p.instance = "8-gpu";
    p.plan = kind == PoolKind::reserved ? "reserved" : kind == PoolKind::spot ? "spot" : "on-demand";
    p.gpu = "a100-sxm4-80gb";
    p.gpus_per_node = 8;
    p.kind = kind;
    p.nodes = nodes;
    p.max_nodes = max_nodes;
    p.usd_per_node_hour = usd_per_node_hour;
    p.startup_s = 0;
    return p;
}

struct Run {
    capacity::ClusterResult result;
    std::map<std::string, capacity::JobRecord> jobs;  // by id (job pointers cleared)
    std::map<std::string, std::string> status;
};

Run replay(const ClusterConfig& c, std::vector<jobs::Job> trace) {
    capacity::VectorJobReader reader(std::move(trace));
    Run run;
    run.result = capacity::simulate_cluster(c, reader, [&](const capacity::JobRecord& r) {
        capacity::JobRecord copy = r;
        copy.job = nullptr;
        copy.pool = {};
        copy.gpu = {};
        copy.reason = {};
        run.status[r.job->id] = std::string(r.status);
        run.jobs[r.job->id] = copy;
    });
    return run;
}

// One reserved node of 8 GPUs and five jobs (estimates: the recorded durations):
//   A t=0 4 GPUs 1000 s, B t=1 8 GPUs 500 s, C t=2 4 GPUs 900 s, D t=3 4 GPUs 2000 s, E t=4 8 GPUs 100 s.
std::vector<jobs::Job> five_jobs() {
    return {job(0, 4, 1000), job(1, 8, 500), job(2, 4, 900), job(3, 4, 2000), job(4, 8, 100)};
}

ClusterConfig one_node(const std::string& scheduler) {
    ClusterConfig c;
    c.scheduler = scheduler;
    c.estimate = capacity::DurationEstimate::recorded;
    c.pools = {pool("base", PoolKind::reserved, 1, 1)};
    return c;
}

// The start times of A to E, each checked to within a nanosecond.
void check_starts(const Run& r, const std::vector<double>& expected) {
    const char* ids[] = {"j0-4-1000", "j1-8-500", "j2-4-900", "j3-4-2000", "j4-8-100"};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("job " << "ABCDE"[i]);
        CHECK(r.jobs.at(ids[i]).start_s == doctest::Approx(expected[i]).epsilon(1e-12));
    }
}

}  // namespace

TEST_CASE("FIFO runs five jobs in arrival order and a blocked head blocks the queue") {
    // A 0-1000; B needs the whole node: 1000-1500; C and D share it from 1500 (C to 2400, D to
    // 3500); E needs the whole node again: 3500-3600.
    const Run r = replay(one_node("fifo"), five_jobs());
    check_starts(r, {0, 1000, 1500, 1500, 3500});
    CHECK(r.result.makespan_s == doctest::Approx(3600));
    CHECK(r.result.wait_s.max == doctest::Approx(3496));
    CHECK(r.result.finished == 5);
}

TEST_CASE("EASY backfill starts C beside A because it ends before B's reservation, but not D") {
    // B's reservation is at 1000 (A's end). C (ends at 902) backfills at 2; D would end at 2902 or
    // later and would delay B: it waits. Then FIFO again: B 1000-1500, D 1500-3500, E 3500-3600.
    const Run r = replay(one_node("backfill"), five_jobs());
    check_starts(r, {0, 1000, 2, 1500, 3500});
    CHECK(r.jobs.at("j2-4-900").wait_s == doctest::Approx(0));
    CHECK(r.jobs.at("j3-4-2000").wait_s == doctest::Approx(1497));
}

TEST_CASE("EASY backfill tries at most 100 jobs behind a blocked head, counting those too large to place") {
    // A (4 GPUs, 0-1000) runs; B (8 GPUs) heads the queue with its reservation at 1000; then n
    // jobs of 8 GPUs, which cannot start while A holds half the node; then X (4 GPUs, 100 s), which
    // would end long before 1000. X is the (n + 1)th job tried behind B: it backfills at its
    // arrival when that is within Slurm's bf_max_job_test of 100, and waits for A's end otherwise.
    for (const int n : {99, 100}) {
        CAPTURE(n);
        std::vector<jobs::Job> trace{job(0, 4, 1000), job(1, 8, 500)};
        for (int i = 0; i < n; ++i) trace.push_back(job(2 + i, 8, 500));
        trace.push_back(job(2 + n, 4, 100));
        const Run r = replay(one_node("backfill"), trace);
        const auto& x = r.jobs.at("j" + std::to_string(2 + n) + "-4-100");
        if (n < capacity::backfill_max_jobs) CHECK(x.start_s == doctest::Approx(2 + n));
        else CHECK(x.start_s >= 1000);
        CHECK(r.result.finished == n + 3);
    }
}

TEST_CASE("SJF orders the queue by estimated GPU-seconds: E (800) before B (4000) before D (8000)") {
    // C (3600 GPU-s) passes B at 2 and fits beside A; E heads the queue from 4 and starts when A
    // ends at 1000; B follows at 1100, D at 1600.
    const Run r = replay(one_node("sjf"), five_jobs());
    check_starts(r, {0, 1100, 2, 1600, 1000});
    CHECK(r.jobs.at("j4-8-100").wait_s == doctest::Approx(996));
}

TEST_CASE("SJF with the user-mean estimate uses the user's finished jobs, not the job's own duration") {
    // Users x and y: x's first job (100 s) finishes first, so x's later job is estimated at 100 s
    // although it runs 5000 s; y's job is estimated at the trace's mean so far (100 s as well:
    // ties fall to arrival order). With the oracle, y's 200 s job would go first.
    ClusterConfig c = one_node("sjf");
    c.estimate = capacity::DurationEstimate::user_mean;
    std::vector<jobs::Job> trace = {job(0, 8, 100, "x"), job(1, 8, 5000, "x"), job(2, 8, 200, "y")};
    Run r = replay(c, trace);
    CHECK(r.jobs.at("j1-8-5000").start_s == doctest::Approx(100));
    CHECK(r.jobs.at("j2-8-200").start_s == doctest::Approx(5100));
    c.estimate = capacity::DurationEstimate::recorded;
    r = replay(c, trace);
    CHECK(r.jobs.at("j2-8-200").start_s == doctest::Approx(100));
    CHECK(r.jobs.at("j1-8-5000").start_s == doctest::Approx(300));
}

TEST_CASE("a job no pool can hold is refused at submission and never blocks the queue") {
    ClusterConfig c = one_node("fifo");
    c.pools = {pool("base", PoolKind::reserved, 64, 64)};  // 512 GPUs
    const Run r = replay(c, {job(0, 2048, 60), job(1, 8, 60)});
    CHECK(r.result.unschedulable == 1);
    CHECK(r.status.at("j0-2048-60") == "unschedulable");
    REQUIRE(r.result.unschedulable_examples.size() == 1);
    CHECK(r.result.unschedulable_examples[0] == "j0-2048-60: 2048 GPUs asked, at most 512 in a pool it may use");
    CHECK(r.jobs.at("j1-8-60").wait_s == doctest::Approx(0));
    CHECK(r.result.finished == 1);
}

TEST_CASE("a job larger than a node takes whole nodes of one pool at once") {
    // Two nodes; a 4-GPU job holds node 0 until 1000, so the 16-GPU job waits for both nodes.
    ClusterConfig c = one_node("fifo");
    c.pools = {pool("base", PoolKind::reserved, 2, 2)};
    const Run r = replay(c, {job(0, 4, 1000), job(1, 16, 100), job(2, 4, 10)});
    CHECK(r.jobs.at("j1-16-100").start_s == doctest::Approx(1000));
    CHECK(r.jobs.at("j2-4-10").start_s == doctest::Approx(1100));  // FIFO: behind the gang job
}

TEST_CASE("reserved nodes are billed for the whole replay, busy or idle") {
    // Two reserved nodes at $10/h; one 8-GPU job of an hour: both nodes billed an hour, $20, and
    // the job's share is its own node-hour, $10.
    ClusterConfig c = one_node("fifo");
    c.pools = {pool("base", PoolKind::reserved, 2, 2, 10.0)};
    const Run r = replay(c, {job(0, 8, 3600)});
    CHECK(r.result.cost_usd == doctest::Approx(20.0));
    CHECK(r.result.pools[0].billed_node_hours == doctest::Approx(2.0));
    CHECK(r.jobs.at("j0-8-3600").cost_usd == doctest::Approx(10.0));
    CHECK(r.result.gpu_utilization == doctest::Approx(0.5));
    CHECK(r.result.cost_per_useful_gpu_hour == doctest::Approx(20.0 / 8.0));
}

namespace {

// One on-demand pool scaled from 0 to 1 node at $10/h, no start-up delay, the autoscaler at once.
ClusterConfig burst(double increment_s, double minimum_s, capacity::Release release) {
    ClusterConfig c;
    c.scheduler = "fifo";
    Pool p = pool("burst", PoolKind::on_demand, 0, 1, 10.0);
    p.billing_increment_s = increment_s;
    p.minimum_billed_s = minimum_s;
    c.pools = {p};
    c.autoscaler.queue_wait_s = 0;
    c.autoscaler.idle_timeout_s = 600;
    c.autoscaler.release = release;
    return c;
}

}  // namespace

TEST_CASE("hourly billing: a billing-aware release ends the lease at the paid hour, a plain timeout pays a second hour") {
    // A 55-minute job on a node leased at 0 and billed by the hour. Billing-aware: idle at 3300 s,
    // released at 3600 s, the end of the hour paid: $10. Timeout: released at 3300 + 600 = 3900 s,
    // five minutes into the second hour, which is billed whole: $20.
    const std::vector<jobs::Job> trace = {job(0, 8, 3300)};
    const Run aware = replay(burst(3600, 3600, capacity::Release::billing_aware), trace);
    CHECK(aware.result.cost_usd == doctest::Approx(10.0));
    CHECK(aware.result.pools[0].billed_node_hours == doctest::Approx(1.0));
    const Run naive = replay(burst(3600, 3600, capacity::Release::timeout), trace);
    CHECK(naive.result.cost_usd == doctest::Approx(20.0));
    // Per-second billing: the idle timeout is kept: 3300 + 600 s billed, $10.8333.
    const Run fine = replay(burst(1, 60, capacity::Release::billing_aware), trace);
    CHECK(fine.result.cost_usd == doctest::Approx(10.0 * 3900 / 3600));
}

TEST_CASE("an idle node kept to the end of its paid hour takes the next job without a new lease") {
    // Job 1 ends at 1000 s; job 2 arrives at 3000 s, inside the hour paid: the same node, one
    // lease; busy until 3500 s, then idle to the end of the hour and released: $10.
    const Run r = replay(burst(3600, 3600, capacity::Release::billing_aware), {job(0, 8, 1000), job(3000, 8, 500)});
    CHECK(r.result.pools[0].leases == 1);
    CHECK(r.result.cost_usd == doctest::Approx(10.0));
    CHECK(r.jobs.at("j3000-8-500").wait_s == doctest::Approx(0));
}

TEST_CASE("on-demand minimum: a 10 s lease is billed 60 s") {
    ClusterConfig c = burst(1, 60, capacity::Release::timeout);
    c.autoscaler.idle_timeout_s = 0;
    const Run r = replay(c, {job(0, 8, 10)});
    CHECK(r.result.pools[0].billed_node_hours == doctest::Approx(60.0 / 3600));
    CHECK(r.result.cost_usd == doctest::Approx(10.0 * 60 / 3600));
}

TEST_CASE("the autoscaler waits for the queue threshold and pays the start-up delay") {
    // One reserved node busy for 2 h; a second job waits 600 s (the threshold), then a node is
    // requested and starts it 300 s later (start-up): wait 900 s.
    ClusterConfig c = one_node("fifo");
    Pool od = pool("burst", PoolKind::on_demand, 0, 4, 20.0);
    od.startup_s = 300;
    c.pools.push_back(od);
    c.autoscaler.queue_wait_s = 600;
    const Run r = replay(c, {job(0, 8, 7200), job(0, 8, 1000)});
    CHECK(r.jobs.at("j0-8-1000").wait_s == doctest::Approx(900));
    CHECK(r.result.pools[1].peak_nodes == 1);
    // Billed from the request (600 s) to the release: per-second billing, idle 600 s after 1900 s.
    CHECK(r.result.pools[1].billed_node_hours == doctest::Approx((2500.0 - 600.0) / 3600));
}

namespace {

// A spot pool whose node is reclaimed at 2000 s (a recorded trace with one node alive, so that
// the reclaim is certain), then not again for 100,000 s.
Pool reclaimed_at_2000(int nodes, int max_nodes) {
    Pool p = pool("spot", PoolKind::spot, nodes, max_nodes, 4.0);
    auto trace = std::make_shared<price::SpotTrace>();
    trace->name = "test";
    trace->events = {{units::seconds(0), true, "n", 0}, {units::seconds(2000), false, "n", 1},
                     {units::seconds(100000), true, "n", 0}};
    trace->span = units::seconds(100000);
    p.spot_trace = trace;
    return p;
}

}  // namespace

TEST_CASE("a spot reclaim loses the work since the last checkpoint and pays the restart") {
    // A spot node reclaimed at 2000 s by a recorded trace (one node alive, so it is certain). The
    // job checkpointed at 1800 s: 1800 s of work remain; restarted at once on a new node (no
    // start-up) after 600 s of restart: it finishes at 2000 + 600 + 1800 = 4400 s.
    ClusterConfig c;
    c.scheduler = "fifo";
    c.pools = {reclaimed_at_2000(0, 1)};
    c.autoscaler.queue_wait_s = 0;
    c.checkpoint_interval_s = 1800;
    c.restart_s = 600;
    const Run r = replay(c, {job(0, 8, 3600, "u", true)});
    const auto& j = r.jobs.at("j0-8-3600");
    CHECK(j.end_s == doctest::Approx(4400));
    CHECK(j.preemptions == 1);
    CHECK(r.result.preemptions == 1);
    CHECK(r.result.pools[0].preemptions == 1);
    CHECK(r.result.pools[0].leases == 2);
    CHECK(r.result.useful_gpu_hours == doctest::Approx(8.0));
    // Held 2000 s, then 2400 s, at $4 per node-hour.
    CHECK(j.cost_usd == doctest::Approx(4.0 * 4400 / 3600));
    // Billed: 0-2000 s, and 2000 s to the release 600 s after the finish.
    CHECK(r.result.cost_usd == doctest::Approx(4.0 * (2000 + 3000) / 3600.0));
}

TEST_CASE("a reclaimed node of a fixed spot pool is replaced, so its jobs still finish") {
    // One spot node held throughout (no autoscaler): the replacement is requested at 2000 s and
    // ready at once (no start-up), and the job ends at 2000 + 600 + 1800 s as above.
    ClusterConfig c;
    c.scheduler = "fifo";
    c.pools = {reclaimed_at_2000(1, 1)};
    c.checkpoint_interval_s = 1800;
    c.restart_s = 600;
    const Run r = replay(c, {job(0, 8, 3600, "u", true)});
    CHECK(r.jobs.at("j0-8-3600").end_s == doctest::Approx(4400));
    CHECK(r.result.pools[0].leases == 2);
    CHECK(r.result.gave_up == 0);
}

TEST_CASE("a job that is not spot_ok never runs on spot") {
    ClusterConfig c;
    c.scheduler = "fifo";
    Pool p = pool("spot", PoolKind::spot, 1, 1, 4.0);
    p.preempt_mean_h = 1000;
    c.pools = {p};
    const Run r = replay(c, {job(0, 8, 60)});
    CHECK(r.result.unschedulable == 1);
    CHECK(r.result.unschedulable_examples[0] == "j0-8-60: no pool it may use (spot only, and the job is not spot_ok)");
}

TEST_CASE("durations recorded on V100 run faster on A100 by the ratio of their 16-bit peaks") {
    // V100 SXM2: 125 TFLOP/s, A100: 312 TFLOP/s dense fp16 (GPU catalog): 2496 s become 1000 s.
    ClusterConfig c = one_node("fifo");
    c.trace_gpu = "v100-sxm2-16gb";
    const auto v100 = compute::peak(compute::find_gpu("v100-sxm2-16gb"), compute::Precision::fp16).value;
    const auto a100 = compute::peak(compute::find_gpu("a100-sxm4-80gb"), compute::Precision::fp16).value;
    CHECK(v100 == doctest::Approx(125e12));
    CHECK(a100 == doctest::Approx(312e12));
    const Run r = replay(c, {job(0, 8, 2496)});
    CHECK(r.jobs.at("j0-8-2496").end_s == doctest::Approx(1000));
    // A job with a recorded type runs only on its GPU (strict, the default) unless allowed
    // another; then at that GPU's speed: 2496 s recorded on V100 (its label's first catalog
    // part, v100-sxm2-16gb) take 1000 s on the A100.
    jobs::Job v = job(0, 1, 2496);
    v.gpu_type = "V100";
    const Run strict = replay(c, {v});
    CHECK(strict.result.unschedulable == 1);
    CHECK(strict.result.unschedulable_examples[0] ==
          "j0-1-2496: no pool of its GPU type V100 (allow others in gpu_types.allow, or set gpu_types.strict false)");
    c.gpu_type_allow["V100"] = {"a100-sxm4-80gb"};
    const Run allowed = replay(c, {v});
    CHECK(allowed.jobs.at("j0-1-2496").end_s == doctest::Approx(1000));
    c.gpu_type_allow.clear();
    c.gpu_type_strict = false;
    CHECK(replay(c, {v}).jobs.at("j0-1-2496").end_s == doctest::Approx(1000));
}

TEST_CASE("the same config and seed replay identically, and another seed differs") {
    ClusterConfig c;
    c.scheduler = "backfill";
    Pool s = pool("spot", PoolKind::spot, 0, 6, 4.0);
    s.preempt_mean_h = 2;
    s.startup_s = 120;
    c.pools = {pool("base", PoolKind::reserved, 2, 2), s};
    std::vector<jobs::Job> trace;
    for (int i = 0; i < 300; ++i)
        trace.push_back(job(i * 97.0, 1 << (i % 5), 600.0 + (i * 7919) % 9000, "u" + std::to_string(i % 7), i % 2 == 0));
    const Run a = replay(c, trace), b = replay(c, trace);
    CHECK(a.result.fingerprint == b.result.fingerprint);
    CHECK(a.result.cost_usd == b.result.cost_usd);
    CHECK(a.result.wait_s.p95 == b.result.wait_s.p95);
    CHECK(a.result.preemptions > 0);
    c.seed = 2;
    const Run d = replay(c, trace);
    CHECK(d.result.fingerprint != a.result.fingerprint);
    // Every job is accounted for, and busy GPU time never exceeds held GPU time.
    CHECK(a.result.finished + a.result.unschedulable + a.result.gave_up == 300);
    CHECK(a.result.gpu_utilization <= 1.0);
    for (const auto& row : a.result.utilization) CHECK(row.busy_gpus <= row.held_gpus + 1e-9);
}

TEST_CASE("percentiles are nearest-rank over values kept to four significant digits") {
    capacity::QuantileSketch q;
    for (double v : {10.0, 20.0, 30.0, 40.0, 3600.0}) q.add(v);
    CHECK(q.quantile(0.5) == 30.0);
    CHECK(q.quantile(0.8) == 40.0);
    CHECK(q.quantile(0.95) == 3600.0);
    CHECK(q.mean() == doctest::Approx(740.0));
    CHECK(capacity::QuantileSketch::kept(1.2346) == doctest::Approx(1.235));   // to the ms below 10 s
    CHECK(capacity::QuantileSketch::kept(12345.6) == doctest::Approx(12350));  // four digits above
    CHECK(capacity::QuantileSketch::kept(3600) == 3600.0);
}

TEST_CASE("every scheduler is named in the registry with a description") {
    for (const auto& e : capacity::policy_registry().entries()) CHECK(!e.description.empty());
    CHECK(capacity::policy_registry().unknown_message("backfil") ==
          "unknown scheduler 'backfil'; did you mean 'backfill'? valid: fifo, sjf, backfill");
}

namespace {

// A spot pool of `nodes` fixed nodes (no preemptions: no rate, no trace) at a catalog price of
// $4 per node-hour, its price moving as `steps` (absolute: the history is of its instance).
Pool moving_spot(int nodes, std::vector<price::SpotPriceStep> steps, double offset_s = 0, bool relative = false) {
    Pool p = pool("spot", PoolKind::spot, nodes, nodes, 4.0);
    auto h = std::make_shared<price::SpotPriceHistory>();
    h->name = "test-history";
    h->instance = p.instance;
    h->start = "2020-01-01T00:00:00Z";
    h->zones.push_back({"zone-a", std::move(steps)});
    h->span_s = h->zones[0].steps.back().time_s;
    p.spot_price.history = h;
    p.spot_price.series = &h->zones[0];
    p.spot_price.offset_s = offset_s;
    p.spot_price.relative = relative;
    p.spot_price.mean_usd_per_hour = h->zones[0].mean(h->span_s);
    return p;
}

}  // namespace

TEST_CASE("a spot node that runs across a price change pays each price for its own seconds") {
    // One spot node held 0-3600 s by one 8-GPU job; the price is $2/h to 1800 s, then $6/h:
    // 1800 s x 2 + 1800 s x 6 = $4.00 (the catalog's $4/h would also give $4: so shift it).
    ClusterConfig c;
    c.scheduler = "fifo";
    c.pools = {moving_spot(1, {{0, 2.0}, {1800, 6.0}})};
    Run r = replay(c, {job(0, 8, 3600, "u", true)});
    CHECK(r.result.pools[0].billed_node_hours == doctest::Approx(1.0));
    CHECK(r.result.cost_usd == doctest::Approx((1800 * 2.0 + 1800 * 6.0) / 3600));
    CHECK(r.jobs.at("j0-8-3600").cost_usd == doctest::Approx(4.0));
    // The history's 900 s is the replay's 0: 900 s at $2, 2700 s at $6 = $5.00.
    c.pools = {moving_spot(1, {{0, 2.0}, {1800, 6.0}}, 900)};
    r = replay(c, {job(0, 8, 3600, "u", true)});
    CHECK(r.result.cost_usd == doctest::Approx((900 * 2.0 + 2700 * 6.0) / 3600));
    CHECK(r.jobs.at("j0-8-3600").cost_usd == doctest::Approx(5.0));
    // Relative: the catalog $4/h times price / mean, the mean over the history's 1800 s being
    // $2 (the last step starts at its end): 1800 s x 4 x 1 + 1800 s x 4 x 3 = $8.00.
    c.pools = {moving_spot(1, {{0, 2.0}, {1800, 6.0}}, 0, true)};
    r = replay(c, {job(0, 8, 3600, "u", true)});
    CHECK(r.result.cost_usd == doctest::Approx(8.0));
}

TEST_CASE("a spot pool's cost is the integral of the price in force over its billed time") {
    // Two fixed spot nodes, held to the last finish; a price that changes every 97 s. The
    // expected cost sums the price second by second (every change falls on a whole second).
    std::vector<price::SpotPriceStep> steps;
    for (int i = 0; i < 200; ++i) steps.push_back({97.0 * i, 1.0 + (i * 37 % 11) / 4.0});
    ClusterConfig c;
    c.scheduler = "backfill";
    c.estimate = capacity::DurationEstimate::recorded;
    c.pools = {moving_spot(2, steps)};
    const Run r = replay(c, {job(0, 8, 5000, "u", true), job(10, 4, 700, "u", true), job(20, 4, 9000, "u", true),
                             job(30, 16, 1200, "u", true), job(4000, 2, 333, "u", true)});
    CHECK(r.result.finished == 5);
    const double end = r.result.makespan_s;
    REQUIRE(end == std::floor(end));
    double usd = 0;
    for (int t = 0; t < static_cast<int>(end); ++t) usd += c.pools[0].spot_price.series->price_at(t + 0.5) / 3600.0;
    CHECK(r.result.pools[0].billed_node_hours == doctest::Approx(2 * end / 3600));
    CHECK(r.result.cost_usd == doctest::Approx(2 * usd).epsilon(1e-12));
}

TEST_CASE("a constant history at the catalog price bills exactly as the catalog price") {
    // A scaled spot pool reclaimed by a trace, beside reserved and on-demand pools: every figure
    // of the result is the same double with and without the history.
    const auto config = [](bool history) {
        ClusterConfig c;
        c.scheduler = "backfill";
        Pool spot = reclaimed_at_2000(0, 3);
        if (history) {
            const Pool priced = moving_spot(0, {{0, 4.0}});
            spot.spot_price = priced.spot_price;
        }
        Pool od = pool("burst", PoolKind::on_demand, 0, 2, 20.0);
        od.startup_s = 120;
        c.pools = {pool("base", PoolKind::reserved, 1, 1), spot, od};
        c.autoscaler.queue_wait_s = 60;
        return c;
    };
    std::vector<jobs::Job> trace;
    for (int i = 0; i < 40; ++i) trace.push_back(job(i * 311.0, 1 + i % 8 * (i % 3 == 0 ? 2 : 1), 200.0 + i * 97 % 3000, "u", i % 2 == 0));
    const Run a = replay(config(false), trace);
    const Run b = replay(config(true), trace);
    CHECK(a.result.cost_usd == b.result.cost_usd);
    CHECK(a.result.cost_per_useful_gpu_hour == b.result.cost_per_useful_gpu_hour);
    REQUIRE(a.result.pools.size() == b.result.pools.size());
    for (std::size_t i = 0; i < a.result.pools.size(); ++i) {
        CHECK(a.result.pools[i].cost_usd == b.result.pools[i].cost_usd);
        CHECK(a.result.pools[i].billed_node_hours == b.result.pools[i].billed_node_hours);
    }
    CHECK(a.result.pools[1].cost_usd > 0);
    CHECK(a.result.fingerprint == b.result.fingerprint);
    for (const auto& [id, rec] : a.jobs) CHECK(rec.cost_usd == b.jobs.at(id).cost_usd);
}

namespace {

jobs::Job with_priority(jobs::Job j, int priority) {
    j.priority = priority;
    return j;
}

// One reserved 8-GPU node, checkpoints every 1800 s, restarts of 600 s, and three jobs:
//   A t=0 4 GPUs 4000 s, B t=100 4 GPUs 3000 s (both priority 0, spot_ok: preemptible),
//   C t=2000 4 GPUs 1000 s, priority 1, not spot_ok.
Run three_jobs(bool priority_preemption) {
    ClusterConfig c = one_node("fifo");
    c.checkpoint_interval_s = 1800;
    c.restart_s = 600;
    c.priority_preemption = priority_preemption;
    return replay(c, {job(0, 4, 4000, "u", true), job(100, 4, 3000, "u", true), with_priority(job(2000, 4, 1000), 1)});
}

}  // namespace

TEST_CASE("priority preemption interrupts the lower-priority job that loses the least work") {
    // At 2000 s the node is full. A has computed 2000 s (checkpoint at 1800: loses 200 s x 4
    // GPUs = 800 GPU-s), B 1900 s (checkpoint at 1800: loses 100 s x 4 = 400 GPU-s): B is
    // interrupted, C runs 2000-3000 s, B restarts at 3000 s and pays 600 s of restart and its
    // remaining 3000 - 1800 = 1200 s: it ends at 4800 s. A is untouched and ends at 4000 s.
    const Run r = three_jobs(true);
    CHECK(r.jobs.at("j2000-4-1000").start_s == doctest::Approx(2000));
    CHECK(r.jobs.at("j2000-4-1000").end_s == doctest::Approx(3000));
    CHECK(r.jobs.at("j100-4-3000").end_s == doctest::Approx(4800));
    CHECK(r.jobs.at("j100-4-3000").preemptions == 1);
    CHECK(r.jobs.at("j0-4-4000").end_s == doctest::Approx(4000));
    CHECK(r.jobs.at("j0-4-4000").preemptions == 0);
    CHECK(r.result.priority_preemptions == 1);
    CHECK(r.result.preemptions == 0);  // no spot reclaim
    // Work kept is all the work: 4 x (4000 + 3000 + 1000) GPU-s.
    CHECK(r.result.useful_gpu_hours == doctest::Approx(4.0 * 8000 / 3600));
    // Without it C waits for B, which ends at 3100 s.
    const Run off = three_jobs(false);
    CHECK(off.jobs.at("j2000-4-1000").start_s == doctest::Approx(3100));
    CHECK(off.result.priority_preemptions == 0);
}

TEST_CASE("priority preemption spares jobs that are not spot_ok and jobs of equal priority") {
    ClusterConfig c = one_node("fifo");
    c.priority_preemption = true;
    // A is not spot_ok, B has C's priority: C waits for A (ends 4000 s) although B ends later.
    const Run r = replay(c, {with_priority(job(0, 4, 4000), 0), with_priority(job(100, 4, 5000, "u", true), 1),
                             with_priority(job(2000, 4, 1000), 1)});
    CHECK(r.jobs.at("j2000-4-1000").start_s == doctest::Approx(4000));
    CHECK(r.result.priority_preemptions == 0);
}

TEST_CASE("a gang of higher priority empties the whole nodes cheapest to empty") {
    // Two reserved nodes, each running one preemptible 8-GPU job; a 16-GPU job of priority 1
    // needs both: both are interrupted (2 priority preemptions) and it starts at once.
    ClusterConfig c = one_node("fifo");
    c.pools = {pool("base", PoolKind::reserved, 2, 2)};
    c.priority_preemption = true;
    c.checkpoint_interval_s = 1800;
    c.restart_s = 600;
    const Run r = replay(c, {job(0, 8, 4000, "u", true), job(0, 8, 4001, "v", true), with_priority(job(1000, 16, 500), 1)});
    CHECK(r.jobs.at("j1000-16-500").start_s == doctest::Approx(1000));
    CHECK(r.result.priority_preemptions == 2);
    // Each lost its 1000 s (no checkpoint yet) and restarts at 1500 s: 600 s + its whole run.
    CHECK(r.jobs.at("j0-8-4000").end_s == doctest::Approx(6100));
    CHECK(r.jobs.at("j0-8-4001").end_s == doctest::Approx(6101));
    CHECK(r.jobs.at("j0-8-4000").preemptions == 1);
}
