// A rented cluster to replay a job trace on: pools of instances from the price catalog, the
// scheduler, the autoscaler and the assumptions about durations and preemptions. Plain values,
// resolved by the pools-file loader (pools_file.hpp) or built by tests; times in seconds,
// money in USD.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/scenario/scenario.hpp"
#include "models/pricing/spot_price.hpp"
#include "models/pricing/spot_trace.hpp"

namespace rentsim::capacity {

// Start-up of an on-demand or spot node, from the request to its first job: "spinning up a VM in
// EC2 ... can average 5-10 minutes" (highscalability.com, "Are long VM instance spin-up times in
// the cloud costing you money?", 2011-03-17); the low end, as GPU images are preloaded. Per pool:
// `startup_s`.
inline constexpr double default_startup_s = 300.0;
// A preempted job's restart before it computes again (a new node's container, NCCL set-up, the
// checkpoint load): "spot interruptions ... averaging 10-15 minutes of recovery time" (Spheron,
// "Spot GPU Training Resilience", 2026-05-15); the low end. Pools file: `preemption.restart_s`.
inline constexpr double default_restart_s = 600.0;
// How often a job checkpoints: an assumption (traces do not record it), stated in the output.
// Pools file: `preemption.checkpoint_interval_s`.
inline constexpr double default_checkpoint_interval_s = 1800.0;
// How long an autoscaled node stays idle before it is released: the Kubernetes cluster
// autoscaler's `--scale-down-unneeded-time` default of 10 minutes (kubernetes/autoscaler FAQ,
// read 2026-12-01). With hourly billing the billing-aware release overrides it (Autoscaler).
inline constexpr double default_idle_timeout_s = 600.0;
// How often the autoscaler looks at the queue at most: the cluster autoscaler's `--scan-interval`
// default of 10 s (same FAQ).
inline constexpr double autoscaler_scan_s = 10.0;
// EASY backfill tries at most this many queued jobs behind a blocked head per pass: Slurm's
// `bf_max_job_test` default of 100 (slurm.conf manual, SchedulerParameters: "Default: 100",
// read 2026-12-01).
inline constexpr int backfill_max_jobs = 100;
// The autoscaler sizes its request for at most this many waiting jobs per scan (the cluster
// autoscaler looks at every pending pod): a bound on the work of one scan, not a calibration.
inline constexpr int autoscaler_max_jobs = 1000;
// Width of one row of the GPU utilisation time series, unless the pools file says otherwise.
inline constexpr double default_utilization_interval_s = 3600.0;

// A spot pool's price as it moved: a recorded history (models/pricing/spot_price.hpp), one zone
// of it, aligned so that the replay's time 0 (the trace's first submission, or time 0 of the
// trace's clock) is the history's time 0 plus offset_s.
struct SpotPrice {
    std::shared_ptr<const price::SpotPriceHistory> history;
    const price::SpotPriceSeries* series = nullptr;  // a zone of *history
    double offset_s = 0;
    // false: the history's prices are the pool's (same instance type); true: the pool's catalog
    // price is scaled by the history's price over its mean (another instance type, or to keep
    // the catalog's level).
    bool relative = false;
    double mean_usd_per_hour = 0;  // of the series over the history's span
};

enum class PoolKind : std::uint8_t {
    reserved,   // reserved or committed: every node billed for the whole replay
    on_demand,  // per use, after a start-up delay, by the provider's increments and minimum
    spot,       // per use at the spot price; preempted
};

struct Pool {
    std::string name;
    std::string provider, instance, plan, region;  // the catalog row
    std::string price_source;                      // the row's source and date
    std::string gpu;                               // GPU catalog name; empty when not in it
    int gpus_per_node = 8;
    PoolKind kind = PoolKind::on_demand;
    int nodes = 0;       // held from the start; a scaled pool never shrinks below it
    int max_nodes = 0;   // >= nodes; a reserved pool has max_nodes == nodes
    double usd_per_node_hour = 0;
    double billing_increment_s = 1;
    double minimum_billed_s = 60;
    double startup_s = default_startup_s;
    // Spot: each node is reclaimed after an exponential time of this mean, or as the trace's
    // fleet loses nodes (each alive node with probability 1 / the trace's nodes alive).
    double preempt_mean_h = 0;
    std::shared_ptr<const price::SpotTrace> spot_trace;
    SpotPrice spot_price;  // series == nullptr: every second at usd_per_node_hour

