// The replay graph and its run on the engine, against hand-computed times.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/output.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/replay/timeline.hpp"
#include "analysis/scenario/input_error.hpp"
#include "tests/analysis/replay/trace_builder.hpp"

using namespace rentsim;
using namespace rentsim::replay;
using test::RankBuilder;
using test::us;

namespace {

// The vertex of an event (its transfer, for a collective).
Vertex vertex_of(const ReplayGraph& g, int rank, std::uint32_t event) {
    Vertex found = 0;
    for (Vertex v = 0; v < boost::num_vertices(g.graph); ++v)
        if (g.graph[v].rank == rank && g.graph[v].event == event && g.graph[v].kind != NodeKind::arrive) found = v;
    return found;
}

bool has_edge(const ReplayGraph& g, Vertex a, Vertex b, EdgeKind k) {
    for (auto [it, end] = boost::out_edges(a, g.graph); it != end; ++it)
        if (boost::target(*it, g.graph) == b && g.graph[*it].kind == k) return true;
    return false;
}

// One rank, one thread, one stream, step [0, 200) us:
//   launch A [0, 10], launch B [20, 30], cudaDeviceSynchronize [40, 170]
//   kernel A [15, 115] (gemm), kernel B [115, 165] (elementwise)
trace::Trace one_stream() {
    RankBuilder b(0, 1);
    b.call("cudaLaunchKernel", 0, 10, 1);
    b.call("cudaLaunchKernel", 20, 10, 2);
    b.call("cudaDeviceSynchronize", 40, 130);
    b.kernel("volta_sgemm_128x64_nn", trace::KernelClass::gemm, 15, 100, 1);
    b.kernel("elementwise_kernel", trace::KernelClass::elementwise, 115, 50, 2);
    b.step(3, 0, 200);
    trace::Trace t;
    t.ranks.push_back(b.r);
    return t;
}

}  // namespace

TEST_CASE("a replay with recorded durations reproduces the recorded step of one stream") {
    const trace::Trace t = one_stream();
    const ReplayGraph g = build_graph(t);
    const ReplayResult r = run_replay(g);
    // Host: A, gap 10, B, gap 10, the sync's 5 us after kernel B ended (165 -> 170), tail 30.
    CHECK(r.ranks.at(0).iteration_s == doctest::Approx(200e-6));
    CHECK(r.recorded_iteration_s == doctest::Approx(200e-6));
    const Vertex ka = vertex_of(g, 0, 3), kb = vertex_of(g, 0, 4), sync = vertex_of(g, 0, 2);
    // Kernel A: launched at 10, recorded start 15: 5 us of launch latency kept.
    CHECK(g.graph[ka].pre_ns == 5 * us);
    CHECK(r.timing[ka].start_ns == 15 * us);
    CHECK(r.timing[ka].end_ns == 115 * us);
    CHECK(r.timing[kb].start_ns == 115 * us);
    CHECK(has_edge(g, kb, sync, EdgeKind::host_sync));
    CHECK(g.graph[sync].dur_ns == 5 * us);
    CHECK(r.timing[sync].end_ns == 170 * us);
}

TEST_CASE("the breakdown splits idle time by what held the next kernel back") {
    const trace::Trace t = one_stream();
    const ReplayGraph g = build_graph(t);
    const ReplayResult r = run_replay(g);
    const Breakdown& b = r.ranks.at(0).breakdown;
    CHECK(b.compute_s == doctest::Approx(150e-6));
    CHECK(b.comm_s == 0);
    CHECK(b.overlap_fraction == 0);
    // Idle: [0, 15) before kernel A, which waited for its launch (host wait); [165, 200) after
    // the last kernel (other).
    CHECK(b.idle_s == doctest::Approx(50e-6));
    CHECK(b.idle.host_wait_s == doctest::Approx(15e-6));
    CHECK(b.idle.kernel_wait_s == doctest::Approx(0));
    CHECK(b.idle.other_s == doctest::Approx(35e-6));
}

