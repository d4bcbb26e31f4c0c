#include "analysis/cli/capacity_commands.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "analysis/capacity/plan_search.hpp"
#include "analysis/capacity/pools_file.hpp"
#include "analysis/capacity/report.hpp"
#include "analysis/capacity/rentsim_csv_reader.hpp"
#include "analysis/capacity/simulator.hpp"
#include "analysis/report/atomic_file.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/registry.hpp"

namespace rentsim::cli {
namespace {

// The trace formats of analysis/jobs (job.hpp, Format). This build reads rentsim's own CSV; the
// importers' open_job_trace replaces open_trace below for the others.
const Registry<jobs::Format>& trace_formats() {
    static const Registry<jobs::Format> r{
        "trace format",
        {{"philly", jobs::Format::philly, "Microsoft Philly cluster_job_log (JSON)"},
         {"philly-csv", jobs::Format::philly_csv, "Philly jobs as CSV"},
         {"gavel", jobs::Format::gavel, "Gavel's trace format"},
         {"pai", jobs::Format::pai, "Alibaba PAI job and task tables"},
         {"helios", jobs::Format::helios, "SenseTime Helios cluster_log.csv"},
         {"acme", jobs::Format::acme, "Shanghai AI Lab Acme trace_*.csv"},
         {"openb", jobs::Format::openb, "Alibaba GPU-sharing pod list"},
         {"csv", jobs::Format::csv, "rentsim's CSV: submit_s,gpus,duration_s,gpu_type,user,priority,spot_ok"}}};
    return r;
}

const Registry<jobs::BadRowPolicy>& bad_row_policies() {
    static const Registry<jobs::BadRowPolicy> r{
        "bad-row policy",
        {{"skip", jobs::BadRowPolicy::skip, "skip bad rows, counted and the first listed"},
         {"fail", jobs::BadRowPolicy::fail, "stop at the first bad row"}}};
    return r;
}

std::unique_ptr<jobs::JobReader> open_trace(const std::string& path, const std::string& format,
                                            jobs::BadRowPolicy policy) {
    std::string name = format;
    if (name.empty()) {
        if (std::filesystem::path(path).extension() != ".csv")
            throw analysis::InputError("--format", "", "give the trace's format for '" + path + "'");
        name = "csv";
    }
    const auto* f = trace_formats().find(name);
    if (!f) throw analysis::InputError("--format", "", trace_formats().unknown_message(name));
    if (*f != jobs::Format::csv)
        throw analysis::InputError("--format", "", "this build reads 'csv' traces only, not '" + name + "'");
    return std::make_unique<capacity::RentsimCsvJobReader>(path, policy);
}

jobs::BadRowPolicy bad_row_policy(const std::string& name) {
    const auto* p = bad_row_policies().find(name);
    if (!p) throw analysis::InputError("--bad-rows", "", bad_row_policies().unknown_message(name));
    return *p;
}

std::string skipped_note(const jobs::JobReader& reader) {
    if (reader.skipped() == 0) return "";
    std::string out = fmt::format("skipped {} bad rows of the trace", reader.skipped());
    for (const auto& b : reader.bad_rows()) out += fmt::format("\n  line {}: {}", b.line, b.message);
    return out + "\n";
}

int cluster_command(const CapacityOptions& o) {
    const capacity::PoolsFile pools = capacity::load_pools(o.pools);
    const auto policy = bad_row_policy(o.bad_rows);
    auto reader = open_trace(o.trace, o.format, policy);
    std::string jobs_csv;
    capacity::JobSink sink;
    if (!o.jobs_csv.empty()) {
        jobs_csv = capacity::jobs_csv_header();
        sink = [&jobs_csv](const capacity::JobRecord& r) { jobs_csv += capacity::jobs_csv_row(r); };
    }
    const capacity::ClusterResult r = capacity::simulate_cluster(pools.config, *reader, sink);
    const std::string name = pools.name.empty() ? o.pools : pools.name;
    std::vector<analysis::OutputFile> files;
    if (!o.out.empty()) files.push_back({o.out, capacity::cluster_json(name, pools.config, r, reader->skipped())});
    if (!o.jobs_csv.empty()) files.push_back({o.jobs_csv, std::move(jobs_csv)});
    if (!o.utilization_csv.empty()) files.push_back({o.utilization_csv, capacity::utilization_csv(r)});
    analysis::write_files_together(files);
    std::cout << skipped_note(*reader) << capacity::format_cluster(name, pools.config, r);
    return 0;
}

int plan_command(const CapacityOptions& o) {
    const capacity::PoolsFile pools = capacity::load_pools(o.pools);
    const capacity::Slo slo = capacity::parse_slo(o.slo);
    const auto policy = bad_row_policy(o.bad_rows);
    std::int64_t skipped = 0;
    std::string note;
    const capacity::ReaderFactory open = [&]() {
        auto reader = open_trace(o.trace, o.format, policy);
        return reader;
    };
    {
        // Read once for the bad rows, so that they are reported once.
        auto reader = open();
        while (reader->next()) {
        }
        skipped = reader->skipped();
        note = skipped_note(*reader);
    }
    (void)skipped;
    const capacity::PlanResult r = capacity::search_plans(pools, slo, open);
    if (!o.out.empty()) analysis::write_file_atomically(o.out, capacity::plan_json(pools, slo, r));
    std::cout << note << capacity::format_plan(pools, slo, r);
    if (r.chosen < 0) {
        std::cerr << "rentsim: no plan meets " << slo.text << "\n";
        return 1;
    }
    return 0;
}

void add_common(CLI::App* cmd, CapacityOptions& o) {
    cmd->add_option("--trace", o.trace, "job trace file")->required();
    cmd->add_option("--format", o.format, "trace format: philly, philly-csv, gavel, pai, helios, acme, openb, csv "
                                          "(default: csv for a .csv file)");
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
