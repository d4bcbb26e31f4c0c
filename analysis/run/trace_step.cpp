#include "analysis/run/trace_step.hpp"

#include <fmt/format.h>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/load.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/replay/retarget.hpp"

namespace rentsim::analysis {

TraceStep replay_trace_step(const Scenario& s) {
    const trace::Trace t = replay::load_trace({s.workload.trace});
    replay::ReplayGraph g = replay::build_graph(t, {});
    // Always through the retargeting: to the recorded GPU, size and precision it changes
    // nothing, and it checks that the trace names a GPU the catalog knows.
    replay::RetargetOptions o;
    o.gpu = std::string(s.cluster.gpu->name);
    o.gpus = s.cluster.gpus;
    o.precision = std::string(compute::to_string(s.workload.precision));
    const replay::RetargetSummary summary = replay::retarget(g, o);
    const replay::ReplayResult r = replay::run_replay(g);
    TraceStep step;
    step.iteration_s = r.iteration_s;
    step.recorded_s = r.recorded_iteration_s;
    step.compute_s = r.breakdown.compute_s + r.breakdown.memory_s;
    step.exposed_comm_s = r.breakdown.exposed_comm_s;
    const bool same = summary.recorded_gpu == summary.target_gpu && summary.recorded_gpus == summary.target_gpus;
    step.source = fmt::format("trace {} ({} x{}){}: replayed step {:.2f} ms", s.workload.trace, summary.recorded_gpu,
                              summary.recorded_gpus,
                              same ? std::string() : fmt::format(", retargeted to {} x{}", summary.target_gpu, summary.target_gpus),
                              r.iteration_s * 1e3);
    if (step.recorded_s > 0) step.source += fmt::format(" (recorded {:.2f} ms)", step.recorded_s * 1e3);
    return step;
}

}  // namespace rentsim::analysis
