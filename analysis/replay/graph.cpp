#include "analysis/replay/graph.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <iterator>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "analysis/scenario/input_error.hpp"

namespace rentsim::replay {

namespace {

using trace::Event;
using trace::EventKind;
using trace::RankTrace;

// Kineto times are whole microseconds on two clocks (host and GPU, aligned by CUPTI): a kernel
// may appear to end up to about a microsecond after the synchronisation that waited for it.
constexpr std::int64_t clock_tolerance_ns = 2'000;

bool is_device_work(const Event& e) {
    return e.kind == EventKind::kernel || e.kind == EventKind::memcpy || e.kind == EventKind::memset;
}

bool is_collective(const Event& e) { return e.has_coll || e.cls == trace::KernelClass::communication; }

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// cudaDeviceSynchronize waits for every stream; the stream and event synchronisations for one.
enum class SyncKind { none, device, stream };
SyncKind sync_kind(const std::string& name) {
    if (contains(name, "DeviceSynchronize")) return SyncKind::device;
    if (contains(name, "StreamSynchronize") || contains(name, "EventSynchronize")) return SyncKind::stream;
    return SyncKind::none;
}
// A synchronous copy (cudaMemcpy, hipMemcpy, not the Async forms): the host waits for its copy.
bool is_sync_copy(const std::string& name) { return name == "cudaMemcpy" || name == "hipMemcpy"; }

std::int64_t end_of(const Event& e) { return e.start_ns + e.dur_ns; }

struct RankBuild {
    std::vector<Vertex> in_v, out_v;   // per event: where edges enter and leave; npos if absent
    std::vector<Vertex> call_v;        // per runtime call: its (first) vertex
    std::vector<Vertex> wait_v;        // per synchronous copy: the vertex after its copy
    std::vector<std::int64_t> launch_of;  // per device event: the launching call, -1 if none
    std::vector<char> selected;
};

constexpr Vertex no_vertex = std::numeric_limits<Vertex>::max();

class Builder {
public:
    Builder(const trace::Trace& t, const GraphOptions& o) : t_(t), o_(o) { g_.trace = &t; }

    ReplayGraph build() {
        if (t_.ranks.empty()) throw analysis::InputError("", "", "the trace holds no rank to replay");
        choose_windows();
        rec_end_.clear();
        for (std::size_t r = 0; r < t_.ranks.size(); ++r) build_rank(static_cast<int>(r));
        match_collectives();
        connect_starts();
        return std::move(g_);
    }

private:
    Vertex add(Node n, std::int64_t rec_end) {
        const Vertex v = boost::add_vertex(n, g_.graph);
        rec_end_.push_back(rec_end);
        return v;
    }
    void edge(Vertex a, Vertex b, EdgeKind k) {
        if (a == no_vertex || b == no_vertex || a == b) return;
        boost::add_edge(a, b, Edge{k}, g_.graph);
    }
    int lane(int rank, bool host, int device, std::int64_t id) {
        const auto key = std::make_tuple(rank, host, device, id);
        auto it = lane_index_.find(key);
        if (it != lane_index_.end()) return it->second;
        Lane l{rank, host, device, id,
               host ? fmt::format("thread {}", id) : fmt::format("gpu {} stream {}", device, id)};
        g_.lanes.push_back(std::move(l));
        const int i = static_cast<int>(g_.lanes.size() - 1);
        lane_index_.emplace(key, i);
        return i;
    }

    void choose_windows();
    void build_rank(int r);
    void match_collectives();
    void connect_starts();

