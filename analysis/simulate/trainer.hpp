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
//
// With storage stages (InputStages::enabled) each worker builds a batch in three stages:
// fetch (a request slot of the source, then the batch's request latencies and its bytes as
// one flow over the source link and the node's ingress link, max-min shared), decode (a
// CPU core for `batch_build`), and the host-to-device copy (a flow over this GPU's PCIe
// link). The node is symmetric: this GPU's loaders get 1/gpus_per_node of each node-wide
// resource, which for max-min sharing of identical flows gives each flow the same rate as
// simulating every GPU's loaders. The first epoch reads everything from the source; later
// epochs read what the page cache misses. Each regime reaches its own periodic state: the
// cold epoch is fast-forwarded up to the boundary, the warm epochs to the end.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace rentsim::analysis {

// Storage stages of the input pipeline, per micro-batch and per GPU (see the header note).
struct InputStages {
    bool enabled = false;
    double cold_bytes = 0, warm_bytes = 0;   // read from the source per batch: first epoch, later epochs
    sim::Time cold_latency = 0, warm_latency = 0;  // summed request latencies per batch
    double source_bytes_per_s = 0;   // this GPU's share of the source's bandwidth
    double ingress_bytes_per_s = 0;  // this GPU's share of the node's ingress; 0: no ingress link
    int source_slots = 1;            // this GPU's share of the source's concurrent requests
    int cpu_cores = 1;               // this GPU's share of the node's CPU cores
    double h2d_bytes = 0;            // per batch over PCIe; 0: no copy simulated
    double h2d_bytes_per_s = 0;
};

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
    // RL fine-tuning: the rollout (generating responses and scoring them) per optimizer step,
    // after the update; the GPU does nothing else meanwhile. 0: supervised training.
    sim::Time rollout = 0;
    // Input pipeline (workers == 0: data is already on the GPU).
    int workers = 0;
    int prefetch_factor = 2;
    sim::Time batch_build = 0;        // one worker builds one micro-batch (CPU time)
    InputStages stages;
    // Micro-batches per GPU per epoch; 0: epochs are not tracked. With storage stages the
    // batches past the first epoch are "warm" (InputStages::warm_*).
    std::int64_t epoch_batches = 0;
    bool fast_forward = true;         // false: simulate every step (tests of the fast-forward)
};

struct EpochStats {
    sim::Time time = 0;               // from the first step of the epoch to the first of the next
    sim::Time input_stall = 0;        // of which the GPU waited for input
};

struct Timeline {
    sim::Time total = 0;              // start of training to the end of the last step
    sim::Time iteration = 0;          // steady-state step time (mean over one period)
    sim::Time compute = 0;            // per step, steady state
    sim::Time exposed_comm = 0;       // per step, steady state
    sim::Time input_stall = 0;        // per step, steady state
    sim::Time pipeline_bubble = 0;    // per step
    sim::Time rollout = 0;            // per step; compute + exposed_comm + input_stall + bubble + rollout = iteration
    sim::Time total_input_stall = 0;  // over the whole run
    std::vector<EpochStats> epochs;   // when plan.epoch_batches > 0, in order
    std::int64_t simulated_iterations = 0;  // the rest were fast-forwarded
    std::int64_t period = 0;          // steps in one repeating period (or averaged over, when none repeated)
    sim::Time period_time = 0;        // simulated time of one period
    bool period_exact = true;         // false: no exact repeat within the step cap
    std::uint64_t events = 0;
    std::uint64_t fingerprint = 0;
};

// What one activity of a recorded step was (StepRecording).
enum class StepActivity {
    micro_batch,     // forward and backward of a micro-batch before the last one
    input_wait,      // the GPU waits for its next micro-batch
    pipeline_bubble,
    forward,         // of the last micro-batch
    backward,        // of the last micro-batch, producing gradient bucket `index`
    gradient_comm,   // the reduction of bucket `index` on the communication stream
    optimizer,
    step_overhead,   // host-side time per step outside kernels
    rollout,         // RL: generation and scoring of the next step's samples
    batch,           // a loader worker builds micro-batch `batch` (the whole of it, waits included)
    fetch,           // storage stages inside `batch`: reading from the source,
    decode,          //   decoding on a CPU core,
    copy,            //   the host-to-device copy
};

// One activity of the recorded step, engine times in ns.
struct StepSpan {
    StepActivity kind = StepActivity::micro_batch;
    int worker = -1;             // the loader worker (batch, fetch, decode, copy), else -1
    int index = -1;              // micro-batch of the step (micro_batch) or bucket (backward, gradient_comm)
    std::int64_t batch = -1;     // micro-batch built (loader) or consumed (micro_batch, input_wait, forward)
    sim::Time start = 0, end = 0;
};

// The last simulated step (the steady state once the run repeats; with one iteration, the
// first step), recorded when simulate_training is given one: the spans of the step's own
// activities, those of the loaders overlapping it, and the loader spans of the micro-batches
// it consumes, however early they were built. Spans are not clipped to the step.
struct StepRecording {
    sim::Time start = 0, end = 0;   // the step, engine times
    std::int64_t step = 0;          // its index, counting fast-forwarded steps
    std::vector<StepSpan> spans;    // in the order they were recorded
};

// Throws std::invalid_argument on an inconsistent plan (no buckets, negative times). With
// `record`, the last simulated step's spans are recorded into it; without, nothing is kept.
Timeline simulate_training(const TrainingPlan& plan, std::uint64_t seed, sim::Observer* observer = nullptr,
                           StepRecording* record = nullptr);

}  // namespace rentsim::analysis
