#include "analysis/report/html.hpp"

#include <map>

#include <fmt/format.h>

#include "analysis/report/report.hpp"
#include "analysis/report/svg.hpp"

namespace rentsim::analysis {

namespace {

using svg::escape;

std::string usd(double x) {
    if (x >= 1e6) return fmt::format("${:.2f}M", x / 1e6);
    if (x >= 1e4) return fmt::format("${:.0f}", x);
    return fmt::format("${:.2f}", x);
}

std::string or_dash(const std::optional<double>& v, std::string (*f)(double)) { return v ? f(*v) : "-"; }

std::string ms(double s) { return fmt::format("{:.1f}", s * 1e3); }
std::string duration(double s) { return human_duration(s); }
std::string cost(double x) { return usd(x); }
std::string rate(double x) { return fmt::format("{:.1f}", x); }
std::string gib(double x) { return fmt::format("{:.1f}", x); }

std::string label_of(const ResultPoint& p) { return p.point.empty() ? p.name : p.point; }

// Fixed page style: system fonts, tables with numbers right-aligned.
constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:2em auto;max-width:64em;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}
table{border-collapse:collapse;font-size:0.9em;margin:0.5em 0}
th,td{border-bottom:1px solid #ddd;padding:0.25em 0.6em;text-align:right;white-space:nowrap}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
.not-done{color:#c0392b}figure{margin:1.5em 0}figcaption{font-size:0.9em;color:#555}
svg{max-width:100%;height:auto}.notes{color:#555;font-size:0.9em}.wide{overflow-x:auto})";

}  // namespace

std::string result_report_html(const ResultFile& f, const Charts& charts) {
    const ResultPoint& first = f.points.front();
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    o += "<title>rentsim report: " + escape(first.name) + "</title>\n<style>\n" + kStyle + "\n</style>\n</head>\n<body>\n";
    o += "<h1>" + escape(first.name) + "</h1>\n";

    // Summary: what was simulated and the figures a reader looks for first.
    std::map<std::string, std::size_t> statuses;
    for (const auto& p : f.points) ++statuses[p.status];
    std::string status_text;
    for (const auto& [s, n] : statuses) status_text += (status_text.empty() ? "" : ", ") + fmt::format("{} {}", n, s);
    o += "<p>" + escape(fmt::format("{} in {}, {} point{} ({}). Read from {}.", first.model, first.precision, f.points.size(),
                                    f.points.size() == 1 ? "" : "s", status_text, f.file)) + "</p>\n<ul>\n";
    const ResultPoint *fastest = nullptr, *cheapest = nullptr;
    for (const auto& p : f.points) {
        if (!p.fits || !p.time_to_train_s || !p.cost_usd || p.status != "done") continue;
        if (!fastest || *p.time_to_train_s < *fastest->time_to_train_s) fastest = &p;
        if (!cheapest || *p.cost_usd < *cheapest->cost_usd) cheapest = &p;
    }
    if (fastest)
        o += "<li>fastest: " + escape(label_of(*fastest)) + ", " + escape(duration(*fastest->time_to_train_s)) + " for " +
             escape(usd(*fastest->cost_usd)) + "</li>\n";
    if (cheapest)
        o += "<li>cheapest: " + escape(label_of(*cheapest)) + ", " + escape(usd(*cheapest->cost_usd)) + " in " +
             escape(duration(*cheapest->time_to_train_s)) + "</li>\n";
    if (first.deadline_h) {
        const long best = cheapest_within_deadline(f);
        o += "<li>deadline " + escape(fmt::format("{:g} h", *first.deadline_h)) + ": " +
             (best >= 0 ? "cheapest point within it " + escape(label_of(f.points[static_cast<std::size_t>(best)])) + ", " +
                              escape(usd(*f.points[static_cast<std::size_t>(best)].cost_usd))
                        : std::string("no point meets it")) +
             "</li>\n";
    }
    o += "</ul>\n";

    o += "<h2>Results</h2>\n<div class=\"wide\">\n<table>\n<tr><th>point</th><th>GPUs</th><th>GPU</th><th>plan</th><th>status</th>"
         "<th>time to train</th><th>cost</th><th>samples/s</th><th>step ms</th><th>memory GiB</th></tr>\n";
    for (const auto& p : f.points) {
        o += "<tr><td>" + escape(label_of(p)) + "</td><td>" + std::to_string(p.gpus) + "</td><td>" + escape(p.gpu) + "</td><td>" +
             escape(p.plan.empty() ? "-" : p.plan) + "</td><td" + (p.status == "done" ? "" : " class=\"not-done\"") + ">" +
             escape(p.status) + "</td><td>" + escape(or_dash(p.time_to_train_s, duration)) + "</td><td>" +
             escape(or_dash(p.cost_usd, cost)) + "</td><td>" + or_dash(p.throughput_samples_per_s, rate) + "</td><td>" +
             or_dash(p.iteration_s, ms) + "</td><td>" + fmt::format("{:.1f} / {:.0f}", p.memory_per_gpu_gib, p.memory_available_gib) +
             "</td></tr>\n";
    }
    o += "</table>\n</div>\n";
    std::string notes;
    for (const auto& p : f.points)
        if (!p.note.empty()) notes += "<li>" + escape(label_of(p)) + ": " + escape(p.note) + "</li>\n";
    if (!notes.empty()) o += "<ul class=\"notes\">\n" + notes + "</ul>\n";

    o += "<h2>Breakdown</h2>\n<p>One optimizer step, in milliseconds; memory per GPU, in GiB.</p>\n<table>\n"
         "<tr><th>point</th><th>compute</th><th>exposed comm.</th><th>input stall</th><th>pipeline bubble</th>"
         "<th>weights</th><th>gradients</th><th>optimizer</th><th>activations</th><th>workspace</th></tr>\n";
    o.insert(o.rfind("<table>"), "<div class=\"wide\">\n");
    for (const auto& p : f.points)
        o += "<tr><td>" + escape(label_of(p)) + "</td><td>" + or_dash(p.compute_s, ms) + "</td><td>" + or_dash(p.exposed_comm_s, ms) +
             "</td><td>" + or_dash(p.input_stall_s, ms) + "</td><td>" + or_dash(p.pipeline_bubble_s, ms) + "</td><td>" +
             gib(p.params_gib) + "</td><td>" + gib(p.gradients_gib) + "</td><td>" + gib(p.optimizer_gib) + "</td><td>" +
             gib(p.activations_gib) + "</td><td>" + gib(p.workspace_gib) + "</td></tr>\n";
    o += "</table>\n</div>\n";

    o += "<h2>Charts</h2>\n";
    for (const Chart& c : charts.charts) {
        // The SVG document inline, without its own XML prologue (it has none).
        o += "<figure id=\"" + escape(c.name) + "\">\n" + c.svg + "<figcaption>" + escape(c.title) + "</figcaption>\n</figure>\n";
    }
    if (!charts.notes.empty()) {
        o += "<ul class=\"notes\">\n";
        for (const auto& n : charts.notes) o += "<li>" + escape(n) + "</li>\n";
        o += "</ul>\n";
    }
    o += "<p class=\"notes\">Written by rentsim from " + escape(f.file) + ".</p>\n</body>\n</html>\n";
    return o;
}

}  // namespace rentsim::analysis
