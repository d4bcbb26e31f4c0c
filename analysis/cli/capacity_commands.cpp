#include "analysis/cli/capacity_commands.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "analysis/capacity/plan_search.hpp"
#include "analysis/capacity/pools_file.hpp"
#include "analysis/capacity/report.hpp"
#include "analysis/capacity/simulator.hpp"
#include "analysis/jobs/import.hpp"
#include "analysis/report/atomic_file.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/registry.hpp"

namespace rentsim::cli {
namespace {

const Registry<jobs::BadRowPolicy>& bad_row_policies() {
    static const Registry<jobs::BadRowPolicy> r{
        "bad-row policy",
        {{"skip", jobs::BadRowPolicy::skip, "skip bad rows, counted and the first listed"},
         {"fail", jobs::BadRowPolicy::fail, "stop at the first bad row"}}};
    return r;
}

// The format named by --format, else the one sniff_job_format recognises in the file.
jobs::Format trace_format(const std::string& path, const std::string& format) {
    if (!format.empty()) {
        const auto* f = jobs::job_format_registry().find(format);
        if (!f) throw analysis::InputError("--format", "", jobs::job_format_registry().unknown_message(format));
        return *f;
    }
    if (!std::ifstream(path)) throw analysis::InputError(path, "", "cannot open file");
    if (const auto f = jobs::sniff_job_format(path)) return *f;
    std::string names;
    for (const auto name : jobs::job_format_registry().names()) names += (names.empty() ? "" : ", ") + std::string(name);
    throw analysis::InputError("--format", "",
                               "cannot tell the format of '" + path + "' from its first lines; give --format (" + names + ")");
}

jobs::BadRowPolicy bad_row_policy(const std::string& name) {
    const auto* p = bad_row_policies().find(name);
    if (!p) throw analysis::InputError("--bad-rows", "", bad_row_policies().unknown_message(name));
    return *p;
}

std::unique_ptr<jobs::JobReader> open_trace(const CapacityOptions& o) {
    return jobs::open_job_trace(o.trace, trace_format(o.trace, o.format), bad_row_policy(o.bad_rows));
}

int cluster_command(const CapacityOptions& o) {
    const capacity::PoolsFile pools = capacity::load_pools(o.pools);
    auto reader = open_trace(o);
    std::string jobs_csv;
    capacity::JobSink sink;
    if (!o.jobs_csv.empty()) {
        const bool classes = !pools.config.workload_classes.empty();
        jobs_csv = capacity::jobs_csv_header(classes);
        sink = [&jobs_csv, classes](const capacity::JobRecord& r) { jobs_csv += capacity::jobs_csv_row(r, classes); };
    }
    const capacity::ClusterResult r = capacity::simulate_cluster(pools.config, *reader, sink);
    const capacity::TraceRows rows = capacity::trace_rows(*reader);
    const std::string name = pools.name.empty() ? o.pools : pools.name;
    std::vector<analysis::OutputFile> files;
    if (!o.out.empty()) files.push_back({o.out, capacity::cluster_json(name, pools.config, r, rows)});
    if (!o.jobs_csv.empty()) files.push_back({o.jobs_csv, std::move(jobs_csv)});
    if (!o.utilization_csv.empty()) files.push_back({o.utilization_csv, capacity::utilization_csv(r)});
    analysis::write_files_together(files);
    std::cout << capacity::format_trace_rows(rows) << capacity::format_cluster(name, pools.config, r);
    return 0;
}

int plan_command(const CapacityOptions& o) {
    const capacity::PoolsFile pools = capacity::load_pools(o.pools);
    const capacity::Slo slo = capacity::parse_slo(o.slo);
    const capacity::ReaderFactory open = [&o]() { return open_trace(o); };
    capacity::TraceRows rows;
    {
        // Read once for the bad rows, so that they are reported once.
        auto reader = open();
        while (reader->next()) {
        }
        rows = capacity::trace_rows(*reader);
    }
    const capacity::PlanResult r = capacity::search_plans(pools, slo, open);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, capacity::plan_json(pools, slo, r, rows));
    std::cout << capacity::format_trace_rows(rows) << capacity::format_plan(pools, slo, r);
    if (r.chosen < 0) {
        std::cerr << "rentsim: no plan meets " << slo.text << "\n";
        return 1;
    }
    return 0;
}

void add_common(CLI::App* cmd, CapacityOptions& o) {
    cmd->add_option("--trace", o.trace, "job trace file")->required();
    cmd->add_option("--format", o.format, "trace format: philly, philly-csv, gavel, pai, helios, acme, openb, csv "
                                          "(default: recognised from the file's first lines)");
    cmd->add_option("--pools", o.pools, "pools JSON file (schema 1)")->required();
    cmd->add_option("--bad-rows", o.bad_rows, "skip (default: counted, the first listed) or fail");
}

}  // namespace

void add_capacity_commands(CLI::App& app, CapacityOptions& o) {
    o.cluster = app.add_subcommand("cluster", "replay a job trace on rented pools: waits, completion times, cost by pool");
    add_common(o.cluster, o);
    o.cluster->add_option("--out", o.out, "write the result as JSON");
    o.cluster->add_option("--jobs-csv", o.jobs_csv, "write one row per job as CSV");
    o.cluster->add_option("--utilization-csv", o.utilization_csv, "write the GPU utilisation over time as CSV");
    o.plan = app.add_subcommand("plan", "the cheapest pools (base size, autoscaler, GPU type) meeting a service level");
    add_common(o.plan, o);
    o.plan->add_option("--slo", o.slo, "service level METRIC.STAT<=SECONDS, e.g. wait_s.p95<=3600")->required();
    o.plan->add_option("--out", o.out, "write every plan tried as JSON");
}

int run_capacity_command(const CapacityOptions& o) {
    if (o.cluster && *o.cluster) return cluster_command(o);
    return plan_command(o);
}

}  // namespace rentsim::cli
