#include "analysis/capacity/plan_search.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/capacity/report.hpp"
#include "analysis/scenario/input_error.hpp"

namespace rentsim::capacity {

const Registry<SloMetric>& slo_metric_registry() {
    static const Registry<SloMetric> r{"service-level metric",
                                       {{"wait_s", SloMetric::wait_s, "queueing delay: submission to first start, s"},
                                        {"jct_s", SloMetric::jct_s, "job completion time: submission to finish, s"}}};
    return r;
}

const Registry<SloStat>& slo_stat_registry() {
    static const Registry<SloStat> r{"statistic",
                                     {{"mean", SloStat::mean, "mean over finished jobs"},
                                      {"p50", SloStat::p50, "median"},
                                      {"p95", SloStat::p95, "95th percentile"},
                                      {"p99", SloStat::p99, "99th percentile"},
                                      {"max", SloStat::max, "the largest"}}};
    return r;
}

double Slo::value(const ClusterResult& r) const {
    const Summary& s = metric == SloMetric::wait_s ? r.wait_s : r.jct_s;
    switch (stat) {
        case SloStat::mean: return s.mean;
        case SloStat::p50: return s.p50;
        case SloStat::p95: return s.p95;
        case SloStat::p99: return s.p99;
        case SloStat::max: return s.max;
    }
    return s.max;
}

bool Slo::met(const ClusterResult& r) const {
    if (r.finished == 0) return false;
    const double v = value(r);
    return strict ? v < limit : v <= limit;
}

Slo parse_slo(const std::string& text) {
    const auto bad = [&](const std::string& why) {
        throw analysis::InputError("--slo", "", "'" + text.substr(0, 64) + "': " + why);
    };
    Slo s;
    s.text = text;
    const auto op = text.find('<');
    if (op == std::string::npos) bad("expected METRIC.STAT<=SECONDS, e.g. wait_s.p95<=3600");
    const std::string lhs = text.substr(0, op);
    s.strict = !(op + 1 < text.size() && text[op + 1] == '=');
    const std::string rhs = text.substr(op + (s.strict ? 1 : 2));
    const auto dot = lhs.find('.');
    if (dot == std::string::npos) bad("expected METRIC.STAT before '<', e.g. wait_s.p95");
    const std::string metric = lhs.substr(0, dot), stat = lhs.substr(dot + 1);
    if (const auto* m = slo_metric_registry().find(metric)) s.metric = *m;
    else bad(slo_metric_registry().unknown_message(metric));
    if (const auto* t = slo_stat_registry().find(stat)) s.stat = *t;
    else bad(slo_stat_registry().unknown_message(stat));
    const auto r = std::from_chars(rhs.data(), rhs.data() + rhs.size(), s.limit);
    if (rhs.empty() || r.ec != std::errc() || r.ptr != rhs.data() + rhs.size() || !std::isfinite(s.limit) || s.limit < 0)
        bad("expected a limit in seconds >= 0 after '" + std::string(s.strict ? "<" : "<=") + "', got '" + rhs.substr(0, 32) + "'");
    return s;
}

namespace {

// The first reserved pool (the base), or the first scaled pool, on-demand before spot (the burst).
int first_of(const ClusterConfig& c, bool reserved) {
    for (std::size_t i = 0; i < c.pools.size(); ++i)
        if (reserved ? c.pools[i].kind == PoolKind::reserved : c.pools[i].scalable() && c.pools[i].kind == PoolKind::on_demand)
            return static_cast<int>(i);
    if (!reserved)
        for (std::size_t i = 0; i < c.pools.size(); ++i)
            if (c.pools[i].scalable()) return static_cast<int>(i);
    return -1;
}

template <class T>
std::vector<T> distinct(std::vector<T> v) {
    std::vector<T> out;
    for (const T& x : v)
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    return out;
}

}  // namespace

std::vector<Candidate> plan_candidates(const PoolsFile& f) {
    const ClusterConfig& base = f.config;
    const int ri = first_of(base, true), si = first_of(base, false);
    std::vector<int> bases = f.search.base_nodes, maxes = f.search.max_nodes;
    std::vector<double> waits = f.search.queue_wait_s;
    std::vector<std::string> instances = f.search.instances;
    if (bases.empty() && ri >= 0) {
        const int n = base.pools[static_cast<std::size_t>(ri)].nodes;
        bases = {0, n / 4, n / 2, 3 * n / 4, n, 3 * n / 2};
    }
    if (maxes.empty() && si >= 0) maxes = {base.pools[static_cast<std::size_t>(si)].max_nodes};
    if (waits.empty() && si >= 0) {
        const double w = base.autoscaler.queue_wait_s;
        waits = {w / 4, w, w * 4};
    }
    if (instances.empty()) instances = {""};
    bases = distinct(bases.empty() ? std::vector<int>{-1} : bases);
    maxes = distinct(maxes.empty() ? std::vector<int>{-1} : maxes);
    waits = distinct(waits.empty() ? std::vector<double>{-1} : waits);
    instances = distinct(instances);
    std::vector<Candidate> out;
    for (const std::string& inst : instances)
        for (int b : bases)
            for (int m : maxes)
                for (double w : waits) {
                    Candidate c;
                    c.config = base;
                    c.base_nodes = b;
                    c.max_nodes = m;
                    c.queue_wait_s = w;
                    c.instance = inst.empty() ? base.pools.front().instance : inst;
                    if (!inst.empty())
                        for (auto& p : c.config.pools) p = with_instance(p, inst);
                    if (w >= 0) c.config.autoscaler.queue_wait_s = w;
                    if (m >= 0) {
                        auto& p = c.config.pools[static_cast<std::size_t>(si)];
                        p.max_nodes = std::max(m, p.nodes);
                    }
                    if (b >= 0) {
                        auto& pools = c.config.pools;
                        if (b == 0) pools.erase(pools.begin() + ri);
                        else pools[static_cast<std::size_t>(ri)].nodes = pools[static_cast<std::size_t>(ri)].max_nodes = b;
                    }
                    if (c.config.pools.empty()) continue;
                    // The label names what varies.
                    std::string label;
                    if (b >= 0 && bases.size() > 1) label += fmt::format("{} {}", base.pools[static_cast<std::size_t>(ri)].name, b);
                    if (m >= 0 && maxes.size() > 1)
                        label += fmt::format("{}{} <= {}", label.empty() ? "" : ", ", base.pools[static_cast<std::size_t>(si)].name,
                                             std::max(m, base.pools[static_cast<std::size_t>(si)].nodes));
                    if (w >= 0 && waits.size() > 1) label += fmt::format("{}wait {:g} s", label.empty() ? "" : ", ", w);
                    if (instances.size() > 1) label += fmt::format("{}{}", label.empty() ? "" : ", ", c.instance);
                    c.label = label.empty() ? "as written" : label;
                    out.push_back(std::move(c));
                }
    return out;
}

PlanResult search_plans(const PoolsFile& f, const Slo& slo, const ReaderFactory& open) {
    PlanResult r;
    r.candidates = plan_candidates(f);
    std::int64_t fewest_refused = INT64_MAX;
    for (Candidate& c : r.candidates) {
        auto reader = open();
        c.result = simulate_cluster(c.config, *reader);
        c.result.utilization.clear();
        c.value = slo.value(c.result);
        fewest_refused = std::min(fewest_refused, c.result.unschedulable + c.result.gave_up);
    }
    // A plan that refuses or gives up jobs another plan runs is not comparable on waits: it
    // meets the service level only if it runs as many jobs as the best (a job no pool of any
    // plan can hold is refused by all of them and counts against none).
    for (Candidate& c : r.candidates)
        c.meets = slo.met(c.result) && c.result.unschedulable + c.result.gave_up == fewest_refused;
    std::stable_sort(r.candidates.begin(), r.candidates.end(), [](const Candidate& a, const Candidate& b) {
        if (a.result.cost_usd != b.result.cost_usd) return a.result.cost_usd < b.result.cost_usd;
        return a.value < b.value;
    });
    double best = INFINITY;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        Candidate& c = r.candidates[i];
        const bool complete = c.result.unschedulable + c.result.gave_up == fewest_refused;
        if (complete && c.value < best) {
            c.frontier = true;
            best = c.value;
        }
        if (r.chosen < 0 && c.meets) r.chosen = static_cast<int>(i);
    }
    const std::string metric = slo.text.substr(0, slo.text.find('<'));
    if (r.chosen < 0) {
        const Candidate* closest = nullptr;
        for (const auto& c : r.candidates)
            if (c.frontier) closest = &c;
        r.explanation = fmt::format("no plan of the {} searched meets {}", r.candidates.size(), slo.text);
        bool any_finished = false;
        for (const auto& c : r.candidates) any_finished = any_finished || c.result.finished > 0;
        if (!any_finished) {
            closest = nullptr;
            r.explanation += ": no plan finished a job of the trace";
        }
        if (closest)
            r.explanation += fmt::format("; the best, {}, reaches {} = {:.0f} s at ${:.2f}", closest->label, metric,
                                         closest->value, closest->result.cost_usd);
        return r;
    }
    const Candidate& c = r.candidates[static_cast<std::size_t>(r.chosen)];
    r.explanation = fmt::format("chosen: {}: ${:.2f}, {} = {:.0f} s ({}), the cheapest of the {} plans searched that meets it",
                                c.label, c.result.cost_usd, metric, c.value, slo.text, r.candidates.size());
    if (r.chosen == 0) {
        r.explanation += "; no plan searched is cheaper";
    } else {
        // The cheaper plan that came closest (a tie on the metric: the one refusing fewer jobs).
        const Candidate* near = nullptr;
        for (int i = 0; i < r.chosen; ++i) {
            const auto& x = r.candidates[static_cast<std::size_t>(i)];
            if (!near || x.value < near->value) near = &x;
        }
        const std::int64_t refused = near->result.unschedulable + near->result.gave_up;
        r.explanation += fmt::format("; every cheaper plan misses it: the closest, {} (${:.2f}), has {} = {:.0f} s{}",
                                     near->label, near->result.cost_usd, metric, near->value,
                                     near->value <= slo.limit ? fmt::format(" but refuses or gives up {} jobs", refused) : "");
    }
    // What more money buys: the next plan of the frontier.
    for (std::size_t i = static_cast<std::size_t>(r.chosen) + 1; i < r.candidates.size(); ++i)
        if (r.candidates[i].frontier) {
            const Candidate& x = r.candidates[i];
            r.explanation += fmt::format("; for ${:.2f} more, {} brings it to {:.0f} s", x.result.cost_usd - c.result.cost_usd,
                                         x.label, x.value);
            break;
        }
    return r;
}

