#include "analysis/replay/replay.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include "analysis/scenario/input_error.hpp"
#include "sim/activity.hpp"
#include "sim/engine.hpp"

namespace rentsim::replay {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

// Sorted, disjoint intervals covering the given ones.
std::vector<Interval> merged(std::vector<Interval> v) {
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const Interval& i : v) {
        if (i.second <= i.first) continue;
        if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
        else out.push_back(i);
    }
    return out;
}

std::int64_t length(const std::vector<Interval>& v) {
    std::int64_t s = 0;
    for (const Interval& i : v) s += i.second - i.first;
    return s;
}

// Length of the intersection of two merged lists.
std::int64_t overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    std::int64_t s = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const std::int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
        if (hi > lo) s += hi - lo;
        if (a[i].second < b[j].second) ++i;
        else ++j;
    }
    return s;
}

double seconds(std::int64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace

std::string_view to_string(Category c) {
    switch (c) {
    case Category::host: return "host";
    case Category::compute: return "compute";
    case Category::memory: return "memory";
    case Category::communication: return "communication";
    case Category::other: return "other";
    }
    return "other";
}

Category category_of(const ReplayGraph& g, Vertex v) {
    const Node& n = g.graph[v];
    switch (n.kind) {
    case NodeKind::host_work:
    case NodeKind::host_call: return Category::host;
    case NodeKind::start:
    case NodeKind::join:
    case NodeKind::arrive:
    case NodeKind::backlog: return Category::other;
    case NodeKind::device:
    case NodeKind::op: break;
    }
    const trace::Event* e = node_event(g, v);
    if (!e) return Category::other;
    if (e->has_coll || e->cls == trace::KernelClass::communication || e->kind == trace::EventKind::comm)
        return Category::communication;
    if (e->kind == trace::EventKind::memcpy || e->kind == trace::EventKind::memset || e->cls == trace::KernelClass::copy)
        return Category::memory;
    if (n.kind == NodeKind::op && g.lanes[static_cast<std::size_t>(n.lane)].host) return Category::host;
    return Category::compute;
}

ReplayResult run_replay(const ReplayGraph& g, int iterations) {
    if (iterations < 1) throw std::invalid_argument("run_replay: iterations must be at least 1");
    const Graph& gr = g.graph;
    const std::size_t n = boost::num_vertices(gr);
    const auto copies = static_cast<std::size_t>(iterations);
    if (n * copies >= std::numeric_limits<sim::ActivityGraph::Handle>::max())
        throw analysis::InputError(g.trace->ranks.front().file, "", "the trace is too large to replay");
    const auto handle = [n](std::size_t copy, Vertex v) { return static_cast<sim::ActivityGraph::Handle>(copy * n + v); };
    sim::Engine engine;
    sim::ActivityGraph acts(engine);
    for (std::size_t k = 0; k < copies; ++k)
        for (Vertex v = 0; v < n; ++v) {
            const Node& nd = gr[v];
            // Later iterations start where the previous one's main thread ended, not at an offset.
            const bool first_only = nd.kind == NodeKind::start || nd.kind == NodeKind::backlog;
            const std::int64_t d = first_only && k > 0 ? 0 : nd.pre_ns + nd.dur_ns;
            acts.add_delay(k == 0 ? node_name(g, v) : std::string(), d, static_cast<std::uint32_t>(nd.kind));
        }
    for (std::size_t k = 0; k < copies; ++k)
        for (auto [it, end] = boost::edges(gr); it != end; ++it)
            acts.precede(handle(k, boost::source(*it, gr)), handle(k, boost::target(*it, gr)));
    // Consecutive iterations: each host thread and stream continues in order, and each rank's
    // next step opens when its main thread has finished this one.
    const std::size_t lanes = g.lanes.size();
    std::vector<std::vector<Vertex>> firsts(lanes), lasts(lanes);
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        if (nd.lane < 0 || nd.kind == NodeKind::op) continue;
        const auto l = static_cast<std::size_t>(nd.lane);
        bool has_in = false, has_out = false;
        for (auto [it, end] = boost::in_edges(v, gr); it != end; ++it)
            if (gr[*it].kind == EdgeKind::order && gr[boost::source(*it, gr)].lane == nd.lane) has_in = true;
        for (auto [it, end] = boost::out_edges(v, gr); it != end; ++it)
            if (gr[*it].kind == EdgeKind::order && gr[boost::target(*it, gr)].lane == nd.lane) has_out = true;
        const bool transfer = nd.kind == NodeKind::device && nd.collective >= 0;
        if (!has_in && !transfer) firsts[l].push_back(v);
        if (!has_out && nd.kind != NodeKind::arrive) lasts[l].push_back(v);
    }
    std::vector<Vertex> start_of(g.windows.size(), 0);
    std::vector<std::vector<Vertex>> sinks(g.windows.size());
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        if (nd.kind == NodeKind::start) start_of[static_cast<std::size_t>(nd.rank)] = v;
        if (nd.kind != NodeKind::join && boost::out_degree(v, gr) == 0) sinks[static_cast<std::size_t>(nd.rank)].push_back(v);
    }
    for (std::size_t k = 0; k + 1 < copies; ++k) {
        for (std::size_t l = 0; l < lanes; ++l)
            if (firsts[l].size() == 1 && lasts[l].size() == 1) acts.precede(handle(k, lasts[l][0]), handle(k + 1, firsts[l][0]));
        for (std::size_t r = 0; r < g.windows.size(); ++r) {
            const int main_lane = g.windows[r].main_lane;
            if (main_lane >= 0 && lasts[static_cast<std::size_t>(main_lane)].size() == 1)
                acts.precede(handle(k, lasts[static_cast<std::size_t>(main_lane)][0]), handle(k + 1, start_of[r]));
            else
                for (Vertex v : sinks[r]) acts.precede(handle(k, v), handle(k + 1, start_of[r]));
        }
    }
    try {
        acts.start(nullptr);
    } catch (const std::logic_error& e) {
        throw analysis::InputError(g.trace->ranks.front().file, "",
                                   std::string("the recorded dependencies cannot be replayed: ") + e.what());
    }
    engine.run();

    // Each rank's iteration: the distance between the ends of its last two iterations (the
    // steady state), or with one iteration, its end after its start.
    const std::size_t ranks = g.windows.size();
    std::vector<std::vector<std::int64_t>> ends(copies, std::vector<std::int64_t>(ranks, 0));
    for (std::size_t k = 0; k < copies; ++k)
        for (Vertex v = 0; v < n; ++v) {
            if (gr[v].kind == NodeKind::join) continue;
            auto& e = ends[k][static_cast<std::size_t>(gr[v].rank)];
            e = std::max(e, acts.finished_at(handle(k, v)));
        }
    // Results describe the last iteration, on a clock that starts with its earliest rank.
    const std::size_t last_copy = copies - 1;
    std::int64_t t0 = std::numeric_limits<std::int64_t>::max();
    for (std::size_t r = 0; r < ranks; ++r) t0 = std::min(t0, acts.started_at(handle(last_copy, start_of[r])));
    if (copies == 1) t0 = 0;

    const auto timings_of = [&](std::size_t copy) {
        std::vector<Timing> tm(n);
        for (Vertex v = 0; v < n; ++v) {
            const auto h = handle(copy, v);
            tm[v] = {acts.started_at(h) + gr[v].pre_ns - t0, acts.finished_at(h) - t0};
        }
        // A transfer spans its arrival too, as the recorded kernel does.
        for (Vertex v = 0; v < n; ++v) {
            if (gr[v].kind != NodeKind::arrive) continue;
            for (auto [it, end] = boost::out_edges(v, gr); it != end; ++it) {
                const Vertex j = boost::target(*it, gr);
                if (gr[j].kind == NodeKind::device) tm[j].start_ns = tm[v].start_ns;
                if (gr[j].kind != NodeKind::join) continue;
                for (auto [jt, jend] = boost::out_edges(j, gr); jt != jend; ++jt) {
                    const Vertex t = boost::target(*jt, gr);
                    if (gr[t].rank == gr[v].rank && gr[t].event == gr[v].event) tm[t].start_ns = tm[v].start_ns;
                }
            }
        }
        return tm;
    };
    ReplayResult res;
    res.fingerprint = engine.fingerprint();
    res.timing = timings_of(last_copy);
    const std::vector<Timing> prev_timing = copies > 1 ? timings_of(last_copy - 1) : std::vector<Timing>();
    // The predecessor within its iteration that finished last: what held v back.
    const auto binding_in = [&](Vertex v, const std::vector<Timing>& tm) {
        Vertex best = std::numeric_limits<Vertex>::max();
        std::int64_t latest = -1;
        for (auto [it, end] = boost::in_edges(v, gr); it != end; ++it) {
            const Vertex u = boost::source(*it, gr);
            if (tm[u].end_ns > latest || (tm[u].end_ns == latest && u < best)) {
                latest = tm[u].end_ns;
                best = u;
            }
        }
        return best;
    };
    const auto binding = [&](Vertex v) { return binding_in(v, res.timing); };

    // Per rank: iteration, breakdown.
    std::vector<std::int64_t> rank_end(ranks, 0), host_end(ranks, 0), device_end(ranks, 0), backlog(ranks, 0);
    std::vector<std::vector<Interval>> compute(ranks), memory(ranks), comm(ranks), busy(ranks);
    // Device work of the last iteration, and of the one before where it runs on into the last.
    struct Work {
        Interval iv;
        Vertex v;
        bool previous;
    };
    std::vector<std::vector<Work>> work(ranks);
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        if (nd.kind == NodeKind::join) continue;
        const auto r = static_cast<std::size_t>(nd.rank);
        rank_end[r] = std::max(rank_end[r], res.timing[v].end_ns);
        if (nd.kind == NodeKind::host_work || nd.kind == NodeKind::host_call) host_end[r] = std::max(host_end[r], res.timing[v].end_ns);
        if (nd.kind == NodeKind::device || nd.kind == NodeKind::op || nd.kind == NodeKind::arrive)
            device_end[r] = std::max(device_end[r], res.timing[v].end_ns);
        if (nd.kind == NodeKind::backlog) backlog[r] = std::max(backlog[r], nd.dur_ns);
    }
    for (int pass = copies > 1 ? 0 : 1; pass < 2; ++pass) {
        const std::vector<Timing>& tm = pass == 0 ? prev_timing : res.timing;
        for (Vertex v = 0; v < n; ++v) {
            const Node& nd = gr[v];
            if (nd.kind != NodeKind::device && nd.kind != NodeKind::op) continue;
            const Category c = category_of(g, v);
            if (c == Category::host || c == Category::other) continue;
            const auto r = static_cast<std::size_t>(nd.rank);
            const Interval iv{tm[v].start_ns, tm[v].end_ns};
            (c == Category::compute ? compute : c == Category::memory ? memory : comm)[r].push_back(iv);
            busy[r].push_back(iv);
            work[r].push_back({iv, v, pass == 0});
        }
    }
    double iteration_sum = 0, recorded_sum = 0;
    bool recorded_known = true;
    std::int64_t comm_total = 0, overlap_total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
        const Window& w = g.windows[r];
        RankSummary s;
        s.rank = g.trace->ranks[r].rank;
        s.step = w.step;
        s.recorded_s = w.dur_ns >= 0 ? seconds(w.dur_ns) : -1;
        // The breakdown's window is this rank's last iteration: from its step's opening (or the
        // end of the one before) to its end.
        const std::int64_t win_start =
            copies == 1 ? w.offset_ns : acts.started_at(handle(last_copy, start_of[r])) - t0;
        // One iteration: the previous iteration's backlog delays this one's device work, and in a
        // steady state this one leaves as much behind: its device work counts from the backlog's end.
        const std::int64_t w0 = copies == 1 ? win_start + backlog[r] : std::min(win_start, ends[copies - 2][r] - t0);
        s.iteration_s = copies == 1 ? seconds(std::max(host_end[r] - win_start, device_end[r] - w0))
                                    : seconds(ends[copies - 1][r] - ends[0][r]) / static_cast<double>(copies - 1);
        const auto clip = [&](std::vector<Interval> v) {
            for (Interval& i : v) {
                i.first = std::clamp(i.first, w0, rank_end[r]);
                i.second = std::clamp(i.second, w0, rank_end[r]);
            }
            return merged(std::move(v));
        };
        const auto cm = clip(compute[r]), mm = clip(memory[r]), xm = clip(comm[r]), bm = clip(busy[r]);
        Breakdown& b = s.breakdown;
        b.compute_s = seconds(length(cm));
        b.memory_s = seconds(length(mm));
        b.comm_s = seconds(length(xm));
        const std::int64_t ov = overlap(xm, cm);
        b.exposed_comm_s = seconds(length(xm) - ov);
        b.overlap_fraction = length(xm) > 0 ? static_cast<double>(ov) / static_cast<double>(length(xm)) : 0.0;
        comm_total += length(xm);
        overlap_total += ov;
        b.idle_s = seconds(std::max<std::int64_t>(0, rank_end[r] - w0 - length(bm)));
        // Each idle interval is charged to the work that ends it.
        auto& wk = work[r];
        std::sort(wk.begin(), wk.end(), [](const Work& a, const Work& c) {
            return a.iv != c.iv ? a.iv < c.iv : a.v != c.v ? a.v < c.v : a.previous > c.previous;
        });
        std::int64_t covered = w0;
        std::size_t k = 0;
        while (k < wk.size()) {
            const std::int64_t s0 = wk[k].iv.first;
            if (s0 > covered) {
                Vertex v = wk[k].v;
                const std::vector<Timing>& tm = wk[k].previous ? prev_timing : res.timing;
                // A transfer's cause is its arrival's.
                for (auto [it, end] = boost::in_edges(v, gr); it != end; ++it)
                    if (gr[boost::source(*it, gr)].kind == NodeKind::join) {
                        for (auto [jt, jend] = boost::in_edges(boost::source(*it, gr), gr); jt != jend; ++jt) {
                            const Vertex a = boost::source(*jt, gr);
                            if (gr[a].rank == gr[v].rank && gr[a].event == gr[v].event) v = a;
                        }
                        break;
                    }
                const Vertex u = binding_in(v, tm);
                const double gap = seconds(s0 - covered);
                const NodeKind uk = u == std::numeric_limits<Vertex>::max() ? NodeKind::start : gr[u].kind;
                if (uk == NodeKind::host_call || uk == NodeKind::host_work || uk == NodeKind::start) b.idle.host_wait_s += gap;
                else if ((uk == NodeKind::device || uk == NodeKind::arrive) && gr[u].lane == gr[v].lane) b.idle.kernel_wait_s += gap;
                else b.idle.other_s += gap;
            }
            covered = std::max(covered, wk[k].iv.second);
            ++k;
        }
        if (rank_end[r] > covered) b.idle.other_s += seconds(rank_end[r] - covered);
        iteration_sum += s.iteration_s;
        if (s.recorded_s < 0) recorded_known = false;
        recorded_sum += s.recorded_s;
        res.ranks.push_back(s);
    }
    const double nr = static_cast<double>(ranks);
    res.iteration_s = iteration_sum / nr;
    res.recorded_iteration_s = recorded_known ? recorded_sum / nr : -1;
    for (const RankSummary& s : res.ranks) {
        Breakdown& b = res.breakdown;
        b.compute_s += s.breakdown.compute_s / nr;
        b.memory_s += s.breakdown.memory_s / nr;
        b.comm_s += s.breakdown.comm_s / nr;
        b.exposed_comm_s += s.breakdown.exposed_comm_s / nr;
        b.idle_s += s.breakdown.idle_s / nr;
        b.idle.host_wait_s += s.breakdown.idle.host_wait_s / nr;
        b.idle.kernel_wait_s += s.breakdown.idle.kernel_wait_s / nr;
        b.idle.other_s += s.breakdown.idle.other_s / nr;
    }
    res.breakdown.overlap_fraction =
        comm_total > 0 ? static_cast<double>(overlap_total) / static_cast<double>(comm_total) : 0.0;

    // Critical path, from the end that set the longest rank's iteration: its host's or its
    // device work's, whichever the iteration counted.
    std::size_t longest = 0;
    for (std::size_t r = 1; r < ranks; ++r)
        if (res.ranks[r].iteration_s > res.ranks[longest].iteration_s) longest = r;
    const std::int64_t rank_start = copies == 1 ? g.windows[longest].offset_ns : 0;
    const bool host_bound = copies == 1 && host_end[longest] - rank_start >= device_end[longest] - rank_start - backlog[longest];
    Vertex last = 0;
    bool found = false;
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        if (static_cast<std::size_t>(nd.rank) != longest || nd.kind == NodeKind::join) continue;
        const bool host = nd.kind == NodeKind::host_work || nd.kind == NodeKind::host_call;
        if (copies == 1 && host != host_bound) continue;
        if (!found || res.timing[v].end_ns > res.timing[last].end_ns) last = v;
        found = true;
    }
    std::vector<PathStep> path;
    for (Vertex v = last; v != std::numeric_limits<Vertex>::max(); v = binding(v)) {
        const Node& nd = gr[v];
        if (nd.kind == NodeKind::join || nd.kind == NodeKind::start || nd.kind == NodeKind::arrive || nd.kind == NodeKind::backlog) continue;
        PathStep p;
        p.name = node_name(g, v);
        p.rank = g.trace->ranks[static_cast<std::size_t>(nd.rank)].rank;
        p.lane = nd.lane >= 0 ? g.lanes[static_cast<std::size_t>(nd.lane)].label : std::string();
        p.category = category_of(g, v);
        p.start_s = seconds(res.timing[v].start_ns);
        p.dur_s = seconds(res.timing[v].end_ns - res.timing[v].start_ns);
        p.wait_s = seconds(nd.pre_ns);
        path.push_back(std::move(p));
    }
    std::reverse(path.begin(), path.end());
    res.critical_path = std::move(path);

    // Unknown kernels, by name.
    std::map<std::string, UnknownKernel> unknown;
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        if (nd.kind != NodeKind::device && nd.kind != NodeKind::op) continue;
        const trace::Event* e = node_event(g, v);
        if (!e || e->cls != trace::KernelClass::unknown) continue;
        UnknownKernel& u = unknown[e->name];
        u.name = e->name;
        ++u.count;
        u.recorded_s += seconds(e->dur_ns);
        u.replayed_s += seconds(nd.dur_ns);
    }
    for (auto& [name, u] : unknown) res.unknown_kernels.push_back(std::move(u));
    std::stable_sort(res.unknown_kernels.begin(), res.unknown_kernels.end(),
                     [](const UnknownKernel& a, const UnknownKernel& b) { return a.replayed_s > b.replayed_s; });
    return res;
}

}  // namespace rentsim::replay