    const trace::Trace& t_;
    const GraphOptions& o_;
    ReplayGraph g_;
    std::vector<std::int64_t> rec_end_;  // per vertex: its recorded end on the trace clock, -1 unknown
    std::map<std::tuple<int, bool, int, std::int64_t>, int> lane_index_;
    std::vector<Vertex> start_v_;
    // Per rank, the collectives in recorded order: (arrive, transfer, event index).
    struct CollectiveUse {
        Vertex arrive, transfer;
        std::uint32_t event;
    };
    std::vector<std::vector<CollectiveUse>> coll_uses_;
    std::unordered_map<Vertex, Vertex> arrive_of_;  // transfer -> its arrival
};

void Builder::choose_windows() {
    const std::size_t n = t_.ranks.size();
    g_.windows.assign(n, Window{});
    std::set<int> common;
    bool any_steps = false, first = true;
    for (const RankTrace& rt : t_.ranks) {
        if (rt.steps.empty()) continue;
        std::set<int> mine;
        for (const trace::Step& s : rt.steps) mine.insert(s.number);
        if (first) {
            common = mine;
            first = false;
        } else {
            std::set<int> both;
            std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(), std::inserter(both, both.end()));
            common = std::move(both);
        }
        any_steps = true;
    }
    int step = o_.step;
    if (step < 0 && any_steps) {
        if (common.empty()) throw analysis::InputError(t_.ranks.front().file, "", "the ranks share no ProfilerStep to replay");
        step = *common.rbegin();
    }
    bool whole_noted = false;
    for (std::size_t r = 0; r < n; ++r) {
        const RankTrace& rt = t_.ranks[r];
        Window& w = g_.windows[r];
        const trace::Step* found = nullptr;
        for (const trace::Step& s : rt.steps)
            if (s.number == step) found = &s;
        if (!rt.steps.empty() && !found) {
            std::string have;
            for (const trace::Step& s : rt.steps) have += (have.empty() ? "" : ", ") + std::to_string(s.number);
            throw analysis::InputError(rt.file, "", fmt::format("no ProfilerStep#{}; the steps recorded are {}", step, have));
        }
        if (found) {
            w.step = step;
            w.start_ns = found->start_ns;
            w.dur_ns = found->dur_ns;
            continue;
        }
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
        for (const Event& e : rt.events) {
            if (e.start_ns < 0) continue;
            lo = std::min(lo, e.start_ns);
            hi = std::max(hi, end_of(e));
        }
        if (lo <= hi) {
            w.start_ns = lo;
            w.dur_ns = hi - lo;
        }
        if (!whole_noted) {
            g_.notes.push_back(lo <= hi ? "no ProfilerStep annotations: the whole recording is replayed as one iteration"
                                        : "no recorded times: the iteration is scheduled by the recorded dependencies "
                                          "alone, and has no recorded duration to compare with");
            whole_noted = true;
        }
    }
    if (step >= 0) g_.notes.push_back(fmt::format("replayed ProfilerStep#{}", step));
    // Ranks keep their recorded offsets, unless the clocks plainly disagree (an offset longer
    // than any iteration: ranks on hosts whose clocks were not synchronised).
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max(), longest = 0;
    for (const Window& w : g_.windows)
        if (w.dur_ns >= 0) {
            earliest = std::min(earliest, w.start_ns);
            longest = std::max(longest, w.dur_ns);
        }
    bool skewed = false;
    for (Window& w : g_.windows) {
        w.offset_ns = w.dur_ns >= 0 ? w.start_ns - earliest : 0;
        if (w.offset_ns > longest) skewed = true;
    }
    if (skewed) {
        for (Window& w : g_.windows) w.offset_ns = 0;
        g_.notes.push_back("the ranks' recorded step starts differ by more than a step: clocks taken as unsynchronised, "
                           "every rank starts at 0");
    }
}

void Builder::build_rank(int r) {
    const RankTrace& rt = t_.ranks[static_cast<std::size_t>(r)];
    const Window& w = g_.windows[static_cast<std::size_t>(r)];
    const std::size_t n = rt.events.size();
    RankBuild b;
    b.in_v.assign(n, no_vertex);
    b.out_v.assign(n, no_vertex);
    b.call_v.assign(n, no_vertex);
    b.wait_v.assign(n, no_vertex);
    b.launch_of.assign(n, -1);
    b.selected.assign(n, 0);

    Node sn;
    sn.kind = NodeKind::start;
    sn.rank = r;
    sn.dur_ns = w.offset_ns;
    sn.recorded_start_ns = -w.offset_ns;
    start_v_.push_back(add(sn, w.start_ns));
    coll_uses_.emplace_back();

    const bool timed_window = w.dur_ns >= 0;
    const std::int64_t w_end = timed_window ? w.start_ns + w.dur_ns : 0;
    const auto in_window = [&](const Event& e) {
        return e.start_ns >= 0 && (!timed_window || (e.start_ns >= w.start_ns && e.start_ns < w_end));
    };

    // Host runtime calls in the window, by thread; launches by correlation id.
    std::map<std::int64_t, std::vector<std::uint32_t>> calls;
    std::unordered_map<std::int64_t, std::uint32_t> call_of_corr;
    std::unordered_map<std::int64_t, std::int64_t> any_call_corr;  // correlation -> its call's start
    for (std::uint32_t i = 0; i < n; ++i) {
        const Event& e = rt.events[i];
        if (e.kind == EventKind::runtime && e.correlation >= 0) any_call_corr.emplace(e.correlation, e.start_ns);
        if (e.kind != EventKind::runtime || e.device >= 0 || !in_window(e)) continue;
        calls[e.stream].push_back(i);
        b.selected[i] = 1;
        if (e.correlation >= 0) call_of_corr.emplace(e.correlation, i);
    }
    std::unordered_map<std::uint32_t, std::uint32_t> flow_launch;  // device event -> call
    for (const trace::Dep& d : rt.deps)
        if (d.kind == trace::DepKind::flow && d.from < n && d.to < n) flow_launch.emplace(d.to, d.from);

    // Device work: launched by a call of the window, or without a known launch, started in it.
    std::map<std::pair<int, std::int64_t>, std::vector<std::uint32_t>> streams;
    std::map<std::pair<int, std::int64_t>, std::int64_t> backlog;  // per stream, ns after the window opens
    std::vector<std::uint32_t> ops;  // Chakra nodes
    for (std::uint32_t i = 0; i < n; ++i) {
        const Event& e = rt.events[i];
        if (e.start_ns < 0) {
            if (e.kind != EventKind::annotation) ops.push_back(i);
            continue;
        }
        if (!is_device_work(e)) continue;
        // Work launched outside the window belongs to another iteration, wherever it ran.
        std::int64_t launch = -1;
        bool launched_elsewhere = false;
        if (e.correlation >= 0) {
            auto it = call_of_corr.find(e.correlation);
            if (it != call_of_corr.end()) launch = it->second;
            else {
                auto other = any_call_corr.find(e.correlation);
                launched_elsewhere = other != any_call_corr.end();
                // Work of the previous iteration still running when this one opens.
                if (launched_elsewhere && timed_window && other->second < w.start_ns && end_of(e) > w.start_ns &&
                    e.start_ns < w_end) {
                    std::int64_t& bl = backlog[{e.device, e.stream}];
                    bl = std::max(bl, end_of(e) - w.start_ns);
                }
            }
        }
        if (launch < 0) {
            auto it = flow_launch.find(i);
            if (it != flow_launch.end()) {
                if (b.selected[it->second]) launch = it->second;
                else launched_elsewhere = true;
            }
        }
        if (launched_elsewhere || (launch < 0 && !in_window(e))) continue;
        b.launch_of[i] = launch;
        b.selected[i] = 1;
        streams[{e.device, e.stream}].push_back(i);
    }

    // Host threads: calls in recorded order, the gaps between them as host work. The thread that
    // calls first in the window (the training loop, which opens the step) also carries the host
    // time after its last call.
    std::int64_t main_thread = -1, earliest = std::numeric_limits<std::int64_t>::max();
    for (const auto& [tid, list] : calls)
        for (std::uint32_t i : list)
            if (rt.events[i].start_ns < earliest) {
                earliest = rt.events[i].start_ns;
                main_thread = tid;
            }
    if (main_thread >= 0) g_.windows[static_cast<std::size_t>(r)].main_lane = lane(r, true, -1, main_thread);
    std::unordered_map<std::int64_t, std::uint32_t> copy_of_call;  // synchronous copy call -> its copy
    for (const auto& [key, list] : streams)
        for (std::uint32_t i : list)
            if (b.launch_of[i] >= 0 && is_sync_copy(rt.events[static_cast<std::size_t>(b.launch_of[i])].name))
                copy_of_call.emplace(static_cast<std::uint32_t>(b.launch_of[i]), i);
    std::vector<std::pair<std::int64_t, Vertex>> thread_last;  // per thread: its last vertex
    std::map<std::int64_t, std::vector<Vertex>> thread_chain;
    for (auto& [tid, list] : calls) {
        std::stable_sort(list.begin(), list.end(),
                         [&](std::uint32_t a, std::uint32_t c) { return rt.events[a].start_ns < rt.events[c].start_ns; });
        const int ln = lane(r, true, -1, tid);
        std::vector<Vertex>& chain = thread_chain[tid];
        std::int64_t prev_end = w.start_ns;
        const auto add_gap = [&](std::int64_t until) {
            if (until <= prev_end) return;
            Node h;
            h.kind = NodeKind::host_work;
            h.rank = r;
            h.lane = ln;
            h.dur_ns = until - prev_end;
            h.recorded_start_ns = prev_end - w.start_ns;
            chain.push_back(add(h, until));
        };
        for (std::uint32_t i : list) {
            const Event& e = rt.events[i];
            add_gap(e.start_ns);
            Node c;
            c.kind = NodeKind::host_call;
            c.rank = r;
            c.event = i;
            c.lane = ln;
            c.dur_ns = e.dur_ns;
            c.recorded_start_ns = e.start_ns - w.start_ns;
            auto copy = copy_of_call.find(i);
            if (copy != copy_of_call.end()) {
                // The call issues its copy, then waits for it: two vertices around the copy.
                const Event& d = rt.events[copy->second];
                const std::int64_t issue = std::clamp<std::int64_t>(d.start_ns - e.start_ns, 0, e.dur_ns);
                c.dur_ns = issue;
                b.call_v[i] = add(c, e.start_ns + issue);
                chain.push_back(b.call_v[i]);
                Node wv = c;
                wv.dur_ns = std::clamp<std::int64_t>(end_of(e) - end_of(d), 0, e.dur_ns - issue);
                wv.recorded_start_ns = end_of(e) - wv.dur_ns - w.start_ns;
                b.wait_v[i] = add(wv, end_of(e));
                chain.push_back(b.wait_v[i]);
            } else {
                b.call_v[i] = add(c, end_of(e));
                chain.push_back(b.call_v[i]);
            }
            prev_end = std::max(prev_end, end_of(e));
        }
        if (tid == main_thread && timed_window) add_gap(w_end);
        for (std::size_t k = 1; k < chain.size(); ++k) edge(chain[k - 1], chain[k], EdgeKind::order);
    }
    // Other threads (PyTorch's autograd thread runs the backward pass) start after what the
    // main thread did before them, not at a fixed time, and the main thread's host time that
    // spans their end was spent waiting for them (loss.backward() returns when they finish).
    if (main_thread >= 0) {
        const std::vector<Vertex>& main_chain = thread_chain[main_thread];
        const auto rec_start = [&](Vertex v) { return g_.graph[v].recorded_start_ns + w.start_ns; };
        for (auto& [tid, chain] : thread_chain) {
            if (tid == main_thread || chain.empty()) continue;
            const std::uint32_t first_call = calls[tid].front();
            const std::int64_t first = rt.events[first_call].start_ns;
            Vertex anchor = no_vertex;
            for (Vertex v : main_chain)
                if (rec_end_[v] <= first) anchor = v;
            Node& head = g_.graph[chain.front()];
            if (anchor != no_vertex && head.kind == NodeKind::host_work) {
                head.dur_ns = first - rec_end_[anchor];
                head.recorded_start_ns = rec_end_[anchor] - w.start_ns;
                edge(anchor, chain.front(), EdgeKind::order);
            }
            const std::int64_t last = rec_end_[chain.back()];
            for (Vertex v : main_chain) {
                Node& m = g_.graph[v];
                if (m.kind != NodeKind::host_work || rec_start(v) >= last || rec_end_[v] <= last) continue;
                m.dur_ns = rec_end_[v] - last;
                m.recorded_start_ns = last - w.start_ns;
                edge(chain.back(), v, EdgeKind::order);
            }
        }
    }

    // Streams: device work in recorded order; a collective is an arrival and its transfer.
    const auto add_work = [&](std::uint32_t i, NodeKind kind, int ln) {
        const Event& e = rt.events[i];
        Node d;
        d.kind = kind;
        d.rank = r;
        d.event = i;
        d.lane = ln;
        d.dur_ns = e.dur_ns;
        d.recorded_start_ns = e.start_ns >= 0 ? e.start_ns - w.start_ns : -1;
        const std::int64_t rec_end = e.start_ns >= 0 ? end_of(e) : -1;
        if (is_collective(e)) {
            Node a = d;
            a.kind = NodeKind::arrive;
            a.dur_ns = 0;
            b.in_v[i] = add(a, e.start_ns);
            b.out_v[i] = add(d, rec_end);
            coll_uses_.back().push_back({b.in_v[i], b.out_v[i], i});
        } else {
            b.in_v[i] = b.out_v[i] = add(d, rec_end);
        }
    };
    for (auto& [key, list] : streams) {
        std::stable_sort(list.begin(), list.end(),
                         [&](std::uint32_t a, std::uint32_t c) { return rt.events[a].start_ns < rt.events[c].start_ns; });
        const int ln = lane(r, false, key.first, key.second);
        Vertex previous = no_vertex;
        if (auto bl = backlog.find(key); bl != backlog.end() && bl->second > 0) {
            Node p;
            p.kind = NodeKind::backlog;
            p.rank = r;
            p.lane = ln;
            p.dur_ns = bl->second;
            p.recorded_start_ns = 0;
            previous = add(p, w.start_ns + bl->second);
            g_.windows[static_cast<std::size_t>(r)].backlog_ns = std::max(g_.windows[static_cast<std::size_t>(r)].backlog_ns, bl->second);
        }
        for (std::size_t k = 0; k < list.size(); ++k) {
            add_work(list[k], NodeKind::device, ln);
            if (k == 0) edge(previous, b.in_v[list[k]], EdgeKind::order);
            if (k > 0) edge(b.out_v[list[k - 1]], b.in_v[list[k]], EdgeKind::order);
            const std::int64_t launch = b.launch_of[list[k]];
            if (launch >= 0) edge(b.call_v[static_cast<std::size_t>(launch)], b.in_v[list[k]], EdgeKind::launch);
        }
        // A synchronous copy's wait follows its copy.
        for (std::uint32_t i : list) {
            const std::int64_t launch = b.launch_of[i];
            if (launch >= 0 && b.wait_v[static_cast<std::size_t>(launch)] != no_vertex)
                edge(b.out_v[i], b.wait_v[static_cast<std::size_t>(launch)], EdgeKind::host_sync);
        }
    }
    // Chakra nodes: no times, their recorded dependencies order them.
    for (std::uint32_t i : ops) {
        const Event& e = rt.events[i];
        add_work(i, NodeKind::op, e.device >= 0 ? lane(r, false, e.device, e.stream) : lane(r, true, -1, e.stream));
        b.selected[i] = 1;
    }
    // Chakra control dependencies name a node's parent operator (the hierarchy of the PyTorch
    // trace it was converted from), not an order of execution: a kernel's parent may end after
    // it, which closes cycles with the data dependencies. Chakra's own feeder (et_feeder) issues
    // nodes by their data dependencies, and so does the replay.
    std::size_t control_deps = 0;
    for (const trace::Dep& d : rt.deps) {
        if (d.from >= n || d.to >= n || !b.selected[d.from] || !b.selected[d.to]) continue;
        if (d.kind == trace::DepKind::control) {
            ++control_deps;
            continue;
        }
        if (d.kind == trace::DepKind::flow) {
            if (b.launch_of[d.to] < 0 && b.call_v[d.from] != no_vertex) edge(b.call_v[d.from], b.in_v[d.to], EdgeKind::launch);
        } else {
            edge(b.out_v[d.from], b.in_v[d.to], EdgeKind::recorded);
        }
    }
    if (control_deps > 0)
        g_.notes.push_back(fmt::format("rank {}: {} control dependencies (parent operators) not replayed: the order is the "
                                       "data dependencies'", r, control_deps));

    // Cross-stream events and host synchronisation, walking each thread's calls in order.
    // cudaEventRecord marks the last work this thread launched (Kineto does not always say on
    // which stream: taken as the stream of that work); cudaStreamWaitEvent holds the next work
    // the thread launches, when that is on another stream and the recording agrees (it started
    // after the marked work ended).
    std::unordered_map<std::int64_t, std::uint32_t> device_of_call;
    for (const auto& [key, list] : streams)
        for (std::uint32_t i : list)
            if (b.launch_of[i] >= 0) device_of_call.emplace(b.launch_of[i], i);
    // A long call that returned as some device work ended was held by the GPU (a full launch
    // queue, the caching allocator polling events): it waits for that work, and only what
    // followed is its own time.
    // A long call that returned as some device work ended was held by the GPU (a full launch
    // queue, the caching allocator polling events): it waits for that work, and only what
    // followed is its own time. When that work belongs to the previous iteration (a GPU-bound
    // run's backlog), which this replay does not hold, the wait is dropped with it.
    const auto block_on_device = [&](std::uint32_t i) {
        const Event& e = rt.events[i];
        std::int64_t best = -1;
        for (std::uint32_t k = 0; k < n; ++k) {
            const Event& d = rt.events[k];
            if (!is_device_work(d) || d.start_ns < 0 || end_of(d) <= e.start_ns || end_of(d) > end_of(e) + clock_tolerance_ns)
                continue;
            if (b.selected[k] && (b.launch_of[k] < 0 ? d.start_ns : rt.events[static_cast<std::size_t>(b.launch_of[k])].start_ns) >= e.start_ns)
                continue;  // launched by this call or after it
            if (best < 0 || end_of(d) > end_of(rt.events[static_cast<std::size_t>(best)])) best = k;
        }
        if (best < 0) return;
        const Event& d = rt.events[static_cast<std::size_t>(best)];
        if (end_of(e) - end_of(d) > clock_tolerance_ns) return;
        if (b.selected[static_cast<std::size_t>(best)]) edge(b.out_v[static_cast<std::size_t>(best)], b.call_v[i], EdgeKind::host_sync);
        g_.graph[b.call_v[i]].dur_ns = std::clamp<std::int64_t>(end_of(e) - end_of(d), 0, e.dur_ns);
    };
    for (const auto& [tid, list] : calls) {
        std::int64_t last_launched = -1, last_record = -1, pending_wait = -1;
        std::unordered_map<std::int64_t, std::int64_t> records;
        for (std::uint32_t i : list) {
            const Event& e = rt.events[i];
            auto dev = device_of_call.find(i);
            if (dev != device_of_call.end()) {
                const std::uint32_t d = dev->second;
                if (pending_wait >= 0) {
                    const Event& src = rt.events[static_cast<std::size_t>(pending_wait)];
                    const Event& dst = rt.events[d];
                    if ((src.device != dst.device || src.stream != dst.stream) && dst.start_ns >= end_of(src))
                        edge(b.out_v[static_cast<std::size_t>(pending_wait)], b.in_v[d], EdgeKind::event_wait);
                    pending_wait = -1;
                }
                last_launched = d;
            }
            if (contains(e.name, "EventRecord")) {
                last_record = last_launched;
                if (e.cuda_event >= 0) records[e.cuda_event] = last_launched;
            } else if (contains(e.name, "StreamWaitEvent")) {
                pending_wait = last_record;
                if (e.cuda_event >= 0) {
                    auto it = records.find(e.cuda_event);
                    pending_wait = it != records.end() ? it->second : -1;
                }
                if (last_record < 0 && e.cuda_event < 0) pending_wait = last_launched;
            }
            const SyncKind sk = sync_kind(e.name);
            if (sk == SyncKind::none) {
                if (e.dur_ns > max_unblocked_call_ns && b.wait_v[i] == no_vertex) block_on_device(i);
                continue;
            }
            // The last work of each stream launched before the call and finished before it
            // returned: what the call waited for.
            std::vector<std::uint32_t> awaited;
            for (const auto& [key, slist] : streams) {
                std::int64_t best = -1;
                for (std::uint32_t k : slist) {
                    const Event& d = rt.events[k];
                    const std::int64_t issued = b.launch_of[k] >= 0 ? rt.events[static_cast<std::size_t>(b.launch_of[k])].start_ns
                                                                    : d.start_ns;
                    if (issued < e.start_ns && end_of(d) <= end_of(e) + clock_tolerance_ns) best = k;
                }
                if (best >= 0) awaited.push_back(static_cast<std::uint32_t>(best));
            }
            if (sk == SyncKind::stream && awaited.size() > 1) {
                const auto latest = std::max_element(awaited.begin(), awaited.end(), [&](std::uint32_t a, std::uint32_t c) {
                    return end_of(rt.events[a]) < end_of(rt.events[c]);
                });
                awaited = {*latest};
            }
            std::int64_t waited_until = e.start_ns;
            for (std::uint32_t k : awaited) {
                edge(b.out_v[k], b.call_v[i], EdgeKind::host_sync);
                waited_until = std::max(waited_until, end_of(rt.events[k]));
            }
            // Only what followed the wait is the call's own time.
            g_.graph[b.call_v[i]].dur_ns = std::clamp<std::int64_t>(end_of(e) - waited_until, 0, e.dur_ns);
        }
    }

    // Recorded launch latency: a device op's start after its predecessors' recorded ends.
    for (std::uint32_t i = 0; i < n; ++i) {
        if (b.in_v[i] == no_vertex || rt.events[i].start_ns < 0) continue;
        const Vertex v = b.in_v[i];
        std::int64_t ready = -1;
        for (auto [it, end] = boost::in_edges(v, g_.graph); it != end; ++it)
            ready = std::max(ready, rec_end_[boost::source(*it, g_.graph)]);
        if (ready >= 0) g_.graph[v].pre_ns = std::clamp<std::int64_t>(rt.events[i].start_ns - ready, 0, max_kept_launch_delay_ns);
    }
}

void Builder::match_collectives() {
    // Members are matched by process group and sequence number, or, where the recording has no
    // sequence, by their order in the group on each rank.
    std::map<std::string, std::size_t> index;
    for (std::size_t r = 0; r < coll_uses_.size(); ++r) {
        const RankTrace& rt = t_.ranks[r];
        std::map<std::string, std::int64_t> counter;
        std::vector<CollectiveUse> uses = coll_uses_[r];
        std::stable_sort(uses.begin(), uses.end(), [&](const CollectiveUse& a, const CollectiveUse& c) {
            return rt.events[a.event].start_ns < rt.events[c.event].start_ns;
        });
        for (const CollectiveUse& u : uses) {
            const Event& e = rt.events[u.event];
            const std::string pg = e.has_coll && !e.coll.process_group.empty() ? e.coll.process_group : "default";
            const std::int64_t seq = e.has_coll && e.coll.seq >= 0 ? e.coll.seq : counter[pg]++;
            const std::string key = fmt::format("{}#{}", pg, seq);
            auto [it, fresh] = index.emplace(key, g_.collectives.size());
            if (fresh) {
                CollectiveGroup c;
                c.key = key;
                c.op = e.has_coll ? e.coll.op : trace::CollectiveOp::unknown;
                c.group_size = e.has_coll && e.coll.group_size > 0 ? e.coll.group_size : rt.world_size;
                g_.collectives.push_back(std::move(c));
            }
            CollectiveGroup& c = g_.collectives[it->second];
            c.transfers.push_back(u.transfer);
            const int ci = static_cast<int>(it->second);
            g_.graph[u.arrive].collective = ci;
            g_.graph[u.transfer].collective = ci;
            arrive_of_[u.transfer] = u.arrive;
        }
    }
    int partial = 0, mismatched = 0, present_min = std::numeric_limits<int>::max(), size_max = 0;
    for (std::size_t ci = 0; ci < g_.collectives.size(); ++ci) {
        CollectiveGroup& c = g_.collectives[ci];
        bool same_op = true;
        std::int64_t transfer = std::numeric_limits<std::int64_t>::max();
        for (Vertex v : c.transfers) {
            const Node& nd = g_.graph[v];
            const Event& e = t_.ranks[static_cast<std::size_t>(nd.rank)].events[static_cast<std::size_t>(nd.event)];
            if (e.has_coll && e.coll.op != c.op) same_op = false;
            transfer = std::min(transfer, nd.dur_ns);
        }
        const int present = static_cast<int>(c.transfers.size());
        if (present < 2 || !same_op) {
            if (!same_op) ++mismatched;
            for (Vertex v : c.transfers) edge(arrive_of_[v], v, EdgeKind::collective);
            continue;
        }
        if (present < c.group_size) {
            ++partial;
            present_min = std::min(present_min, present);
            size_max = std::max(size_max, c.group_size);
        }
        // The slowest member's recorded time is its transfer alone (the others also waited for
        // it): every member transfers for the shortest recorded time after all have arrived.
        Node j;
        j.kind = NodeKind::join;
        j.rank = g_.graph[c.transfers.front()].rank;
        j.collective = static_cast<int>(ci);
        const Vertex jv = add(j, -1);
        for (Vertex v : c.transfers) {
            edge(arrive_of_[v], jv, EdgeKind::collective);
            edge(jv, v, EdgeKind::collective);
            g_.graph[v].dur_ns = transfer;
        }
    }
    if (partial > 0)
        g_.notes.push_back(fmt::format("{} collectives have only {} of their {} ranks in the trace: the missing ranks are "
                                       "taken to arrive when the present ones do",
                                       partial, present_min, size_max));
    if (mismatched > 0)
        g_.notes.push_back(fmt::format("{} collectives differ in operation across ranks at the same position: not aligned",
                                       mismatched));
}

void Builder::connect_starts() {
    const std::size_t n = boost::num_vertices(g_.graph);
    for (Vertex v = 0; v < n; ++v) {
        const Node& nd = g_.graph[v];
        if (nd.kind == NodeKind::start || nd.kind == NodeKind::join) continue;
        if (boost::in_degree(v, g_.graph) == 0) edge(start_v_[static_cast<std::size_t>(nd.rank)], v, EdgeKind::start);
    }
}

}  // namespace

ReplayGraph build_graph(const trace::Trace& t, const GraphOptions& o) {
    Builder b(t, o);
    ReplayGraph g = b.build();
    if (boost::num_vertices(g.graph) == t.ranks.size())
        throw analysis::InputError(t.ranks.front().file, "", "nothing to replay: no runtime call, kernel or execution-trace node");
    return g;
}

const trace::Event* node_event(const ReplayGraph& g, Vertex v) {
    const Node& n = g.graph[v];
    if (n.event < 0) return nullptr;
    return &g.trace->ranks[static_cast<std::size_t>(n.rank)].events[static_cast<std::size_t>(n.event)];
}

std::string node_name(const ReplayGraph& g, Vertex v) {
    const Node& n = g.graph[v];
    switch (n.kind) {
    case NodeKind::start: return "start";
    case NodeKind::host_work: return "host";
    case NodeKind::backlog: return "previous iteration";
    case NodeKind::join: return "join " + g.collectives[static_cast<std::size_t>(n.collective)].key;
    default: break;
    }
    const trace::Event* e = node_event(g, v);
    return e ? e->name : std::string("?");
}

}  // namespace rentsim::replay
