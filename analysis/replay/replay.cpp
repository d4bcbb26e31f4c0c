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
    case NodeKind::arrive: return Category::other;
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

ReplayResult run_replay(const ReplayGraph& g) {
    const Graph& gr = g.graph;
    const std::size_t n = boost::num_vertices(gr);
    sim::Engine engine;
    sim::ActivityGraph acts(engine);
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        acts.add_delay(node_name(g, v), nd.pre_ns + nd.dur_ns, static_cast<std::uint32_t>(nd.kind));
    }
    for (auto [it, end] = boost::edges(gr); it != end; ++it)
        acts.precede(static_cast<sim::ActivityGraph::Handle>(boost::source(*it, gr)),
                     static_cast<sim::ActivityGraph::Handle>(boost::target(*it, gr)));
    try {
        acts.start(nullptr);
    } catch (const std::logic_error& e) {
        throw analysis::InputError(g.trace->ranks.front().file, "",
                                   std::string("the recorded dependencies cannot be replayed: ") + e.what());
    }
    engine.run();

    ReplayResult res;
    res.fingerprint = engine.fingerprint();
    res.timing.resize(n);
    for (Vertex v = 0; v < n; ++v) {
        const auto h = static_cast<sim::ActivityGraph::Handle>(v);
        res.timing[v] = {acts.started_at(h) + gr[v].pre_ns, acts.finished_at(h)};
    }
    // A transfer spans its arrival too, as the recorded kernel does.
    for (Vertex v = 0; v < n; ++v) {
        if (gr[v].kind != NodeKind::arrive) continue;
        for (auto [it, end] = boost::out_edges(v, gr); it != end; ++it) {
            const Vertex j = boost::target(*it, gr);
            if (gr[j].kind == NodeKind::device) res.timing[j].start_ns = res.timing[v].start_ns;
            if (gr[j].kind != NodeKind::join) continue;
            for (auto [jt, jend] = boost::out_edges(j, gr); jt != jend; ++jt) {
                const Vertex t = boost::target(*jt, gr);
                if (gr[t].rank == gr[v].rank && gr[t].event == gr[v].event) res.timing[t].start_ns = res.timing[v].start_ns;
            }
        }
    }
    // The predecessor that finished last: what held v back.
    const auto binding = [&](Vertex v) {
        Vertex best = std::numeric_limits<Vertex>::max();
        std::int64_t latest = -1;
        for (auto [it, end] = boost::in_edges(v, gr); it != end; ++it) {
            const Vertex u = boost::source(*it, gr);
            if (res.timing[u].end_ns > latest || (res.timing[u].end_ns == latest && u < best)) {
                latest = res.timing[u].end_ns;
                best = u;
            }
        }
        return best;
    };

    // Per rank: iteration, breakdown.
    const std::size_t ranks = g.windows.size();
    std::vector<std::int64_t> rank_end(ranks, 0);
    std::vector<std::vector<Interval>> compute(ranks), memory(ranks), comm(ranks), busy(ranks);
    std::vector<std::vector<std::pair<Interval, Vertex>>> work(ranks);
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = gr[v];
        if (nd.kind == NodeKind::join) continue;
        const auto r = static_cast<std::size_t>(nd.rank);
        rank_end[r] = std::max(rank_end[r], res.timing[v].end_ns);
        if (nd.kind != NodeKind::device && nd.kind != NodeKind::op) continue;
        const Category c = category_of(g, v);
        if (c == Category::host || c == Category::other) continue;
        const Interval iv{res.timing[v].start_ns, res.timing[v].end_ns};
        (c == Category::compute ? compute : c == Category::memory ? memory : comm)[r].push_back(iv);
        busy[r].push_back(iv);
        work[r].push_back({iv, v});
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
        const std::int64_t t0 = w.offset_ns;
        s.iteration_s = seconds(rank_end[r] - t0);
        const auto cm = merged(compute[r]), mm = merged(memory[r]), xm = merged(comm[r]), bm = merged(busy[r]);
        Breakdown& b = s.breakdown;
        b.compute_s = seconds(length(cm));
        b.memory_s = seconds(length(mm));
        b.comm_s = seconds(length(xm));
        const std::int64_t ov = overlap(xm, cm);
        b.exposed_comm_s = seconds(length(xm) - ov);
        b.overlap_fraction = length(xm) > 0 ? static_cast<double>(ov) / static_cast<double>(length(xm)) : 0.0;
        comm_total += length(xm);
        overlap_total += ov;
        b.idle_s = seconds(rank_end[r] - t0 - length(bm));
        // Each idle interval is charged to the work that ends it.
        auto& wk = work[r];
        std::sort(wk.begin(), wk.end());
        std::int64_t covered = t0;
        std::size_t k = 0;
        while (k < wk.size()) {
            const std::int64_t s0 = wk[k].first.first;
            if (s0 > covered) {
                Vertex v = wk[k].second;
                // A transfer's cause is its arrival's.
                for (auto [it, end] = boost::in_edges(v, gr); it != end; ++it)
                    if (gr[boost::source(*it, gr)].kind == NodeKind::join) {
                        for (auto [jt, jend] = boost::in_edges(boost::source(*it, gr), gr); jt != jend; ++jt) {
                            const Vertex a = boost::source(*jt, gr);
                            if (gr[a].rank == gr[v].rank && gr[a].event == gr[v].event) v = a;
                        }
                        break;
                    }
                const Vertex u = binding(v);
                const double gap = seconds(s0 - covered);
                const NodeKind uk = u == std::numeric_limits<Vertex>::max() ? NodeKind::start : gr[u].kind;
                if (uk == NodeKind::host_call || uk == NodeKind::host_work || uk == NodeKind::start) b.idle.host_wait_s += gap;
                else if ((uk == NodeKind::device || uk == NodeKind::arrive) && gr[u].lane == gr[v].lane) b.idle.kernel_wait_s += gap;
                else b.idle.other_s += gap;
            }
            covered = std::max(covered, wk[k].first.second);
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

    // Critical path, from the last finish backwards.
    Vertex last = 0;
    for (Vertex v = 1; v < n; ++v)
        if (res.timing[v].end_ns > res.timing[last].end_ns) last = v;
    std::vector<PathStep> path;
    for (Vertex v = last; v != std::numeric_limits<Vertex>::max(); v = binding(v)) {
        const Node& nd = gr[v];
        if (nd.kind == NodeKind::join || nd.kind == NodeKind::start || nd.kind == NodeKind::arrive) continue;
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
