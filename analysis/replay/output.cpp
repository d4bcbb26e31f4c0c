#include "analysis/replay/output.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rentsim::replay {

namespace {

using Json = nlohmann::ordered_json;

Json breakdown_json(const Breakdown& b) {
    return Json{{"compute_s", b.compute_s},
                {"memory_s", b.memory_s},
                {"comm_s", b.comm_s},
                {"exposed_comm_s", b.exposed_comm_s},
                {"idle_s", b.idle_s},
                {"idle", {{"host_wait_s", b.idle.host_wait_s}, {"kernel_wait_s", b.idle.kernel_wait_s}, {"other_s", b.idle.other_s}}}};
}

Json or_null(double v) { return v < 0 ? Json(nullptr) : Json(v); }

int step_of(const ReplayGraph& g) { return g.windows.empty() ? -1 : g.windows.front().step; }

}  // namespace

std::string replay_json(const ReplayGraph& g, const ReplayResult& r, const std::optional<RetargetSummary>& rt) {
    Json j;
    j["schema"] = 1;
    j["ranks"] = r.ranks.size();
    j["step"] = step_of(g) >= 0 ? Json(step_of(g)) : Json(nullptr);
    j["recorded_iteration_s"] = or_null(r.recorded_iteration_s);
    j["iteration_s"] = r.iteration_s;
    j["error"] = !rt && r.recorded_iteration_s > 0 ? Json((r.iteration_s - r.recorded_iteration_s) / r.recorded_iteration_s)
                                                   : Json(nullptr);
    if (rt) {
        Json classes = Json::array();
        for (const ClassScale& c : rt->classes)
            classes.push_back({{"class", c.cls}, {"kernels", c.kernels}, {"recorded_s", c.recorded_s}, {"retargeted_s", c.retargeted_s}});
        j["retarget"] = {{"recorded_gpu", rt->recorded_gpu}, {"gpu", rt->target_gpu},
                         {"recorded_gpus", rt->recorded_gpus}, {"gpus", rt->target_gpus},
                         {"recorded_topology", rt->recorded_topology}, {"topology", rt->target_topology},
                         {"scaling", rt->scaling}, {"classes", classes}};
    }
    j["breakdown"] = breakdown_json(r.breakdown);
    j["overlap_fraction"] = r.breakdown.overlap_fraction;
    Json path = Json::array();
    for (std::size_t i = 0; i < r.critical_path.size() && i < max_path_steps; ++i) {
        const PathStep& p = r.critical_path[i];
        path.push_back({{"name", p.name}, {"rank", p.rank}, {"lane", p.lane}, {"category", std::string(to_string(p.category))},
                        {"start_s", p.start_s}, {"dur_s", p.dur_s}, {"wait_s", p.wait_s}});
    }
    j["critical_path"] = path;
    j["critical_path_steps"] = r.critical_path.size();
    Json unknown = Json::array();
    for (const UnknownKernel& u : r.unknown_kernels)
        unknown.push_back({{"name", u.name}, {"count", u.count}, {"recorded_s", u.recorded_s}, {"replayed_s", u.replayed_s}});
    j["unknown_kernels"] = unknown;
    Json ranks = Json::array();
    for (const RankSummary& s : r.ranks)
        ranks.push_back({{"rank", s.rank}, {"step", s.step >= 0 ? Json(s.step) : Json(nullptr)}, {"recorded_s", or_null(s.recorded_s)},
                         {"iteration_s", s.iteration_s}, {"breakdown", breakdown_json(s.breakdown)},
                         {"overlap_fraction", s.breakdown.overlap_fraction}});
    j["per_rank"] = ranks;
    Json notes = Json::array();
    for (const std::string& n : g.notes) notes.push_back(n);
    if (rt)
        for (const std::string& n : rt->notes) notes.push_back(n);
    j["notes"] = notes;
    return j.dump(2) + "\n";
}