TEST_CASE("the critical path runs through the kernels the synchronisation waited for") {
    const trace::Trace t = one_stream();
    const ReplayResult r = run_replay(build_graph(t));
    std::vector<std::string> names;
    for (const PathStep& p : r.critical_path) names.push_back(p.name);
    CHECK(names == std::vector<std::string>{"cudaLaunchKernel", "volta_sgemm_128x64_nn", "elementwise_kernel",
                                            "cudaDeviceSynchronize", "host"});
    CHECK(r.critical_path.front().category == Category::host);
    CHECK(r.critical_path.at(1).category == Category::compute);
    CHECK(r.critical_path.at(1).wait_s == doctest::Approx(5e-6));
}

TEST_CASE("a collective ends at the same time on every member, after the last arrival") {
    // Rank 0 reaches the all-reduce at 5 us and waits (recorded 105 us); rank 1 reaches it at
    // 75 us and transfers for 35 us: both end at 110.
    trace::Trace t;
    for (int rank = 0; rank < 2; ++rank) {
        RankBuilder b(rank, 2);
        const double at = rank == 0 ? 0 : 70;
        b.call("cudaLaunchKernel", at, 5, 1);
        b.all_reduce(at + 5, rank == 0 ? 105 : 35, 1, 2);
        b.step(1, 0, 120);
        t.ranks.push_back(b.r);
    }
    const ReplayGraph g = build_graph(t);
    REQUIRE(g.collectives.size() == 1);
    CHECK(g.collectives[0].key == "0#0");
    const ReplayResult r = run_replay(g);
    const Vertex x0 = vertex_of(g, 0, 1), x1 = vertex_of(g, 1, 1);
    CHECK(g.graph[x0].dur_ns == 35 * us);
    CHECK(r.timing[x0].start_ns == 5 * us);
    CHECK(r.timing[x0].end_ns == 110 * us);
    CHECK(r.timing[x1].start_ns == 75 * us);
    CHECK(r.timing[x1].end_ns == 110 * us);
    CHECK(r.ranks[0].breakdown.exposed_comm_s == doctest::Approx(105e-6));
    CHECK(r.ranks[1].breakdown.exposed_comm_s == doctest::Approx(35e-6));
    CHECK(r.iteration_s == doctest::Approx(120e-6));
    CHECK(std::none_of(g.notes.begin(), g.notes.end(), [](const std::string& n) { return n.find("missing") != std::string::npos; }));
}

TEST_CASE("ranks missing from a collective's group are taken to arrive with the present ones, and the replay says so") {
    trace::Trace t;
    for (int rank = 0; rank < 2; ++rank) {
        RankBuilder b(rank, 128);
        b.call("cudaLaunchKernel", 0, 5, 1);
        b.all_reduce(5, rank == 0 ? 50 : 40, 1, 128);
        b.step(1, 0, 60);
        t.ranks.push_back(b.r);
    }
    const ReplayGraph g = build_graph(t);
    CHECK(std::find(g.notes.begin(), g.notes.end(),
                    "1 collectives have only 2 of their 128 ranks in the trace: the missing ranks are taken to arrive "
                    "when the present ones do") != g.notes.end());
    const ReplayResult r = run_replay(g);
    CHECK(r.timing[vertex_of(g, 0, 1)].end_ns == 45 * us);
}

TEST_CASE("a stream waiting on an event recorded on another stream starts after the recorded work") {
    // Kernel 1 on stream 7 [10, 200]; record, wait, then kernel 2 launched on stream 13 at
    // [12, 14] starts at 200 as recorded. Without the event edge it would start 50 us (the kept
    // launch latency bound) after its launch.
    RankBuilder b(0, 1);
    b.call("cudaLaunchKernel", 0, 5, 1);
    b.call("cudaEventRecord", 6, 1);
    b.call("cudaStreamWaitEvent", 8, 1);
    b.call("cudaLaunchKernel", 12, 2, 2);
    const auto k1 = b.kernel("k1", trace::KernelClass::elementwise, 10, 190, 1, 7);
    const auto k2 = b.kernel("k2", trace::KernelClass::elementwise, 200, 10, 2, 13);
    b.step(1, 0, 220);
    trace::Trace t;
    t.ranks.push_back(b.r);
    const ReplayGraph g = build_graph(t);
    CHECK(has_edge(g, vertex_of(g, 0, k1), vertex_of(g, 0, k2), EdgeKind::event_wait));
    const ReplayResult r = run_replay(g);
    CHECK(r.timing[vertex_of(g, 0, k2)].start_ns == 200 * us);
    CHECK(r.iteration_s == doctest::Approx(220e-6));
}