    bool scalable() const { return kind != PoolKind::reserved && max_nodes > nodes; }
    double usd_per_gpu_second() const { return usd_per_node_hour / 3600.0 / gpus_per_node; }
    // One node held over [from_s, from_s + length_s] of the replay, as seconds at
    // usd_per_node_hour: the integral of the price in force over the catalog price. Exactly
    // length_s without a history (or with one whose price is constant at the divisor).
    double priced_seconds(double from_s, double length_s) const {
        if (!spot_price.series) return length_s;
        const double per = spot_price.relative ? spot_price.mean_usd_per_hour : usd_per_node_hour;
        return spot_price.series->weighted_seconds(from_s + spot_price.offset_s, length_s, per);
    }
};

enum class Release : std::uint8_t {
    billing_aware,  // keep an idle node while it is paid for: release it at the end of the paid increment
    timeout,        // release after idle_timeout_s, whatever the billing
};

// Adds nodes to on-demand and spot pools when a job has waited queue_wait_s, or queue_length
// jobs wait; releases nodes idle for idle_timeout_s. Billing-aware release: when the billing
// increment is longer than the idle timeout (hourly billing), an idle node is released at the end
// of the increment already paid (one minute into a new hour would pay a whole hour for nothing);
// with finer billing, after the timeout, but never before the minimum billed time is used.
struct Autoscaler {
    double queue_wait_s = 600.0;
    int queue_length = 0;  // 0: only the wait triggers
    double idle_timeout_s = default_idle_timeout_s;
    Release release = Release::billing_aware;
};

// How the scheduler estimates a job's run time (SJF's order, backfill's reservations).
enum class DurationEstimate : std::uint8_t {
    user_mean,  // the mean recorded duration of the user's jobs finished so far; the trace's
                // mean of finished jobs before the user's first
    recorded,   // the recorded duration: an oracle, for comparison
};

// A workload class of the pools file (`workload_classes`): a name and the scenario `workload`
// keys (model, precision, batch, ...) that rentsim's step model runs for jobs of that class.
// A job of a class is rescaled from its recorded GPU to a pool's GPU by the ratio of the two
// step times at the job's GPU count (workload_class.hpp).
struct WorkloadClass {
    std::string name;
    std::vector<std::pair<std::string, analysis::DraftValue>> keys;  // "model" -> "resnet50", ...
};

// Which jobs are of which class (`workload_rules`): every pattern given must match ('*' any
// run of characters, '?' one); the first matching rule wins.
struct WorkloadRule {
    std::string workload, user, vc, id;  // patterns; empty: any
    std::string workload_class;          // a name of ClusterConfig::workload_classes
};

struct ClusterConfig {
    std::vector<Pool> pools;
    std::string scheduler = "backfill";  // a name of policy_registry()
    DurationEstimate estimate = DurationEstimate::user_mean;
    Autoscaler autoscaler;
    // Durations: recorded on `trace_gpu` (or the job's own recorded type, through gpu_type_map),
    // rescaled on a pool of another GPU by the ratio of dense 16-bit tensor peaks. Empty: kept.
    std::string trace_gpu;
    std::map<std::string, std::string> gpu_type_map;  // recorded label -> GPU catalog name
    // A job with a recorded GPU type runs only on pools of that GPU, or of a GPU its label is
    // allowed (rescaled); not strict: on any pool.
    bool gpu_type_strict = true;
    std::map<std::string, std::vector<std::string>> gpu_type_allow;  // recorded label -> GPU names
    // Durations by workload class (empty: the peak ratio above). A job's class: its recorded
    // workload when that names a class, else the first matching rule, else the default class;
    // without one the peak ratio.
    std::vector<WorkloadClass> workload_classes;
    std::vector<WorkloadRule> workload_rules;
    std::string default_workload_class;
    double checkpoint_interval_s = default_checkpoint_interval_s;
    double restart_s = default_restart_s;
    // Priority preemption: when the queue's head cannot start, it may interrupt running spot_ok
    // jobs of strictly lower priority (the jobs that accept interruptions) on the nodes it needs,
    // as a spot reclaim does: they lose their work since the last checkpoint, go back to the
    // queue and pay restart_s. Off: priorities only order the queue.
    bool priority_preemption = false;
    double utilization_interval_s = default_utilization_interval_s;
    std::uint64_t seed = 1;
};

}  // namespace rentsim::capacity