std::string replay_table(const ReplayGraph& g, const ReplayResult& r, const std::optional<RetargetSummary>& rt) {
    std::string out;
    const auto ms = [](double s) { return fmt::format("{:.2f}", s * 1e3); };
    const int step = step_of(g);
    out += fmt::format("replay of {} rank{}, {}", r.ranks.size(), r.ranks.size() == 1 ? "" : "s",
                       step >= 0 ? fmt::format("ProfilerStep#{}", step) : std::string("the whole recording"));
    if (rt)
        out += fmt::format(", retargeted from {} x{} to {} x{} ({} on {}, {} scaling)", rt->recorded_gpu, rt->recorded_gpus,
                           rt->target_gpu, rt->target_gpus, rt->recorded_topology, rt->target_topology, rt->scaling);
    out += "\n";
    out += fmt::format("{:>6} {:>11} {:>11} {:>7} {:>10} {:>10} {:>12} {:>9} {:>10} {:>8} {:>8}\n", "rank", "recorded ms",
                       rt ? "target ms" : "replay ms", "error", "compute ms", "memory ms", "exp. comm ms", "idle ms",
                       "host wait", "kernel w", "overlap");
    const auto row = [&](const std::string& name, double rec, double it, const Breakdown& b) {
        const std::string err = !rt && rec > 0 ? fmt::format("{:+.1f}%", (it - rec) / rec * 100) : "-";
        out += fmt::format("{:>6} {:>11} {:>11} {:>7} {:>10} {:>10} {:>12} {:>9} {:>10} {:>8} {:>7.0f}%\n", name,
                           rec >= 0 ? ms(rec) : "-", ms(it), err, ms(b.compute_s), ms(b.memory_s), ms(b.exposed_comm_s),
                           ms(b.idle_s), ms(b.idle.host_wait_s), ms(b.idle.kernel_wait_s), b.overlap_fraction * 100);
    };
    for (const RankSummary& s : r.ranks) row(std::to_string(s.rank), s.recorded_s, s.iteration_s, s.breakdown);
    if (r.ranks.size() > 1) row("mean", r.recorded_iteration_s, r.iteration_s, r.breakdown);
    // The critical path: its make-up, and its longest steps.
    double by_cat[5] = {0, 0, 0, 0, 0}, waits = 0;
    for (const PathStep& p : r.critical_path) {
        by_cat[static_cast<int>(p.category)] += p.dur_s;
        waits += p.wait_s;
    }
    out += fmt::format("critical path: {} steps; host {} ms, compute {} ms, memory {} ms, communication {} ms, launch latency {} ms\n",
                       r.critical_path.size(), ms(by_cat[0]), ms(by_cat[1]), ms(by_cat[2]), ms(by_cat[3]), ms(waits));
    std::vector<const PathStep*> longest;
    for (const PathStep& p : r.critical_path) longest.push_back(&p);
    std::stable_sort(longest.begin(), longest.end(), [](const PathStep* a, const PathStep* b) { return a->dur_s > b->dur_s; });
    for (std::size_t i = 0; i < longest.size() && i < 10; ++i) {
        const PathStep& p = *longest[i];
        std::string name = p.name.size() > 70 ? p.name.substr(0, 67) + "..." : p.name;
        out += fmt::format("  {:>9} ms at {:>9} ms  rank {} {:<22} {}\n", ms(p.dur_s), ms(p.start_s), p.rank, p.lane, name);
    }
    if (!r.unknown_kernels.empty()) {
        out += fmt::format("unknown kernels: {} names\n", r.unknown_kernels.size());
        for (std::size_t i = 0; i < r.unknown_kernels.size() && i < 10; ++i) {
            const UnknownKernel& u = r.unknown_kernels[i];
            out += fmt::format("  {:>9} ms x{:<5} {}\n", ms(u.replayed_s), u.count, u.name);
        }
    }
    for (const std::string& n : g.notes) out += "note: " + n + "\n";
    if (rt)
        for (const std::string& n : rt->notes) out += "note: " + n + "\n";
    return out;
}

}  // namespace rentsim::replay