TEST_CASE("the last step every rank recorded is replayed unless one is asked for") {
    RankBuilder b(0, 1);
    b.call("cudaLaunchKernel", 0, 10, 1);
    b.call("cudaLaunchKernel", 100, 30, 2);
    b.step(1, 0, 100);
    b.step(2, 100, 50);
    trace::Trace t;
    t.ranks.push_back(b.r);
    CHECK(build_graph(t).windows[0].step == 2);
    CHECK(run_replay(build_graph(t)).recorded_iteration_s == doctest::Approx(50e-6));
    CHECK(run_replay(build_graph(t, {1})).iteration_s == doctest::Approx(100e-6));
    try {
        build_graph(t, {5});
        FAIL("expected an InputError");
    } catch (const analysis::InputError& e) {
        CHECK(std::string(e.what()) == "rank0.json: no ProfilerStep#5; the steps recorded are 1, 2");
    }
}

TEST_CASE("a trace without steps is replayed as one window and says so") {
    RankBuilder b(0, 1);
    b.call("cudaLaunchKernel", 10, 10, 1);
    b.kernel("k", trace::KernelClass::unknown, 25, 40, 1);
    trace::Trace t;
    t.ranks.push_back(b.r);
    const ReplayGraph g = build_graph(t);
    CHECK(g.notes.at(0) == "no ProfilerStep annotations: the whole recording is replayed as one iteration");
    const ReplayResult r = run_replay(g);
    CHECK(r.recorded_iteration_s == doctest::Approx(55e-6));
    CHECK(r.iteration_s == doctest::Approx(55e-6));
    REQUIRE(r.unknown_kernels.size() == 1);
    CHECK(r.unknown_kernels[0].name == "k");
    CHECK(r.unknown_kernels[0].count == 1);
    CHECK(r.unknown_kernels[0].recorded_s == doctest::Approx(40e-6));
}

TEST_CASE("execution-trace nodes without times are scheduled by their dependencies") {
    // A (10) -> B (20), A -> C (5), B and C -> D (1): 31 us.
    RankBuilder b(0, 1);
    for (auto [name, dur] : {std::pair{"A", 10}, {"B", 20}, {"C", 5}, {"D", 1}}) {
        trace::Event e;
        e.name = name;
        e.kind = trace::EventKind::kernel;
        e.cls = trace::KernelClass::gemm;
        e.device = 0;
        e.stream = 0;
        e.dur_ns = dur * us;
        b.push(e);
    }
    for (auto [from, to] : {std::pair{0u, 1u}, {0u, 2u}, {1u, 3u}, {2u, 3u}}) b.r.deps.push_back({from, to, trace::DepKind::data});
    trace::Trace t;
    t.ranks.push_back(b.r);
    const ReplayGraph g = build_graph(t);
    const ReplayResult r = run_replay(g);
    CHECK(r.iteration_s == doctest::Approx(31e-6));
    CHECK(r.recorded_iteration_s == -1);
    CHECK(r.breakdown.compute_s == doctest::Approx(31e-6));
}

TEST_CASE("dependencies that form a cycle are refused with the file named") {
    RankBuilder b(0, 1);
    for (const char* name : {"A", "B"}) {
        trace::Event e;
        e.name = name;
        e.kind = trace::EventKind::kernel;
        e.cls = trace::KernelClass::gemm;
        e.device = 0;
        e.dur_ns = us;
        b.push(e);
    }
    b.r.deps = {{0, 1, trace::DepKind::data}, {1, 0, trace::DepKind::data}};
    trace::Trace t;
    t.ranks.push_back(b.r);
    const ReplayGraph g = build_graph(t);
    CHECK_THROWS_WITH_AS(run_replay(g), doctest::Contains("rank0.json: the recorded dependencies cannot be replayed"),
                         analysis::InputError);
}