std::string format_plan(const PoolsFile& f, const Slo& slo, const PlanResult& r) {
    const std::string metric = slo.text.substr(0, slo.text.find('<'));
    std::string out = fmt::format("{}: {} plans for {}, by cost (* chosen, f on the cost/service frontier)\n",
                                  f.name.empty() ? f.file : f.name, r.candidates.size(), slo.text);
    std::size_t width = 4;
    for (const auto& c : r.candidates) width = std::max(width, c.label.size());
    out += fmt::format("    {:<{}} {:>12} {:>12} {:>10} {:>8} {:>14}\n", "plan", width, "cost", metric, "util", "unsched",
                       "$/useful GPU-h");
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const Candidate& c = r.candidates[i];
        const std::string mark = std::string(static_cast<int>(i) == r.chosen ? "*" : " ") + (c.frontier ? "f" : " ");
        out += fmt::format("  {} {:<{}} {:>12} {:>12} {:>9.1f}% {:>8} {:>14.3f}{}\n", mark, c.label, width,
                           fmt::format("${:.2f}", c.result.cost_usd), fmt::format("{:.0f} s", c.value),
                           c.result.gpu_utilization * 100, c.result.unschedulable, c.result.cost_per_useful_gpu_hour,
                           c.meets ? "" : "  misses");
    }
    out += "  " + r.explanation + "\n";
    return out;
}

