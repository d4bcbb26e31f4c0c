// Flow-level fidelity for collectives: each collective becomes a sequence of phases (one ring
// step, or one burst of all-to-all transfers); the flows of every running phase share the links
// of the topology max-min fairly, so concurrent collectives slow each other down where they meet.
// Phases and flows are events in the engine (sim::FlowNetwork shares the links).
//
// Scale: a collective's phases are all the same transfers, so one phase is routed once and
// reused; a phase's flows start as one batch (one re-share). A job whose links no other job
// uses has its symmetric flows merged (flows that colour refinement of the flow-link graph
// cannot tell apart: the same ring step on equivalent links) into one flow with a multiplicity,
// over one link per class of equivalent links; that is exact, and a 1 GiB all-reduce over 8,192
// GPUs runs as a handful of flows per step. Jobs that share a link run flow by flow.
#pragma once

#include "models/network/network.hpp"
#include "models/units.hpp"

#include <span>
#include <vector>

namespace rentsim::analysis {

// One collective: operation, nccl-tests size, GPUs (distinct global indices) and start time.
struct FlowJob {
    net::Collective op = net::Collective::all_reduce;
    units::Bytes bytes{0.0};
    std::vector<int> ranks;
    units::Seconds start{0.0};
};

struct FlowJobResult {
    units::Seconds finish{0.0};
    units::Seconds duration{0.0};   // finish - start
    int phases = 0;
    int channels = 0;
};

// Runs the jobs together. Ring algorithms for all-reduce, reduce-scatter, all-gather, broadcast
// and send-recv, direct transfers for all-to-all, with the protocol the analytic model picks for
// the call (models/network: LL, LL128 or Simple by size and scale). Each phase first waits its
// share of the analytic model's latency for that protocol, then moves its bytes; link capacities
// are the raw rates and each flow carries its bytes divided by the efficiency of its path
// (network, NVLink or PCIe) and by the protocol's payload fraction, as in the analytic model.
// Deterministic: the same jobs give the same results. Throws std::invalid_argument for a job of
// fewer than two ranks or a rank listed twice.
std::vector<FlowJobResult> simulate_flow_collectives(const net::Network& network, std::span<const FlowJob> jobs);

// A job that repeats its collective `count` times, each `gap` (its compute) after the end of
// the one before: a training loop's gradient all-reduces, as a stream sharing the fabric.
struct FlowStream {
    FlowJob job;
    int count = 1;
    units::Seconds gap{0.0};
};

// As simulate_flow_collectives, each stream's collectives in sequence: a result's finish is the
// end of its stream's last collective, its duration finish - start (gaps included). Throws
// std::invalid_argument for a count below 1 or a negative gap, besides the jobs' own checks.
std::vector<FlowJobResult> simulate_flow_streams(const net::Network& network, std::span<const FlowStream> streams);

}  // namespace rentsim::analysis
