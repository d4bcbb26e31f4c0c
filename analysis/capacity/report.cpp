#include "analysis/capacity/report.hpp"

#include <nlohmann/json.hpp>
#include <fmt/format.h>

namespace rentsim::capacity {
namespace {

using Json = nlohmann::ordered_json;

Json summary_json(const Summary& s) {
    Json o;
    o["mean"] = s.mean;
    o["p50"] = s.p50;
    o["p95"] = s.p95;
    o["p99"] = s.p99;
    o["max"] = s.max;
    return o;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string hours(double s) { return fmt::format("{:.2f} h", s / 3600.0); }

}  // namespace

std::string_view to_string(PoolKind kind) {
    switch (kind) {
        case PoolKind::reserved: return "reserved";
        case PoolKind::on_demand: return "on-demand";
        case PoolKind::spot: return "spot";
    }
    return "?";
}

TraceRows trace_rows(const jobs::JobReader& reader) {
    return {reader.skipped(), reader.not_run(), reader.bad_rows()};
}

std::string format_trace_rows(const TraceRows& rows) {
    std::string out;
    if (rows.skipped > 0) {
        out += fmt::format("skipped {} bad rows of the trace\n", rows.skipped);
        for (const auto& b : rows.bad) out += fmt::format("  line {}: {}\n", b.line, b.message);
        if (rows.skipped > static_cast<std::int64_t>(rows.bad.size()))
            out += fmt::format("  ... and {} more\n", rows.skipped - static_cast<std::int64_t>(rows.bad.size()));
    }
    if (rows.not_run > 0)
        out += fmt::format("left out {} jobs of the trace that used no GPU time (no GPU, never started or ran 0 s)\n",
                           rows.not_run);
    return out;
}

std::string format_cluster(const std::string& name, const ClusterConfig& config, const ClusterResult& r) {
    std::string out = fmt::format("{}: {} jobs, {} finished, {} unschedulable{}; scheduler {}\n", name, r.jobs, r.finished,
                                  r.unschedulable, r.gave_up > 0 ? fmt::format(", {} given up", r.gave_up) : "",
                                  config.scheduler);
    out += fmt::format("  {:<9} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "mean", "p50", "p95", "p99", "max");
    for (const auto& [label, s] : {std::pair{"wait", r.wait_s}, std::pair{"JCT", r.jct_s}})
        out += fmt::format("  {:<9} {:>10} {:>10} {:>10} {:>10} {:>10}\n", label, hours(s.mean), hours(s.p50),
                           hours(s.p95), hours(s.p99), hours(s.max));
    out += fmt::format("  {:<12} {:<10} {:<16} {:>5} {:>9} {:>6} {:>12} {:>12} {:>11} {:>12}\n", "pool", "kind", "instance",
                       "nodes", "max nodes", "peak", "node-hours", "busy GPU-h", "preempted", "cost");
    for (std::size_t i = 0; i < r.pools.size(); ++i) {
        const PoolResult& p = r.pools[i];
        const Pool& spec = config.pools[i];
        out += fmt::format("  {:<12} {:<10} {:<16} {:>5} {:>9} {:>6} {:>12.1f} {:>12.1f} {:>11} {:>12}\n", p.name,
                           to_string(p.kind), spec.instance, p.nodes, p.max_nodes, p.peak_nodes, p.billed_node_hours,
                           p.busy_gpu_hours, p.preemptions, fmt::format("${:.2f}", p.cost_usd));
    }
    out += fmt::format("  total ${:.2f} over {} ({:.2f} d); GPU utilisation {:.1f}%; ${:.3f} per useful GPU-hour "
                       "({:.1f} GPU-h); {} preemptions\n",
                       r.cost_usd, hours(r.makespan_s), r.makespan_s / 86400.0, r.gpu_utilization * 100.0,
                       r.cost_per_useful_gpu_hour, r.useful_gpu_hours, r.preemptions);
    // Only when enabled, so that replays without it print as before.
    if (config.priority_preemption)
        out += fmt::format("  priority preemptions: {} (running spot_ok jobs interrupted for higher-priority ones)\n",
                           r.priority_preemptions);
    for (const auto& e : r.unschedulable_examples) out += "  unschedulable: " + e + "\n";
    if (r.unschedulable > static_cast<std::int64_t>(r.unschedulable_examples.size()))
        out += fmt::format("  ... and {} more unschedulable\n", r.unschedulable - static_cast<std::int64_t>(r.unschedulable_examples.size()));
    for (const auto& a : r.assumptions) out += "  assumed: " + a + "\n";
    return out;
}

std::string cluster_json(const std::string& name, const ClusterConfig& config, const ClusterResult& r,
                         const TraceRows& rows) {
    Json doc;
    doc["schema"] = 1;
    doc["name"] = name;
    doc["scheduler"] = config.scheduler;
    doc["jobs"] = r.jobs;
    doc["finished"] = r.finished;
    doc["unschedulable"] = r.unschedulable;
    doc["unschedulable_jobs"] = r.unschedulable_examples;
    doc["gave_up"] = r.gave_up;
    doc["skipped_rows"] = rows.skipped;
    doc["bad_rows"] = Json::array();
    for (const auto& b : rows.bad) {
        Json o;
        o["line"] = b.line;
        o["message"] = b.message;
        doc["bad_rows"].push_back(std::move(o));
    }
    doc["not_run_rows"] = rows.not_run;
    doc["wait_s"] = summary_json(r.wait_s);
    doc["jct_s"] = summary_json(r.jct_s);
    doc["makespan_s"] = r.makespan_s;
    doc["gpu_utilization"] = r.gpu_utilization;
    doc["cost_usd"] = r.cost_usd;
    doc["useful_gpu_hours"] = r.useful_gpu_hours;
    doc["cost_per_useful_gpu_hour_usd"] = r.cost_per_useful_gpu_hour;
    doc["preemptions"] = r.preemptions;
    if (config.priority_preemption) doc["priority_preemptions"] = r.priority_preemptions;
    doc["peak_jobs_in_flight"] = r.peak_jobs_in_flight;
    doc["utilization_interval_s"] = r.utilization_interval_s;
    doc["pools"] = Json::array();
    for (std::size_t i = 0; i < r.pools.size(); ++i) {
        const PoolResult& p = r.pools[i];
        const Pool& spec = config.pools[i];
        Json o;
        o["name"] = p.name;
        o["kind"] = std::string(to_string(p.kind));
        o["provider"] = spec.provider;
        o["instance"] = spec.instance;
        o["plan"] = spec.plan;
        o["region"] = spec.region;
        o["gpu"] = spec.gpu;
        o["gpus_per_node"] = spec.gpus_per_node;
        o["usd_per_node_hour"] = spec.usd_per_node_hour;
        o["price_source"] = spec.price_source;
        o["nodes"] = p.nodes;
        o["max_nodes"] = p.max_nodes;
        o["peak_nodes"] = p.peak_nodes;
        o["leases"] = p.leases;
        o["billed_node_hours"] = p.billed_node_hours;
        o["busy_gpu_hours"] = p.busy_gpu_hours;
        o["preemptions"] = p.preemptions;
        o["cost_usd"] = p.cost_usd;
        if (const SpotPrice& sp = spec.spot_price; sp.series) {
            Json h;
            h["history"] = sp.history->name;
            h["instance"] = sp.history->instance;
            h["zone"] = sp.series->zone;
            h["start"] = sp.history->start;
            h["offset_s"] = sp.offset_s;
            h["relative"] = sp.relative;
            h["history_mean_usd_per_hour"] = sp.mean_usd_per_hour;
            h["mean_billed_usd_per_node_hour"] = p.billed_node_hours > 0 ? p.cost_usd / p.billed_node_hours : 0.0;
            o["spot_price"] = std::move(h);
        }
        doc["pools"].push_back(std::move(o));
    }
    doc["assumptions"] = r.assumptions;
    return doc.dump(2) + "\n";
}

std::string utilization_csv(const ClusterResult& r) {
    std::string out = "time_s,held_gpus,busy_gpus,utilization\n";
    for (const auto& row : r.utilization)
        out += fmt::format("{:.0f},{:.4f},{:.4f},{:.4f}\n", row.start_s, row.held_gpus, row.busy_gpus,
                           row.held_gpus > 0 ? row.busy_gpus / row.held_gpus : 0.0);
    return out;
}

std::string jobs_csv_header(bool classes) {
    return std::string("id,submit_s,gpus,duration_s,status,start_s,end_s,wait_s,jct_s,pool,gpu,preemptions,cost_usd,reason") +
           (classes ? ",workload_class,duration_factor\n" : "\n");
}

std::string jobs_csv_row(const JobRecord& r, bool classes) {
    const auto opt = [](double v) { return v < 0 ? std::string() : fmt::format("{:.3f}", v); };
    const bool ran = r.start_s >= 0;
    std::string row = fmt::format("{},{:.3f},{},{:.3f},{},{},{},{},{},{},{},{},{:.4f},{}", csv_field(r.job->id),
                                  r.job->submit_s, r.job->gpus, r.job->duration_s, r.status, opt(r.start_s), opt(r.end_s),
                                  ran ? fmt::format("{:.3f}", r.wait_s) : "",
                                  r.end_s >= 0 ? fmt::format("{:.3f}", r.jct_s) : "", csv_field(r.pool), r.gpu,
                                  r.preemptions, r.cost_usd, csv_field(r.reason));
    if (classes)
        row += fmt::format(",{},{}", csv_field(r.workload_class),
                           r.duration_factor < 0 ? std::string() : fmt::format("{:.4f}", r.duration_factor));
    return row + "\n";
}

}  // namespace rentsim::capacity
