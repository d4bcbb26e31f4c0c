// The step of a trace-backed scenario (`"workload": {"trace": ...}`): the recorded trace
// replayed on the event engine (analysis/replay), retargeted to the scenario's cluster.
#pragma once

#include <string>

#include "analysis/scenario/scenario.hpp"

namespace rentsim::analysis {

struct TraceStep {
    double iteration_s = 0;        // the replayed iteration (mean over ranks), s
    double recorded_s = -1;        // the recorded one, -1 when the trace has no times
    double compute_s = 0;          // device computation and copies (unions), s
    double exposed_comm_s = 0;     // communication with no computation beside it, s
    std::string source;            // for the result: "trace T (N ranks, GPU), retargeted to ...: X ms"
};

// Replays s.workload.trace. Retargets when the cluster's GPU, GPU count or the scenario's
// precision differ from the recording (the target's usual topology; weak scaling: each GPU keeps
// its recorded work, as batch_per_gpu does). Throws InputError naming the trace for a file no
// importer reads, a trace without durations, or a GPU the retargeting does not know.
TraceStep replay_trace_step(const Scenario& s);

}  // namespace rentsim::analysis
