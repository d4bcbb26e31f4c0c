// What `rentsim cluster` writes: a table for people, JSON (schema 1) and CSV for programs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/capacity/config.hpp"
#include "analysis/capacity/simulator.hpp"
#include "analysis/jobs/job.hpp"

namespace rentsim::capacity {

std::string_view to_string(PoolKind kind);

// What the trace reader left out (jobs/job.hpp JobReader): bad rows skipped (the first ones kept
// with their lines) and valid rows of jobs that used no GPU time.
struct TraceRows {
    std::int64_t skipped = 0;
    std::int64_t not_run = 0;
    std::vector<jobs::BadRow> bad;
};
TraceRows trace_rows(const jobs::JobReader& reader);
// The lines printed before the summary: the skipped rows with the first ones' lines, the not-run
// count; empty when the reader left nothing out.
std::string format_trace_rows(const TraceRows& rows);

// The summary: jobs, waits and completion times, cost by pool, utilisation, assumptions.
std::string format_cluster(const std::string& name, const ClusterConfig& config, const ClusterResult& r);
// {"schema": 1, "name", "scheduler", "jobs", "finished", "unschedulable", "unschedulable_jobs",
//  "gave_up", "skipped_rows", "bad_rows": [{line, message}], "not_run_rows", "wait_s": {mean, p50, p95, p99, max}, "jct_s": {...}, "makespan_s",
//  "gpu_utilization", "cost_usd", "useful_gpu_hours", "cost_per_useful_gpu_hour_usd",
//  "preemptions", "peak_jobs_in_flight", "pools": [...], "assumptions": [...]}.
std::string cluster_json(const std::string& name, const ClusterConfig& config, const ClusterResult& r,
                         const TraceRows& rows);
// The GPU utilisation time series: time_s,held_gpus,busy_gpus,utilization.
std::string utilization_csv(const ClusterResult& r);
// The per-job CSV: its header, and one row for a record. With workload classes (`classes`: the
// config has workload_classes) two more columns: workload_class and duration_factor (run time on
// its pool over the recorded duration).
std::string jobs_csv_header(bool classes = false);
std::string jobs_csv_row(const JobRecord& r, bool classes = false);

}  // namespace rentsim::capacity
