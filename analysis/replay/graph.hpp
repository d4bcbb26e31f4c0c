// The dependency graph of one recorded iteration, every rank of the trace in one graph.
//
// Vertices are pieces of work with a duration (recorded, or rescaled by retarget.hpp); an edge
// says its target may not start before its source has finished. What becomes a vertex:
//   - on each host thread, its CUDA runtime calls in recorded order, and the host time between
//     two calls as one `host_work` vertex (the CPU operators and Python around the calls are
//     not each a vertex: what matters to the GPU is when each launch happens);
//   - on each GPU stream, its kernels, copies and memsets in recorded order;
//   - a collective is an `arrive` vertex on its stream (zero duration), a `join` shared by
//     its member ranks, and the transfer itself after the join, so that no member finishes
//     before every member has reached it;
//   - Chakra nodes (no recorded start) as `op` vertices ordered by their recorded dependencies.
// Each rank starts with a `start` vertex whose duration is its recorded step start after the
// earliest rank's, so that ranks keep their recorded offsets. A stream still busy with the
// previous iteration's work when the step opens (a GPU-bound run) begins with a `backlog`
// vertex of that recorded duration: in a steady state this iteration leaves as much behind.
//
// Times are integer nanoseconds. The graph refers to the Trace it was built from (names,
// classes, collectives), which must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "analysis/trace/trace.hpp"

namespace rentsim::replay {

enum class NodeKind : std::uint8_t {
    start,      // a rank's recorded offset (duration = its step start after the earliest rank's)
    host_work,  // host time between two runtime calls on one thread
    host_call,  // a CUDA runtime call; a synchronisation's duration is what followed the wait
    device,     // a kernel, copy or memset on a stream; a collective's transfer
    arrive,     // a rank reaching a collective on its stream (zero duration)
    join,       // every member of a collective has arrived (zero duration)
    op,         // a Chakra node: no recorded start, scheduled by its dependencies
    backlog,    // a stream still running the previous iteration's work when the step opened
};

struct Node {
    NodeKind kind = NodeKind::host_work;
    int rank = 0;                  // index into Trace::ranks (join: the first member's)
    std::int64_t event = -1;       // index into RankTrace::events; -1 for start, host_work, join
    int lane = -1;                 // index into ReplayGraph::lanes; -1 for start and join
    std::int64_t pre_ns = 0;       // wait before the work: the recorded launch latency
    std::int64_t dur_ns = 0;       // the work itself
    std::int64_t recorded_start_ns = -1;  // recorded start after the rank's window start; -1 unknown
    int collective = -1;           // index into ReplayGraph::collectives, for arrive/join/transfer
};

enum class EdgeKind : std::uint8_t {
    order,       // consecutive work on one host thread or one stream
    launch,      // runtime call -> the kernel it launched (correlation id or recorded flow)
    event_wait,  // cudaEventRecord -> cudaStreamWaitEvent: across streams
    host_sync,   // a stream's outstanding work -> the synchronising host call
    collective,  // arrive -> join -> transfer
    recorded,    // a Chakra data or control dependency
    start,       // the rank's start -> work with no other predecessor
};

struct Edge {
    EdgeKind kind = EdgeKind::order;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Node, Edge>;
using Vertex = Graph::vertex_descriptor;

// A host thread or a GPU stream of one rank.
struct Lane {
    int rank = 0;
    bool host = true;
    int device = -1;
    std::int64_t id = -1;  // thread id or stream id as recorded
    std::string label;     // "thread 1234", "stream 7" (GPU index in `device`)
};

// The recorded iteration of one rank, on the trace's own clock.
struct Window {
    int step = -1;                 // ProfilerStep number; -1 when the whole recording is used
    std::int64_t start_ns = 0;
    std::int64_t dur_ns = -1;      // -1 when the recording has no times (Chakra)
    std::int64_t offset_ns = 0;    // start_ns after the earliest rank's
    int main_lane = -1;            // the host thread that opens the step (ReplayGraph::lanes), -1 if none
    std::int64_t backlog_ns = 0;   // the longest a stream ran the previous iteration's work into this one
};

struct CollectiveGroup {
    std::string key;               // process group and sequence ("pg0#3")
    trace::CollectiveOp op = trace::CollectiveOp::unknown;
    int group_size = 0;            // as recorded, else the world size
    std::vector<Vertex> transfers;  // one per member rank present
};

struct ReplayGraph {
    const trace::Trace* trace = nullptr;
    Graph graph;
    std::vector<Lane> lanes;
    std::vector<Window> windows;   // one per rank, in Trace::ranks order
    std::vector<CollectiveGroup> collectives;
    std::vector<std::string> notes;  // choices a user should know about
};

struct GraphOptions {
    int step = -1;  // the ProfilerStep to replay; -1: the last one every rank recorded
};

// Kernel launch latency kept from the recording: a device op's recorded start minus the latest
// recorded end of its predecessors, up to this bound. Larger delays have causes the graph does
// not see (the stream still busy with the previous step's work, profiler overhead) and are
// dropped: a modelling choice, not a measurement; 50 us is ten times the few microseconds a
// launch takes.
inline constexpr std::int64_t max_kept_launch_delay_ns = 50'000;

// A runtime call longer than this that returned within clock tolerance of the end of device
// work launched before it is taken to have waited for that work (a full launch queue, event
// polling): the wait becomes a dependency, the rest stays host time. A launch takes a few
// microseconds; the bound is a modelling choice, ten times that.
inline constexpr std::int64_t max_unblocked_call_ns = 50'000;

// Builds the graph. Throws analysis::InputError naming the file when a rank lacks the asked
// step, or the trace holds nothing to replay.
ReplayGraph build_graph(const trace::Trace& t, const GraphOptions& o = {});

// The name shown for a vertex: the event's name, or "host", "start", "join <key>".
std::string node_name(const ReplayGraph& g, Vertex v);
// The recorded event of a vertex, nullptr for start, host_work and join.
const trace::Event* node_event(const ReplayGraph& g, Vertex v);

}  // namespace rentsim::replay
