// What `rentsim cluster` writes: a table for people, JSON (schema 1) and CSV for programs.
#pragma once

#include <string>

#include "analysis/capacity/config.hpp"
#include "analysis/capacity/simulator.hpp"

namespace rentsim::capacity {

std::string_view to_string(PoolKind kind);

// The summary: jobs, waits and completion times, cost by pool, utilisation, assumptions.
std::string format_cluster(const std::string& name, const ClusterConfig& config, const ClusterResult& r);
// {"schema": 1, "name", "scheduler", "jobs", "finished", "unschedulable", "unschedulable_jobs",
//  "gave_up", "skipped_rows", "wait_s": {mean, p50, p95, p99, max}, "jct_s": {...}, "makespan_s",
//  "gpu_utilization", "cost_usd", "useful_gpu_hours", "cost_per_useful_gpu_hour_usd",
//  "preemptions", "peak_jobs_in_flight", "pools": [...], "assumptions": [...]}.
std::string cluster_json(const std::string& name, const ClusterConfig& config, const ClusterResult& r,
                         std::int64_t skipped_rows);
// The GPU utilisation time series: time_s,held_gpus,busy_gpus,utilization.
std::string utilization_csv(const ClusterResult& r);
// The per-job CSV: its header, and one row for a record.
std::string jobs_csv_header();
std::string jobs_csv_row(const JobRecord& r);

}  // namespace rentsim::capacity
