#include "analysis/replay/timeline.hpp"

#include <fmt/format.h>

#ifdef RENTSIM_REPLAY_OWN_TIMELINE_WRITER
#include <map>

#include <nlohmann/json.hpp>

#include "analysis/scenario/input_error.hpp"
#endif

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
                if (gr[to].rank != gr[from].rank) t.flows.push_back({from + 1, to + 1});
            }
            continue;
        }
        a = span_of(a);
        b = span_of(b);
        if (has_span(a) && has_span(b)) t.flows.push_back({a + 1, b + 1});
    }
    return t;
}

#ifdef RENTSIM_REPLAY_OWN_TIMELINE_WRITER
std::string timeline_json(const report::Timeline& t, const std::string& path, const report::TimelineLimits& limits) {
    if (t.spans.size() > limits.max_spans)
        throw analysis::InputError(path, "", fmt::format("{} spans, more than the limit of {}", t.spans.size(), limits.max_spans));
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    for (std::size_t p = 0; p < t.process_names.size(); ++p)
        events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", p}, {"args", {{"name", t.process_names[p]}}}});
    std::map<std::uint64_t, const report::TimelineSpan*> by_id;
    const auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
    for (const report::TimelineSpan& s : t.spans) {
        nlohmann::ordered_json args = nlohmann::ordered_json::object();
        for (const auto& [k, v] : s.args) args[k] = v;
        events.push_back({{"ph", "X"}, {"name", s.name}, {"cat", s.category}, {"pid", s.process}, {"tid", s.thread},
                          {"ts", us(s.start_ns)}, {"dur", us(s.dur_ns)}, {"args", args}});
        by_id[s.id] = &s;
    }
    std::uint64_t flow_id = 0;
    for (const report::TimelineFlow& f : t.flows) {
        const auto a = by_id.find(f.from_id), b = by_id.find(f.to_id);
        if (a == by_id.end() || b == by_id.end()) continue;
        ++flow_id;
        events.push_back({{"ph", "s"}, {"id", flow_id}, {"name", "dep"}, {"cat", "dep"}, {"pid", a->second->process},
                          {"tid", a->second->thread}, {"ts", us(a->second->start_ns + a->second->dur_ns)}});
        events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"name", "dep"}, {"cat", "dep"},
                          {"pid", b->second->process}, {"tid", b->second->thread}, {"ts", us(b->second->start_ns)}});
    }
    nlohmann::ordered_json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
    return doc.dump() + "\n";
}
#endif

}  // namespace rentsim::replay
