// One training step of a built-in workload as a timeline (analysis/report/timeline.hpp): the
// step simulator's last simulated step, the steady state once the run repeats
// (analysis/simulate/trainer.hpp, StepRecording). Ranks are symmetric, so one rank is simulated
// and shown: with pipeline parallelism, a rank of the slowest stage.
//
// Tracks of the rank's process: "step" (the recorded step, one span), "compute" (micro-batches,
// input waits, the pipeline bubble, forward, backward per gradient bucket, optimizer, step
// overhead, an RL run's rollout), "communication" (each bucket's reduction on the one communication stream), and one
// "loader worker k" per DataLoader worker (each batch it builds, with fetch, decode and copy
// inside when storage is simulated). Arrows: a built batch to the compute that consumes it, a
// bucket's backward to its reduction, the last reduction to the optimizer. The counter
// "communication stream busy" is 1 while a reduction holds the stream. Time 0 is the step's
// start; loader spans reaching outside the step are clipped to it (their args give the whole
// span), and a batch built before the step began is not shown.
#pragma once

#include <cstdint>

#include "analysis/report/timeline.hpp"
#include "analysis/scenario/scenario.hpp"

namespace rentsim::report {

struct StepTimeline {
    Timeline timeline;
    std::int64_t step = 0;        // index of the recorded step in the run
    std::int64_t step_ns = 0;     // its length: the "step" span's duration
    std::int64_t offset_ns = 0;   // engine time of the timeline's 0, the step's start
    double iteration_s = 0;       // the steady step time the run reports (mean over one period)
};

// The timeline of one step of `s`, a valid point (Scenario::invalid empty). Throws InputError
// naming the file when a searched layout finds nothing that fits (no step to show).
StepTimeline step_timeline(const analysis::Scenario& s);

}  // namespace rentsim::report