TEST_CASE("an empty trace is refused") {
    CHECK_THROWS_AS(build_graph(trace::Trace{}), analysis::InputError);
    trace::Trace t;
    t.ranks.push_back(RankBuilder(0, 1).r);
    CHECK_THROWS_WITH_AS(build_graph(t), doctest::Contains("nothing to replay"), analysis::InputError);
}

TEST_CASE("the timeline has one span per piece of work and arrows for launches") {
    const trace::Trace t = one_stream();
    const ReplayGraph g = build_graph(t);
    const ReplayResult r = run_replay(g);
    const report::Timeline tl = replay_timeline(g, r);
    CHECK(tl.process_names == std::vector<std::string>{"rank 0"});
    // 3 calls, 2 kernels, 3 host gaps (10-20, 30-40, 170-200).
    CHECK(tl.spans.size() == 8);
    // 2 launches, 1 synchronisation.
    CHECK(tl.flows.size() == 3);
    const auto gemm = std::find_if(tl.spans.begin(), tl.spans.end(), [](const auto& s) { return s.name == "volta_sgemm_128x64_nn"; });
    REQUIRE(gemm != tl.spans.end());
    CHECK(gemm->thread == "gpu 0 stream 7");
    CHECK(gemm->start_ns == 15 * us);
    CHECK(gemm->dur_ns == 100 * us);
}

TEST_CASE("the JSON result holds the fields of the contract") {
    const trace::Trace t = one_stream();
    const ReplayGraph g = build_graph(t);
    const std::string j = replay_json(g, run_replay(g), std::nullopt);
    for (const char* key : {"\"recorded_iteration_s\": 0.0002", "\"iteration_s\": 0.0002", "\"critical_path\"",
                            "\"compute_s\"", "\"exposed_comm_s\"", "\"idle_s\"", "\"host_wait_s\"", "\"overlap_fraction\"",
                            "\"unknown_kernels\": []", "\"error\": 0.0"})
        CHECK_MESSAGE(j.find(key) != std::string::npos, key);
}

TEST_CASE("a stream still running the previous step starts with that backlog, and the step counts from its end") {
    // Kernel 0 was launched before the step [100, 300) and runs until 150: 50 us of backlog on
    // stream 7. Kernel 1, launched at 100, runs [150, 380): a GPU-bound step of 230 us.
    RankBuilder b(0, 1);
    b.call("cudaLaunchKernel", 0, 5, 1);
    b.call("cudaLaunchKernel", 100, 5, 2);
    const auto k0 = b.kernel("k0", trace::KernelClass::gemm, 10, 140, 1);
    const auto k1 = b.kernel("k1", trace::KernelClass::gemm, 150, 230, 2);
    b.step(1, 100, 200);
    trace::Trace t;
    t.ranks.push_back(b.r);
    const ReplayGraph g = build_graph(t);
    CHECK(g.windows[0].backlog_ns == 50 * us);
    int backlogs = 0;
    for (Vertex v = 0; v < boost::num_vertices(g.graph); ++v) {
        CHECK(g.graph[v].event != static_cast<std::int64_t>(k0));
        if (g.graph[v].kind == NodeKind::backlog) ++backlogs;
    }
    CHECK(backlogs == 1);
    const ReplayResult r = run_replay(g);
    CHECK(r.timing[vertex_of(g, 0, k1)].start_ns == 50 * us);
    // Host ends at 200; device work after the backlog: 230.
    CHECK(r.iteration_s == doctest::Approx(230e-6));
    CHECK(r.breakdown.compute_s == doctest::Approx(230e-6));
    CHECK(r.breakdown.idle_s == doctest::Approx(0));
}

