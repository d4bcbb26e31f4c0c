#include "analysis/report/report.hpp"

#include <fmt/format.h>

#include "analysis/scenario/json_reader.hpp"

namespace rentsim::analysis {

std::string human_duration(double s) {
    if (s >= 2 * 86400.0) return fmt::format("{:.2f} d", s / 86400.0);
    if (s >= 2 * 3600.0) return fmt::format("{:.2f} h", s / 3600.0);
    if (s >= 120.0) return fmt::format("{:.1f} min", s / 60.0);
    if (s >= 1.0) return fmt::format("{:.1f} s", s);
    return fmt::format("{:.1f} ms", s * 1e3);
}

namespace {

std::string usd(double x) {
    if (x >= 1e6) return fmt::format("${:.2f}M", x / 1e6);
    if (x >= 1e4) return fmt::format("${:.0f}", x);
    return fmt::format("${:.2f}", x);
}

std::string pct(double part, double whole) { return whole > 0 ? fmt::format("{:.0f}%", 100.0 * part / whole) : "-"; }

bool eventful(const Result& r) {
    const auto& l = r.lifecycle;
    return l.plan != "on-demand" || !l.provider.empty() || l.preemptions > 0 || l.failures > 0 || l.checkpoints > 0 ||
           l.resizes > 0 || l.storage_usd > 0 || l.egress_usd > 0 || r.replications > 0 || l.budget_alert_s >= 0 ||
           l.finished_fraction < 1 || l.deadline_met_fraction < 1;
}

std::string lifecycle_lines(const Result& r) {
    if (!eventful(r)) return {};
    const auto& l = r.lifecycle;
    std::string o;
    o += fmt::format("  pricing         {}{} at ${:.4f}/GPU-h, {} instance(s) of {} GPUs ({} GPUs billed)\n", l.plan,
                     l.provider.empty() ? std::string() : " " + l.provider + " " + l.instance + " " + l.region,
                     l.usd_per_gpu_hour, l.instances, l.gpus_per_instance, l.billed_gpus);
    o += fmt::format("  cost split      instances {}, storage {}, egress {}; {:.1f} instance-h held, {:.1f} billed\n",
                     usd(l.compute_usd), usd(l.storage_usd), usd(l.egress_usd), l.instance_hours, l.billed_instance_hours);
    if (l.checkpoint_interval_s > 0)
        o += fmt::format("  checkpoints     {:.1f} GB each, written in {:.1f} s every {}; {:.1f} taken\n", l.checkpoint_gb,
                         l.checkpoint_write_s, human_duration(l.checkpoint_interval_s), l.checkpoints);
    if (l.preemptions > 0 || l.failures > 0 || l.resizes > 0)
        o += fmt::format("  interruptions   {:.1f} preemptions, {:.1f} failures, {:.1f} resizes; {} of work lost, restart {:.0f} s\n",
                         l.preemptions, l.failures, l.resizes, human_duration(l.lost_work_s), l.restart_s);
    if (l.budget_alert_s >= 0) o += fmt::format("  budget          alert at {}\n", human_duration(l.budget_alert_s));
    if (l.finished_fraction - l.gave_up_fraction < 1 - 1e-12)
        o += fmt::format("  budget          stopped before the end in {:.0f}% of runs\n",
                         100 * (1 - l.finished_fraction - l.gave_up_fraction));
    if (l.gave_up_fraction > 0)
        o += fmt::format("  given up        in {:.0f}% of runs after 100x the work: interruptions outpace checkpoints\n",
                         100 * l.gave_up_fraction);
    if (l.deadline_h > 0)
        o += fmt::format("  deadline        {} met in {:.0f}% of runs\n", human_duration(l.deadline_h * 3600), 100 * l.deadline_met_fraction);
    if (r.replications > 0)
        o += fmt::format("  replications    {} (seed {}): time p5 {} p50 {} p95 {}; cost p5 {} p50 {} p95 {}\n",
                         r.replications, r.seed, human_duration(r.time_stats.p5), human_duration(r.time_stats.p50),
                         human_duration(r.time_stats.p95), usd(r.cost_stats.p5), usd(r.cost_stats.p50), usd(r.cost_stats.p95));
    return o;
}

std::string single(const Result& r) {
    std::string o;
    o += fmt::format("{}: {} on {} x {} ({}), {} samples in {} steps of {}\n", r.name, r.model, r.gpus, r.gpu, r.precision,
                     r.samples, r.iterations, r.global_batch);
    if (!r.fits) {
        o += fmt::format("  does not fit: needs {:.1f} GiB per GPU, {:.1f} GiB available\n", r.memory_per_gpu_gib,
                         r.memory_available_gib);
        return o;
    }
    o += fmt::format("  time to train   {} ({:.0f} s)\n", human_duration(r.time_to_train_s), r.time_to_train_s);
    o += fmt::format("  cost            {} (billed {:.0f} s per GPU)\n", usd(r.cost_usd), r.billed_s);
    o += fmt::format("  throughput      {:.1f} samples/s", r.throughput_samples_per_s);
    if (r.throughput_tokens_per_s > 0) o += fmt::format(", {:.0f} tokens/s", r.throughput_tokens_per_s);
    o += fmt::format("\n  step            {:.2f} ms: compute {:.2f} ms ({}), exposed comm {:.2f} ms ({}), input stall {:.2f} ms ({})\n",
                     r.iteration_s * 1e3, r.breakdown.compute_s * 1e3, pct(r.breakdown.compute_s, r.iteration_s),
                     r.breakdown.exposed_comm_s * 1e3, pct(r.breakdown.exposed_comm_s, r.iteration_s),
                     r.breakdown.input_stall_s * 1e3, pct(r.breakdown.input_stall_s, r.iteration_s));
    if (r.breakdown.pipeline_bubble_s > 0)
        o += fmt::format("  pipeline        tp {} x pp {} x dp {}, bubble {:.2f} ms ({})\n", r.tp, r.pp, r.dp,
                         r.breakdown.pipeline_bubble_s * 1e3, pct(r.breakdown.pipeline_bubble_s, r.iteration_s));
    o += fmt::format("  per GPU         {:.1f} TFLOP/s, MFU {:.1f}%, memory {:.1f} of {:.0f} GiB\n", r.tflops_per_gpu,
                     r.mfu * 100, r.memory_per_gpu_gib, r.memory_available_gib);
    if (r.storage_pipeline) {
        if (r.staging_s > 0) o += fmt::format("  staging         {} copying the dataset to local NVMe (billed)\n", human_duration(r.staging_s));
        o += fmt::format("  input           bound by {}; GPU waited {} ({:.1f}% of training)", r.input.bound_by,
                         human_duration(r.input.input_bound_s), 100 * r.input.stall_fraction);
        if (r.input.workers_to_compute_bound > 0)
            o += fmt::format("; compute-bound from {} worker{} per GPU", r.input.workers_to_compute_bound,
                             r.input.workers_to_compute_bound == 1 ? "" : "s");
        o += "\n";
        if (!r.epochs.empty()) {
            o += "  stall by epoch ";
            for (std::size_t e = 0; e < r.epochs.size() && e < 5; ++e)
                o += fmt::format("{}{}: {:.1f}%", e ? ", " : " ", e + 1, 100 * r.epochs[e].stall_fraction);
            if (r.epochs.size() > 5) o += ", ...";
            o += "\n";
        }
    }
    o += lifecycle_lines(r);
    return o;
}

}  // namespace

std::string format_results_text(const std::vector<Result>& results) {
    if (results.size() == 1 && results[0].point.empty()) return single(results[0]);
    std::string o = results.empty() ? std::string() : results[0].name + "\n";
    std::vector<std::vector<std::string>> rows;
    // The pipeline bubble gets a column only when some point has a pipeline.
    bool bubble = false;
    for (const auto& r : results) bubble = bubble || r.pp > 1;
    rows.push_back({"point", "gpus", "time to train", "cost", "samples/s", "step ms", "compute", "exp. comm",
                    "input stall", "MFU", "mem GiB"});
    if (bubble) rows.back().insert(rows.back().begin() + 9, "bubble");
    // The storage-backed input pipeline adds its diagnosis; tables without it keep their shape.
    bool pipeline = false;
    for (const auto& r : results) pipeline = pipeline || r.storage_pipeline;
    if (pipeline)
        for (const char* c : {"staging", "bound by", "stall e1", "stall last", "workers needed"}) rows[0].push_back(c);
    bool life = false, reps = false, deadline = false;
    for (const auto& r : results) {
        life = life || eventful(r);
        reps = reps || r.replications > 0;
        deadline = deadline || r.lifecycle.deadline_h > 0;
    }
    for (const auto& r : results) {
        if (!r.fits) {
            rows.push_back({r.point, std::to_string(r.gpus), "does not fit", "-", "-", "-", "-", "-", "-", "-",
                            fmt::format("{:.1f}/{:.0f}", r.memory_per_gpu_gib, r.memory_available_gib)});
            if (bubble) rows.back().insert(rows.back().begin() + 9, "-");
            if (pipeline) rows.back().resize(rows[0].size(), "-");
            continue;
        }
        rows.push_back({r.point, std::to_string(r.gpus), human_duration(r.time_to_train_s), usd(r.cost_usd),
                        fmt::format("{:.1f}", r.throughput_samples_per_s), fmt::format("{:.1f}", r.iteration_s * 1e3),
                        pct(r.breakdown.compute_s, r.iteration_s), pct(r.breakdown.exposed_comm_s, r.iteration_s),
                        pct(r.breakdown.input_stall_s, r.iteration_s), fmt::format("{:.1f}%", r.mfu * 100),
                        fmt::format("{:.1f}", r.memory_per_gpu_gib)});
        if (bubble) rows.back().insert(rows.back().begin() + 9, pct(r.breakdown.pipeline_bubble_s, r.iteration_s));
        if (pipeline) {
            const auto stall = [&](std::size_t e) {
                return e < r.epochs.size() ? fmt::format("{:.1f}%", 100 * r.epochs[e].stall_fraction) : std::string("-");
            };
            rows.back().push_back(r.staging_s > 0 ? human_duration(r.staging_s) : "-");
            rows.back().push_back(r.input.bound_by);
            rows.back().push_back(stall(0));
            rows.back().push_back(r.epochs.empty() ? "-" : stall(r.epochs.size() - 1));
            rows.back().push_back(r.input.workers_to_compute_bound ? std::to_string(r.input.workers_to_compute_bound) : "-");
        }
    }
    if (life) {
        rows[0].insert(rows[0].end(), {"interrupts", "lost work"});
        for (std::size_t i = 0; i < results.size(); ++i) {
            const auto& l = results[i].lifecycle;
            if (!results[i].fits) rows[i + 1].insert(rows[i + 1].end(), {"-", "-"});
            else rows[i + 1].insert(rows[i + 1].end(), {fmt::format("{:.1f}", l.preemptions + l.failures + l.resizes),
                                                        human_duration(l.lost_work_s)});
        }
    }
    if (deadline) {
        rows[0].push_back("deadline met");
        for (std::size_t i = 0; i < results.size(); ++i)
            rows[i + 1].push_back(results[i].fits ? fmt::format("{:.0f}%", 100 * results[i].lifecycle.deadline_met_fraction) : "-");
    }
    if (reps) {
        rows[0].insert(rows[0].end(), {"time p5-p95", "cost p5-p95"});
        for (std::size_t i = 0; i < results.size(); ++i) {
            const auto& r = results[i];
            if (!r.fits) rows[i + 1].insert(rows[i + 1].end(), {"-", "-"});
            else rows[i + 1].insert(rows[i + 1].end(), {human_duration(r.time_stats.p5) + " - " + human_duration(r.time_stats.p95),
                                                        usd(r.cost_stats.p5) + " - " + usd(r.cost_stats.p95)});
        }
    }
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::string line;
        for (std::size_t c = 0; c < rows[i].size(); ++c) {
            if (c) line += "  ";
            // First column left-aligned, numbers right-aligned.
            line += c == 0 ? fmt::format("{:<{}}", rows[i][c], width[c]) : fmt::format("{:>{}}", rows[i][c], width[c]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        o += line + "\n";
        if (i == 0) o += std::string(line.size(), '-') + "\n";
    }
    return o;
}

namespace {

Json result_json(const Result& r) {
    Json j;
    j["name"] = r.name;
    if (!r.point.empty()) j["point"] = r.point;
    j["model"] = r.model;
    j["gpu"] = r.gpu;
    j["gpus"] = r.gpus;
    j["tp"] = r.tp;
    j["pp"] = r.pp;
    j["dp"] = r.dp;
    j["precision"] = r.precision;
    j["global_batch"] = r.global_batch;
    j["micro_batch"] = r.micro_batch;
    j["micro_steps"] = r.micro_steps;
    j["samples"] = r.samples;
    j["iterations"] = r.iterations;
    j["fits"] = r.fits;
    j["memory_per_gpu_gib"] = r.memory_per_gpu_gib;
    j["memory_available_gib"] = r.memory_available_gib;
    if (r.fits) {
        j["time_to_train_s"] = r.time_to_train_s;
        j["cost_usd"] = r.cost_usd;
        j["billed_s"] = r.billed_s;
        j["throughput_samples_per_s"] = r.throughput_samples_per_s;
        j["throughput_tokens_per_s"] = r.throughput_tokens_per_s;
        j["iteration_s"] = r.iteration_s;
        j["breakdown"] = {{"compute_s", r.breakdown.compute_s},
                          {"exposed_comm_s", r.breakdown.exposed_comm_s},
                          {"input_stall_s", r.breakdown.input_stall_s},
                          {"pipeline_bubble_s", r.breakdown.pipeline_bubble_s}};
        j["tflops_per_gpu"] = r.tflops_per_gpu;
        j["mfu"] = r.mfu;
        j["hardware_tflops_per_gpu"] = r.hardware_tflops_per_gpu;
        j["allreduce_busbw_gbps"] = r.allreduce_busbw_gbps;
        j["staging_s"] = r.staging_s;
        const auto rate = [](double x) { return x > 0 ? Json(x) : Json(nullptr); };
        const auto& in = r.input;
        j["input"] = {{"bound_by", in.bound_by},
                      {"stall_fraction", in.stall_fraction},
                      {"input_bound_s", in.input_bound_s},
                      {"workers_to_compute_bound", in.workers_to_compute_bound ? Json(in.workers_to_compute_bound) : Json(nullptr)},
                      {"capacity_samples_per_s",
                       {{"compute", rate(in.compute_samples_per_s)},
                        {"cpu_workers", rate(in.workers_samples_per_s)},
                        {"storage", rate(in.storage_samples_per_s)},
                        {"ingress", rate(in.ingress_samples_per_s)},
                        {"h2d", rate(in.h2d_samples_per_s)}}}};
        j["epochs"] = Json::array();
        for (std::size_t e = 0; e < r.epochs.size(); ++e)
            j["epochs"].push_back({{"epoch", e + 1},
                                   {"time_s", r.epochs[e].time_s},
                                   {"input_stall_s", r.epochs[e].input_stall_s},
                                   {"stall_fraction", r.epochs[e].stall_fraction}});
        const auto& l = r.lifecycle;
        Json lj;
        lj["plan"] = l.plan;
        if (!l.provider.empty()) {
            lj["provider"] = l.provider;
            lj["instance"] = l.instance;
            lj["region"] = l.region;
            lj["price_source"] = l.price_source;
        }
        lj["usd_per_gpu_hour"] = l.usd_per_gpu_hour;
        lj["gpus_per_instance"] = l.gpus_per_instance;
        lj["instances"] = l.instances;
        lj["billed_gpus"] = l.billed_gpus;
        lj["instance_hours"] = l.instance_hours;
        lj["billed_instance_hours"] = l.billed_instance_hours;
        lj["compute_usd"] = l.compute_usd;
        lj["storage_usd"] = l.storage_usd;
        lj["egress_usd"] = l.egress_usd;
        lj["checkpoint_gb"] = l.checkpoint_gb;
        lj["checkpoint_write_s"] = l.checkpoint_write_s;
        lj["checkpoint_interval_s"] = l.checkpoint_interval_s;
        lj["restart_s"] = l.restart_s;
        lj["preemptions"] = l.preemptions;
        lj["failures"] = l.failures;
        lj["checkpoints"] = l.checkpoints;
        lj["resizes"] = l.resizes;
        lj["restarts"] = l.restarts;
        lj["lost_work_s"] = l.lost_work_s;
        lj["budget_alert_s"] = l.budget_alert_s < 0 ? Json(nullptr) : Json(l.budget_alert_s);
        lj["finished_fraction"] = l.finished_fraction;
        lj["gave_up_fraction"] = l.gave_up_fraction;
        lj["deadline_h"] = l.deadline_h > 0 ? Json(l.deadline_h) : Json(nullptr);
        lj["deadline_met_fraction"] = l.deadline_met_fraction;
        j["lifecycle"] = lj;
        if (r.replications > 0) {
            const auto st = [](const Stats& x) {
                return Json{{"mean", x.mean}, {"p5", x.p5}, {"p50", x.p50}, {"p95", x.p95}};
            };
            j["replications"] = {{"n", r.replications}, {"seed", r.seed}, {"time_to_train_s", st(r.time_stats)},
                                 {"cost_usd", st(r.cost_stats)}};
        }
    } else {
        for (const char* k : {"time_to_train_s", "cost_usd", "billed_s", "throughput_samples_per_s",
                              "throughput_tokens_per_s", "iteration_s", "breakdown", "tflops_per_gpu", "mfu",
                              "hardware_tflops_per_gpu", "allreduce_busbw_gbps", "staging_s", "input", "epochs"})
            j[k] = nullptr;
    }
    j["simulated_iterations"] = r.simulated_iterations;
    j["events"] = r.events;
    j["fingerprint"] = fmt::format("{:016x}", r.fingerprint);
    return j;
}

}  // namespace

std::string results_to_json(const std::vector<Result>& results) {
    Json j;
    j["schema"] = 1;
    j["results"] = Json::array();
    for (const auto& r : results) j["results"].push_back(result_json(r));
    return j.dump(2) + "\n";
}

std::string results_to_csv(const std::vector<Result>& results) {
    const char* cols[] = {"name", "point", "model", "gpu", "gpus", "tp", "pp", "dp", "precision", "global_batch", "micro_batch",
                          "micro_steps", "samples", "iterations", "fits", "memory_per_gpu_gib", "memory_available_gib",
                          "time_to_train_s", "cost_usd", "billed_s", "throughput_samples_per_s",
                          "throughput_tokens_per_s", "iteration_s", "breakdown.compute_s", "breakdown.exposed_comm_s",
                          "breakdown.input_stall_s", "breakdown.pipeline_bubble_s", "tflops_per_gpu", "mfu",
                          "hardware_tflops_per_gpu", "allreduce_busbw_gbps",
                          "simulated_iterations", "events", "fingerprint", "staging_s", "input.bound_by",
                          "input.stall_fraction", "input.input_bound_s", "input.workers_to_compute_bound", "lifecycle.plan",
                          "lifecycle.usd_per_gpu_hour", "lifecycle.instances", "lifecycle.billed_gpus",
                          "lifecycle.compute_usd", "lifecycle.storage_usd", "lifecycle.egress_usd",
                          "lifecycle.checkpoint_interval_s", "lifecycle.preemptions", "lifecycle.failures",
                          "lifecycle.checkpoints", "lifecycle.resizes", "lifecycle.lost_work_s",
                          "lifecycle.finished_fraction", "lifecycle.deadline_met_fraction", "replications.n",
                          "time_to_train_s_p5", "time_to_train_s_p50", "time_to_train_s_p95", "cost_usd_p5",
                          "cost_usd_p50", "cost_usd_p95"};

    std::string o;
    for (std::size_t i = 0; i < std::size(cols); ++i) o += (i ? "," : "") + std::string(cols[i]);
    o += "\n";
    const auto quote = [](const std::string& s) {
        if (s.find_first_of(",\"\n") == std::string::npos) return s;
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    for (const auto& r : results) {
        const Json j = result_json(r);
        for (std::size_t i = 0; i < std::size(cols); ++i) {
            std::string key = cols[i];
            const Json* v = nullptr;
            Json stat;
            const auto dot = key.find('.');
            if (dot != std::string::npos) {
                const std::string head = key.substr(0, dot), tail = key.substr(dot + 1);
                if (j.contains(head) && j.at(head).is_object() && j.at(head).contains(tail)) v = &j.at(head).at(tail);
            } else if (key.ends_with("_p5") || key.ends_with("_p50") || key.ends_with("_p95")) {
                // Percentiles over replications: time_to_train_s_p95 is replications.time_to_train_s.p95.
                const auto us = key.rfind('_');
                const std::string figure = key.substr(0, us), p = key.substr(us + 1);
                if (j.contains("replications")) stat = j.at("replications").at(figure).at(p);
                if (!stat.is_null()) v = &stat;
            } else if (j.contains(key)) {
                v = &j.at(key);
            }
            std::string cell;
            if (v && !v->is_null()) cell = v->is_string() ? v->get<std::string>() : v->dump();
            o += (i ? "," : "") + quote(cell);
        }
        o += "\n";
    }
    return o;
}

}  // namespace rentsim::analysis
