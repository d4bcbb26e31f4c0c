// The charts of a result file: which apply, the groups, the Pareto front, the cheapest point
// within the deadline and the scaling efficiency, checked against figures worked by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/report/charts.hpp"
#include "analysis/report/html.hpp"

using namespace rentsim::analysis;

namespace {

ResultPoint point(const std::string& gpu, std::int64_t gpus, double throughput, double time_s, double cost, double deadline_h) {
    ResultPoint p;
    p.name = "two-gpus";
    p.model = "bert-large";
    p.precision = "fp16";
    p.gpu = gpu;
    p.gpus = gpus;
    p.point = "cluster.gpu=\"" + gpu + "\" cluster.gpus=" + std::to_string(gpus);
    p.swept = {{"cluster.gpu", "\"" + gpu + "\""}, {"cluster.gpus", std::to_string(gpus)}};
    p.fits = true;
    p.status = time_s <= deadline_h * 3600 ? "done" : "missed deadline";
    p.time_to_train_s = time_s;
    p.cost_usd = cost;
    p.throughput_samples_per_s = throughput;
    p.iteration_s = 0.3;
    p.deadline_h = deadline_h;
    p.deadline_met_fraction = time_s <= deadline_h * 3600 ? 1.0 : 0.0;
    p.memory_per_gpu_gib = 35, p.memory_available_gib = 80;
    p.params_gib = 1, p.gradients_gib = 1, p.optimizer_gib = 4, p.activations_gib = 27, p.workspace_gib = 2;
    return p;
}

// Two GPU types at 8 and 16 GPUs, and one point stopped by its budget; a 0.6 h (2160 s) deadline.
ResultFile two_lines() {
    ResultFile f;
    f.file = "r.json";
    f.points = {point("a100", 8, 800, 4000, 30, 0.6), point("a100", 16, 1200, 2700, 40, 0.6), point("h100", 8, 1600, 2000, 28, 0.6),
                point("h100", 16, 3000, 1100, 29, 0.6), point("h100", 32, 5000, 900, 50, 0.6)};
    f.points[4].status = "stopped by budget at 50%";
    return f;
}

std::vector<std::string> names(const Charts& c) {
    std::vector<std::string> n;
    for (const auto& x : c.charts) n.push_back(x.name);
    return n;
}

const Chart& chart(const Charts& c, const std::string& name) {
    for (const auto& x : c.charts)
        if (x.name == name) return x;
    FAIL("no chart " << name);
    return c.charts.front();
}

bool has(const std::string& doc, const std::string& part) { return doc.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the Pareto front holds the points no other is both faster and cheaper than") {
    // By time: h100x16 (1100 s, $29), h100x8 (2000 s, $28), a100x16 (2700 s, $40), a100x8
    // (4000 s, $30); the stopped point is no candidate.
    CHECK(pareto_front(two_lines()) == std::vector<std::size_t>{3, 2});
}

TEST_CASE("the cheapest point within the deadline is called out") {
    // Within 2160 s: h100x8 ($28) and h100x16 ($29).
    const auto f = two_lines();
    CHECK(cheapest_within_deadline(f) == 2);
    auto none = f;
    for (auto& p : none.points) p.deadline_h.reset();
    CHECK(cheapest_within_deadline(none) == -1);
    const auto charts = result_charts(f);
    CHECK(has(chart(charts, "cost-vs-time").svg, "cheapest within the deadline: $28.00"));
    CHECK(has(chart(charts, "cost-vs-gpus").svg, "cheapest within the deadline: $28.00"));
    CHECK(has(chart(charts, "cost-vs-time").svg, "deadline 0.6 h"));
}

TEST_CASE("a result swept over GPU counts and types gives every chart, one line per type") {
    const auto charts = result_charts(two_lines());
    CHECK(names(charts) == std::vector<std::string>{"time-vs-gpus", "cost-vs-gpus", "cost-vs-time", "scaling-efficiency", "memory-by-part"});
    CHECK(charts.notes.empty());
    const std::string& time = chart(charts, "time-vs-gpus").svg;
    CHECK(has(time, ">a100</text>"));
    CHECK(has(time, ">h100</text>"));
    CHECK(has(time, "1 point left out: not finished"));
    CHECK(has(time, "time to train (minutes)"));  // the longest, 4000 s, is over 2 minutes and under 2 hours
    // Scaling efficiency, (throughput / GPUs) over that at 8 GPUs: a100 (1200 / 16) / (800 / 8) =
    // 75%, h100 (3000 / 16) / (1600 / 8) = 93.75%. Axis 0 to 100% over 378 to 58 px; 16 GPUs at
    // 78 + (16 - 7.52) / 8.96 * 450 = 503.9 px. a100 (circles): y 138.0; h100 (squares): y 78.0.
    const std::string& eff = chart(charts, "scaling-efficiency").svg;
    CHECK(has(eff, "<circle cx=\"503.9\" cy=\"138.0\" r=\"4.5\""));
    CHECK(has(eff, "<rect x=\"499.9\" y=\"74.0\" width=\"8\" height=\"8\""));
    // Every point has the same memory parts: one bar for five points.
    CHECK(has(chart(charts, "memory-by-part").svg, ">all 5 points</text>"));
}

TEST_CASE("charts that need more points are left out with the reason") {
    ResultFile one;
    one.file = "r.json";
    one.points = {point("a100", 8, 800, 4000, 30, 0.6)};
    one.points[0].point.clear();
    one.points[0].swept.clear();
    const auto charts = result_charts(one);
    CHECK(names(charts) == std::vector<std::string>{"memory-by-part"});
    CHECK(charts.notes == std::vector<std::string>{
                              "time-vs-gpus: left out: no line has two GPU counts (sweep cluster.gpus or cluster.nodes to draw one)",
                              "cost-vs-gpus: left out: no line has two GPU counts (sweep cluster.gpus or cluster.nodes to draw one)",
                              "cost-vs-time: left out: needs two finished points",
                              "scaling-efficiency: left out: no line has two GPU counts (sweep cluster.gpus or cluster.nodes to draw one)"});
}

TEST_CASE("the same result gives the same bytes") {
    const auto a = result_charts(two_lines()), b = result_charts(two_lines());
    REQUIRE(a.charts.size() == b.charts.size());
    for (std::size_t i = 0; i < a.charts.size(); ++i) CHECK(a.charts[i].svg == b.charts[i].svg);
    CHECK(result_report_html(two_lines(), a) == result_report_html(two_lines(), b));
}

TEST_CASE("the HTML report holds the tables and every chart inline, and nothing to fetch") {
    const auto f = two_lines();
    const auto charts = result_charts(f);
    const std::string html = result_report_html(f, charts);
    CHECK(html.starts_with("<!DOCTYPE html>"));
    std::size_t svgs = 0;
    for (std::size_t at = html.find("<svg "); at != std::string::npos; at = html.find("<svg ", at + 1)) ++svgs;
    CHECK(svgs == charts.charts.size());
    CHECK(has(html, "<td class=\"not-done\">stopped by budget at 50%</td>"));
    CHECK(has(html, "cheapest point within it cluster.gpu=&quot;h100&quot; cluster.gpus=8, $28.00"));
    CHECK_FALSE(has(html, "<script"));
    CHECK_FALSE(has(html, "http://www.w3.org/1999"));
    CHECK_FALSE(has(html, "https://"));
    CHECK_FALSE(has(html, "<link"));
}