TEST_CASE("a long call that returned as device work ended waits for it, and follows it when it gets faster") {
    // Launch B [20, 401) returned 1 us after kernel 1 [10, 400) ended: a full launch queue.
    RankBuilder b(0, 1);
    b.call("cudaLaunchKernel", 0, 5, 1);
    const auto call_b = b.call("cudaLaunchKernel", 20, 381, 2);
    const auto k1 = b.kernel("k1", trace::KernelClass::gemm, 10, 390, 1);
    const auto k2 = b.kernel("k2", trace::KernelClass::gemm, 401, 50, 2);
    b.step(1, 0, 460);
    trace::Trace t;
    t.ranks.push_back(b.r);
    ReplayGraph g = build_graph(t);
    const Vertex vb = vertex_of(g, 0, call_b), v1 = vertex_of(g, 0, k1), v2 = vertex_of(g, 0, k2);
    CHECK(has_edge(g, v1, vb, EdgeKind::host_sync));
    CHECK(g.graph[vb].dur_ns == 1 * us);
    CHECK(run_replay(g).timing[vb].end_ns == 401 * us);
    // A kernel 1 of 100 us releases the call at 111.
    g.graph[v1].dur_ns = 100 * us;
    const ReplayResult r = run_replay(g);
    CHECK(r.timing[vb].end_ns == 111 * us);
    CHECK(r.timing[v2].start_ns == 111 * us);
}

TEST_CASE("another host thread starts after the main thread's preceding call, and the main thread waits for its end") {
    // Main thread: call [0, 5) launching kernel [10, 20), call [100, 105). Thread 2: calls
    // [30, 35) and [60, 65). The main thread's host time [5, 100) spans thread 2's end at 65:
    // only [65, 100) is its own work.
    RankBuilder b(0, 1);
    const auto c0 = b.call("cudaLaunchKernel", 0, 5, 1, 1);
    b.call("cudaMemsetAsync", 100, 5, -1, 1);
    const auto t0 = b.call("cudaLaunchKernel", 30, 5, -1, 2);
    const auto t1 = b.call("cudaEventQuery", 60, 5, -1, 2);
    b.kernel("k", trace::KernelClass::elementwise, 10, 10, 1);
    b.step(1, 0, 200);
    trace::Trace t;
    t.ranks.push_back(b.r);
    const ReplayGraph g = build_graph(t);
    const Vertex v0 = vertex_of(g, 0, c0), vt0 = vertex_of(g, 0, t0), vt1 = vertex_of(g, 0, t1);
    // Thread 2's first host work follows the main thread's first call and lasts 25 us.
    Vertex head = 0, wait = 0;
    for (auto [it, end] = boost::in_edges(vt0, g.graph); it != end; ++it) head = boost::source(*it, g.graph);
    CHECK(g.graph[head].kind == NodeKind::host_work);
    CHECK(g.graph[head].dur_ns == 25 * us);
    CHECK(has_edge(g, v0, head, EdgeKind::order));
    for (auto [it, end] = boost::out_edges(vt1, g.graph); it != end; ++it) wait = boost::target(*it, g.graph);
    CHECK(g.graph[wait].kind == NodeKind::host_work);
    CHECK(g.graph[wait].dur_ns == 35 * us);
    CHECK(run_replay(g).iteration_s == doctest::Approx(200e-6));
}

#ifdef RENTSIM_REPLAY_OWN_TIMELINE_WRITER
TEST_CASE("the timeline's Chrome trace JSON names each rank and holds one slice per span and a flow pair per arrow") {
    const trace::Trace t = one_stream();
    const ReplayGraph g = build_graph(t);
    const report::Timeline tl = replay_timeline(g, run_replay(g));
    const std::string text = timeline_json(tl, "t.json");
    // 1 process name, 8 spans, 3 flows of two events each.
    std::size_t slices = 0, flows = 0, meta = 0;
    for (std::size_t at = 0; (at = text.find("\"ph\":\"", at)) != std::string::npos; at += 6) {
        const char ph = text[at + 6];
        slices += ph == 'X';
        flows += ph == 's' || ph == 'f';
        meta += ph == 'M';
    }
    CHECK(meta == 1);
    CHECK(slices == 8);
    CHECK(flows == 6);
    CHECK(text.find("\"name\":\"rank 0\"") != std::string::npos);
    report::TimelineLimits small;
    small.max_spans = 7;
    CHECK_THROWS_WITH_AS(timeline_json(tl, "t.json", small), "t.json: 8 spans, more than the limit of 7", analysis::InputError);
}
#endif
