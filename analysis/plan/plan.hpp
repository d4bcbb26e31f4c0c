// The planning layer: pure functions from a resolved scenario and its network to a job plan,
// the inputs of the job simulators (analysis/simulate). Planning decides the batch layout,
// prices every collective with the network model, balances pipeline stages, groups
// gradients into buckets, sizes memory and checkpoints and lays out the input pipeline; it
// never runs the engine and never raises input errors (the loader has checked the scenario).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "analysis/plan/layout.hpp"
#include "analysis/scenario/scenario.hpp"
#include "analysis/simulate/lifecycle.hpp"
#include "analysis/simulate/trainer.hpp"
#include "models/compute/step.hpp"
#include "models/network/network.hpp"

namespace rentsim::analysis {

// What the input pipeline looks like to the analytic diagnosis, per sample and per GPU.
struct InputPlan {
    units::Seconds staging{};    // copying the dataset to local NVMe before training
    double cpu_s = 0;            // CPU time per sample in a worker
    double latency_s = 0;        // serial request latency per sample, steady regime
    double miss = 1;             // share of bytes read from the source, steady regime
    double cold_latency_s = 0;   // serial request latency per sample, first epoch
    double sample_bytes = 0, tensor_bytes = 0;
    double source_bps = 0, ingress_bps = 0, pcie_bps = 0;  // this GPU's shares, bytes/s (0: none)
    int slots = 0, cores = 0;    // this GPU's shares (0: unlimited)
};

// One training step at one GPU count: its layout, costs, memory and the trainer's plan
// (input pipeline included).
struct StepPlan {
    int gpus = 0, tp = 1, pp = 1, cp = 1, dp = 1;
    int global_batch = 0;           // samples per optimizer step
    int micro_batch = 0;
    int micro_steps = 0;            // gradient-accumulation steps per optimizer step
    std::int64_t iterations = 0;    // optimizer steps to train the scenario's samples
    compute::StepCost step;         // per-GPU cost of one micro-batch, whole model
    // Per entry of step.layers, one micro-batch: its compute plus the tensor-parallel and
    // ring-attention communication it waits for (what a per-layer profile of the step shows).
    std::vector<units::Seconds> layer_fwd, layer_bwd;
    compute::MemoryUse memory;      // of the largest pipeline stage
    double memory_per_gpu_gib = 0;
    bool fits = true;
    double allreduce_busbw_gbps = 0;  // of the largest gradient bucket
    TrainingPlan training;
    InputPlan input;
    // RL fine-tuning (WorkloadSpec::rl), per GPU and rollout: generating the responses of the
    // GPU's prompts, and scoring them; the K/V cache of the generation. Zero otherwise.
    double rollout_generation_s = 0, rollout_scoring_s = 0, rollout_kv_cache_gib = 0;
};

// A whole job: the step at the cluster's size, the step at each elastic GPU count (in
// schedule order), and the lifecycle around them. The lifecycle's `work` and its phases'
// speeds come from simulating the steps (analysis/run).
struct JobPlan {
    StepPlan step;
    std::vector<StepPlan> elastic;
    LifecyclePlan lifecycle;
    double checkpoint_bytes = 0;     // one checkpoint: weights and optimizer state, unsharded
    double checkpoint_write_s = 0;   // 0: no checkpoints
    double checkpoint_interval_s = 0;  // 0: no periodic checkpoints
    double restart_s = 0;            // one restart, the checkpoint load included
    double stored_bytes = 0;         // dataset and kept checkpoints, billed as storage
};

// The network of the scenario's cluster, or of `gpus` of them (an elastic step).
net::Network cluster_network(const Scenario& s);
net::Network cluster_network(const Scenario& s, int gpus);

// Flow-level prices (`cluster.network_model` "flow") of collectives over GPUs 0, stride, ...,
// (count - 1) x stride of one network (a data-parallel group is every tp-th GPU in Megatron's
// rank order, a pipeline or ring-attention transfer a pair), each simulated alone at flow level
// (analysis/simulate/flow_collectives) and memoised by (op, bytes, count, stride): a step plan
// asks for a handful, and the candidates of a layout search share many. The flow level moves
// rings (direct transfers for all-to-all). Thread-safe; `network` must outlive it.
class FlowPrices {
public:
    explicit FlowPrices(const net::Network& network);
    net::CollectiveEstimate price(net::Collective op, units::Bytes bytes, int count, int stride);

private:
    const net::Network& network_;
    std::mutex mutex_;
    std::map<std::tuple<net::Collective, double, int, int>, net::CollectiveEstimate> priced_;
};

// The step at `gpus` GPUs (the cluster's, or an elastic step's) on that cluster's network.
// `layout`, when given, replaces the scenario's tp, pp, virtual stages, cp, sequence
// parallelism, recomputation, ZeRO stage and micro-batch (a candidate of the layout search);
// dp is gpus / (tp pp cp) whatever layout->dp says. The caller guarantees that the layout
// holds at `gpus` (layout.hpp's rules); the scenario is not changed. A searched scenario
// (Parallelism::search) planned without a layout gets its data-parallel placeholder: tp, pp
// and cp 1, micro-batch 1 unless given, at least one micro-step.
// `flow_prices`, for a flow-level scenario, memoises its collectives across calls (on `network`);
// without it the step keeps its own.
StepPlan plan_step(const Scenario& s, int gpus, const net::Network& network, const Layout* layout = nullptr,
                   FlowPrices* flow_prices = nullptr);

// The whole job; `network` is the network of the scenario's cluster. Elastic steps build
// their own networks. `layout` as plan_step's.
JobPlan plan_job(const Scenario& s, const net::Network& network, const Layout* layout = nullptr);

// One optimizer step of the trainer's activity graph (analysis/simulate/trainer.hpp) without
// input waits, seconds: micro_steps - 1 slots, the bubble, the last forward, then each
// bucket's backward with its reduction queued on the one communication stream, then the
// optimizer and the step overhead after the last of both. Without loader workers it is the
// simulated steady step to the nanosecond (tests/analysis/run/layout_search_test.cpp).
double critical_path_s(const TrainingPlan& plan);

// Cuts layers (in order) into `stages` contiguous non-empty stages minimising the largest
// stage's forward + backward time. Returns stages + 1 boundaries.
std::vector<std::size_t> balanced_stages(const std::vector<units::Seconds>& fwd,
                                         const std::vector<units::Seconds>& bwd, int stages);

// Cuts layers (in order) into `stages` contiguous stages as Megatron-LM does: the repeated
// blocks evenly (the first num_blocks % stages stages one more), the layers before the first
// block (embedding) with the first stage and those after the last (final norm, output layer,
// loss) with the last. Empty when there are fewer blocks than stages. Returns stages + 1
// boundaries.
std::vector<std::size_t> even_stages(const std::vector<bool>& block, int stages);

}  // namespace rentsim::analysis
