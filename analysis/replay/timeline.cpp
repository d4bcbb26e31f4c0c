#include "analysis/replay/timeline.hpp"

#include <fmt/format.h>

namespace rentsim::replay {

report::Timeline replay_timeline(const ReplayGraph& g, const ReplayResult& r) {
    report::Timeline t;
    for (const trace::RankTrace& rt : g.trace->ranks) t.process_names.push_back(fmt::format("rank {}", rt.rank));
    const Graph& gr = g.graph;
    const auto has_span = [&](Vertex v) {
        const NodeKind k = gr[v].kind;
        return k != NodeKind::start && k != NodeKind::arrive && k != NodeKind::join;
    };
    for (Vertex v = 0; v < boost::num_vertices(gr); ++v) {
        if (!has_span(v)) continue;
        const Node& n = gr[v];
        report::TimelineSpan s;
        s.process = n.rank;
        s.thread = g.lanes[static_cast<std::size_t>(n.lane)].label;
        s.name = node_name(g, v);
        s.category = std::string(to_string(category_of(g, v)));
        s.start_ns = r.timing[v].start_ns;
        s.dur_ns = r.timing[v].end_ns - r.timing[v].start_ns;
        s.id = v + 1;
        if (n.pre_ns > 0) s.args.emplace_back("launch_latency_ns", std::to_string(n.pre_ns));
        if (n.collective >= 0) s.args.emplace_back("collective", g.collectives[static_cast<std::size_t>(n.collective)].key);
        t.spans.push_back(std::move(s));
    }
    // Flows between spans: an arrival or join stands for its transfer.
    const auto span_of = [&](Vertex v) -> Vertex {
        if (gr[v].kind != NodeKind::arrive) return v;
        for (auto [it, end] = boost::out_edges(v, gr); it != end; ++it) {
            const Vertex u = boost::target(*it, gr);
            if (gr[u].kind == NodeKind::device || gr[u].kind == NodeKind::op) return u;
            if (gr[u].kind == NodeKind::join)
                for (auto [jt, jend] = boost::out_edges(u, gr); jt != jend; ++jt) {
                    const Vertex w = boost::target(*jt, gr);
                    if (gr[w].rank == gr[v].rank && gr[w].event == gr[v].event) return w;
                }
        }
        return v;
    };
    // An arrow binds to its spans' starts (report::timeline_json) and may not point back in time:
    // of a collective's members, whose spans overlap, the earlier arrivals point to the later.
    const auto forward = [&](Vertex a, Vertex b) { return r.timing[a].start_ns <= r.timing[b].start_ns; };
    for (auto [it, end] = boost::edges(gr); it != end; ++it) {
        const EdgeKind k = gr[*it].kind;
        if (k != EdgeKind::launch && k != EdgeKind::event_wait && k != EdgeKind::host_sync && k != EdgeKind::recorded &&
            k != EdgeKind::collective)
            continue;
        Vertex a = boost::source(*it, gr), b = boost::target(*it, gr);
        if (k == EdgeKind::collective) {
            // arrive -> join: a flow from each member's span to every other member's.
            if (gr[b].kind != NodeKind::join) continue;
            const Vertex from = span_of(a);
            for (auto [jt, jend] = boost::out_edges(b, gr); jt != jend; ++jt) {
                const Vertex to = boost::target(*jt, gr);
                if (gr[to].rank != gr[from].rank && forward(from, to)) t.flows.push_back({from + 1, to + 1});
            }
            continue;
        }
        a = span_of(a);
        b = span_of(b);
        if (has_span(a) && has_span(b) && forward(a, b)) t.flows.push_back({a + 1, b + 1});
    }
    return t;
}

}  // namespace rentsim::replay
