// The timeline of data-parallel training on one GPU, simulated in the engine.
//
// Ranks are symmetric, so one GPU is simulated: its DataLoader workers fill per-worker
// queues; each optimizer step runs `micro_steps` micro-batches, each waiting for its batch;
// the last micro-batch's backward hands gradient buckets to a single communication stream
// (a FIFO resource, as NCCL runs one stream) that overlaps the remaining backward; the
// optimizer waits for every bucket. With pipeline parallelism a micro-step is one stage
// slot (forward and backward of one micro-batch on this GPU's stage) and the fill and drain
// of the pipeline are one idle `pipeline_bubble` before the last micro-batch. Once the state at a step boundary repeats, the rest of
// the run is periodic and is fast-forwarded exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace rentsim::analysis {

struct TrainingPlan {
    std::int64_t iterations = 1;      // optimizer steps
    int micro_steps = 1;              // micro-batches per optimizer step
    sim::Time micro_fwd_bwd = 0;      // forward + backward of one micro-batch (not the last)
    sim::Time last_fwd = 0;           // forward of the last micro-batch
    // Blocking communication inside every micro-step (tensor-parallel collectives, pipeline
    // sends and receives, ZeRO-3 parameter gathers not hidden by forward); already counted in
    // micro_fwd_bwd, last_fwd and bucket_bwd, reported as exposed communication.
    sim::Time micro_comm = 0;
    sim::Time pipeline_bubble = 0;    // idle time of pipeline fill and drain per step
    std::vector<sim::Time> bucket_bwd;   // backward time producing each gradient bucket, in order
    std::vector<sim::Time> bucket_comm;  // all-reduce time of each bucket
    sim::Time optimizer = 0;
    sim::Time step_overhead = 0;      // host-side time per step outside kernels
    // Input pipeline (workers == 0: data is already on the GPU).
    int workers = 0;
    int prefetch_factor = 2;
    sim::Time batch_build = 0;        // one worker builds one micro-batch
};

struct Timeline {
    sim::Time total = 0;              // start of training to the end of the last step
    sim::Time iteration = 0;          // steady-state step time (mean over one period)
    sim::Time compute = 0;            // per step, steady state
    sim::Time exposed_comm = 0;       // per step, steady state
    sim::Time input_stall = 0;        // per step, steady state
    sim::Time pipeline_bubble = 0;    // per step; compute + exposed_comm + input_stall + bubble = iteration
    std::int64_t simulated_iterations = 0;  // the rest were fast-forwarded
    std::int64_t period = 0;          // steps in one repeating period (0: ran to the end)
    sim::Time period_time = 0;        // simulated time of one period
    bool period_exact = true;         // false: no exact repeat within the step cap
    std::uint64_t events = 0;
    std::uint64_t fingerprint = 0;
};

// Throws std::invalid_argument on an inconsistent plan (no buckets, negative times).
Timeline simulate_training(const TrainingPlan& plan, std::uint64_t seed, sim::Observer* observer = nullptr);

}  // namespace rentsim::analysis
