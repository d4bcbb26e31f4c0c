// The capacity simulator: replays a stream of recorded jobs on rented pools with a scheduler and
// an autoscaler, on the event engine (sim/engine.hpp). Jobs are read from the stream one at a
// time ahead of the clock, so that memory follows the jobs in flight (queued or running), not the
// trace. Deterministic: the same config, seed and jobs give the same result.
//
// A job of at most one node's GPUs runs on one node (best fit); a larger job takes whole nodes of
// one pool at once (gang). Pools are tried reserved first, then spot (for spot_ok jobs), then
// on-demand, each kind cheapest first. A job no pool could ever hold is refused at submission.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/capacity/config.hpp"
#include "analysis/jobs/job.hpp"

namespace rentsim::capacity {

// A job as it left the simulator: finished, refused at submission, or given up.
struct JobRecord {
    const jobs::Job* job = nullptr;  // valid during the call only
    std::string_view status;         // "done", "unschedulable", "gave up"
    std::string_view reason;         // why it was refused or given up; empty when done
    double start_s = -1;             // first start; -1 when it never ran
    double end_s = -1;               // finish; -1 when it did not finish
    double wait_s = 0;               // submission to first start
    double jct_s = 0;                // submission to finish
    std::string_view pool;           // where it finished (or last ran); empty if never
    std::string_view gpu;            // that pool's GPU
    int preemptions = 0;             // interruptions: spot reclaims and higher-priority jobs
    double cost_usd = 0;             // its GPUs' held time at its pools' prices
    double duration_factor = -1;     // run time on its (last) pool over the recorded; -1 if it never ran
    std::string_view workload_class; // its workload class (config.workload_classes); empty: none
};
using JobSink = std::function<void(const JobRecord&)>;

struct Summary {
    double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

struct PoolResult {
    std::string name;
    PoolKind kind = PoolKind::on_demand;
    int nodes = 0, max_nodes = 0, peak_nodes = 0;
    std::int64_t leases = 0;       // nodes provisioned (scaled pools; the floor nodes count once each)
    std::int64_t preemptions = 0;  // spot nodes reclaimed
    double billed_node_hours = 0;
    double busy_gpu_hours = 0;     // GPUs held by jobs
    double cost_usd = 0;
};

struct UtilizationRow {
    double start_s = 0;     // the row covers [start_s, start_s + interval)
    double held_gpus = 0;   // mean GPUs of nodes held (provisioning or ready)
    double busy_gpus = 0;   // mean GPUs held by jobs
};

struct ClusterResult {
    std::int64_t jobs = 0;           // jobs read (finished + refused + given up)
    std::int64_t finished = 0;
    std::int64_t unschedulable = 0;
    std::int64_t gave_up = 0;        // preempted more than max_preemptions_per_job times, or left
                                     // queued with nothing running and no node coming
    std::vector<std::string> unschedulable_examples;  // "id: reason", the first ones
    Summary wait_s, jct_s;           // over finished jobs
    double makespan_s = 0;           // last finish
    double gpu_utilization = 0;      // busy over held GPU-seconds up to the makespan
    double cost_usd = 0;
    double useful_gpu_hours = 0;     // GPU-hours of work kept (lost work and restarts excluded)
    double cost_per_useful_gpu_hour = 0;
    std::int64_t preemptions = 0;    // job interruptions by spot reclaims
    std::int64_t priority_preemptions = 0;  // job interruptions for a higher-priority job
    std::int64_t peak_jobs_in_flight = 0;
    double utilization_interval_s = 0;
    std::vector<PoolResult> pools;
    std::vector<UtilizationRow> utilization;
    std::vector<std::string> assumptions;
    std::uint64_t fingerprint = 0;   // the engine's, to pin runs in tests
};

// A job preempted this many times is given up (a pool whose preemptions come faster than its
// checkpoints would otherwise never finish it).
inline constexpr int max_preemptions_per_job = 100;
// Refused jobs listed by name in the result; the rest are counted.
inline constexpr std::size_t max_listed_unschedulable = 20;
// SJF's and backfill's estimate before any job has finished (user_mean): one hour, an assumption.
inline constexpr double initial_estimate_s = 3600.0;

// Replays `reader` on `config` (pools validated by the loader: at least one, nodes and max_nodes
// consistent). `sink`, if set, sees every job as it leaves. Throws std::invalid_argument on an
// unknown scheduler name.
ClusterResult simulate_cluster(const ClusterConfig& config, jobs::JobReader& reader, const JobSink& sink = {});

// A reader over jobs in memory, in the order given.
class VectorJobReader : public jobs::JobReader {
public:
    explicit VectorJobReader(std::vector<jobs::Job> jobs) : jobs_(std::move(jobs)) {}
    std::optional<jobs::Job> next() override;
    std::int64_t skipped() const override { return 0; }
    const std::vector<jobs::BadRow>& bad_rows() const override { return none_; }

private:
    std::vector<jobs::Job> jobs_;
    std::size_t next_ = 0;
    std::vector<jobs::BadRow> none_;
};

}  // namespace rentsim::capacity
