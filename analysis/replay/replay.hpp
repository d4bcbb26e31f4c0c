// Replays a ReplayGraph on the event engine (sim::ActivityGraph, one delay per vertex) and
// reads the run the way HolisticTraceAnalysis reads a recording:
//   - compute: time the GPU runs at least one computation kernel (every kernel class but
//     communication and copies);
//   - communication, and the part of it no computation overlaps (exposed);
//   - overlap_fraction: communication time during which computation runs / communication time;
//   - idle: time no device work runs between the rank's start and its end, each idle interval
//     charged to what delayed the work that ends it: `host_wait` when that work waited for its
//     launch call (the host did not enqueue it in time), `kernel_wait` when it waited for the
//     previous work on its stream (the launch latency between consecutive kernels, HTA's short
//     gap), `other` for everything else (events across streams, collective partners, the idle
//     tail before the rank's host finishes);
//   - the critical path: the chain of work that set the end, walked back from the last finish
//     through whichever predecessor finished last.
// A rank's iteration runs from its start to the end of its last host or device work; the
// result's iteration is the mean over ranks. Seconds in results, ns inside.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/replay/graph.hpp"

namespace rentsim::replay {

// Where a piece of work ran, for breakdowns and the critical path.
enum class Category : std::uint8_t { host, compute, memory, communication, other };
std::string_view to_string(Category c);
Category category_of(const ReplayGraph& g, Vertex v);

struct Timing {
    std::int64_t start_ns = -1;  // the work's start (after its launch latency); a transfer: its arrival
    std::int64_t end_ns = -1;
};

struct IdleSplit {
    double host_wait_s = 0, kernel_wait_s = 0, other_s = 0;
};

struct Breakdown {
    double compute_s = 0;        // union of computation kernels
    double memory_s = 0;         // union of copies and memsets
    double comm_s = 0;           // union of communication
    double exposed_comm_s = 0;   // communication with no computation beside it
    double idle_s = 0;           // no device work at all
    IdleSplit idle;
    double overlap_fraction = 0;  // 0 when there is no communication
};

struct RankSummary {
    int rank = 0;
    int step = -1;
    double recorded_s = -1;      // the recorded step, -1 when the recording has no times
    double iteration_s = 0;
    Breakdown breakdown;
};

struct PathStep {
    std::string name;
    int rank = 0;
    std::string lane;
    Category category = Category::other;
    double start_s = 0;
    double dur_s = 0;
    double wait_s = 0;  // the launch latency before it
};

struct UnknownKernel {
    std::string name;
    std::int64_t count = 0;
    double recorded_s = 0;   // summed recorded durations
    double replayed_s = 0;   // summed durations as replayed (rescaled when retargeted)
};

struct ReplayResult {
    std::vector<Timing> timing;            // per vertex
    double iteration_s = 0;                // mean over ranks
    double recorded_iteration_s = -1;      // mean over ranks of the recorded step; -1 unknown
    std::vector<RankSummary> ranks;
    Breakdown breakdown;                   // mean over ranks
    std::vector<PathStep> critical_path;   // in time order
    std::vector<UnknownKernel> unknown_kernels;  // by replayed time, longest first
    std::uint64_t fingerprint = 0;         // the engine's fingerprint of the run
};

// Iterations replayed back to back (each thread and stream continuing, each rank's next step
// opening when its main thread ends the previous one), so that the iteration time is a steady
// state: a GPU-bound run's device work of one step overlaps the host work of the next, as in
// the recording. Results describe the last iteration.
inline constexpr int default_iterations = 1;

// Throws analysis::InputError when the recorded dependencies form a cycle.
ReplayResult run_replay(const ReplayGraph& g, int iterations = default_iterations);

}  // namespace rentsim::replay