std::string plan_json(const PoolsFile& f, const Slo& slo, const PlanResult& r, const TraceRows& rows) {
    nlohmann::ordered_json doc;
    doc["schema"] = 1;
    doc["name"] = f.name;
    doc["slo"] = slo.text;
    doc["skipped_rows"] = rows.skipped;
    doc["not_run_rows"] = rows.not_run;
    doc["chosen"] = r.chosen < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.candidates[static_cast<std::size_t>(r.chosen)].label);
    doc["explanation"] = r.explanation;
    doc["plans"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const Candidate& c = r.candidates[i];
        nlohmann::ordered_json o;
        o["plan"] = c.label;
        if (c.base_nodes >= 0) o["base_nodes"] = c.base_nodes;
        if (c.max_nodes >= 0) o["max_nodes"] = c.max_nodes;
        if (c.queue_wait_s >= 0) o["queue_wait_s"] = c.queue_wait_s;
        o["instance"] = c.instance;
        o["gpu"] = c.config.pools.front().gpu;
        o["cost_usd"] = c.result.cost_usd;
        o["value"] = c.value;
        o["meets"] = c.meets;
        o["frontier"] = c.frontier;
        o["chosen"] = static_cast<int>(i) == r.chosen;
        o["wait_s_p95"] = c.result.wait_s.p95;
        o["jct_s_p95"] = c.result.jct_s.p95;
        o["gpu_utilization"] = c.result.gpu_utilization;
        o["unschedulable"] = c.result.unschedulable;
        o["cost_per_useful_gpu_hour_usd"] = c.result.cost_per_useful_gpu_hour;
        nlohmann::ordered_json pools = nlohmann::ordered_json::array();
        for (const auto& p : c.result.pools) {
            nlohmann::ordered_json q;
            q["name"] = p.name;
            q["cost_usd"] = p.cost_usd;
            q["peak_nodes"] = p.peak_nodes;
            pools.push_back(std::move(q));
        }
        o["pools"] = std::move(pools);
        doc["plans"].push_back(std::move(o));
    }
    return doc.dump(2) + "\n";
}

}  // namespace rentsim::capacity
