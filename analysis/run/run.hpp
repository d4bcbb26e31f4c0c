// One scenario in, one result out: builds the models a scenario names, plans a training
// step, simulates the timeline in the engine and prices it. Results are plain data;
// writers (analysis/report) turn them into tables, CSV and JSON.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/plan/layout.hpp"
#include "analysis/run/accuracy.hpp"
#include "analysis/scenario/scenario.hpp"
#include "models/network/network.hpp"
#include "models/registry.hpp"

namespace rentsim::analysis {

struct Breakdown {
    double compute_s = 0;       // per step: kernels on the GPU's compute stream
    double exposed_comm_s = 0;  // per step: communication not hidden behind compute
    double input_stall_s = 0;   // per step: waiting for the input pipeline
    double pipeline_bubble_s = 0;  // per step: pipeline fill and drain (idle); the four sum to the step
};

// What limits the delivery of input: the GPU itself (compute-bound), or an input stage.
enum class InputBound { compute, cpu_workers, storage, ingress, h2d };
const Registry<InputBound>& input_bound_registry();

// Diagnosis of the input pipeline. Capacities are analytic, per GPU, in samples/s, from
// the bottleneck rates of each stage in the steady (last) regime; stalls are simulated.
struct InputDiagnosis {
    InputBound bound_by = InputBound::compute;
    double stall_fraction = 0;          // GPU time waiting for input over the training time
    double input_bound_s = 0;           // total time the GPU waited for input
    int workers_to_compute_bound = 0;   // smallest workers_per_gpu that is compute-bound; 0: none is
    double compute_samples_per_s = 0;   // per GPU, without input waits
    double workers_samples_per_s = 0;   // loader workers (their CPU time and serial request latency) and cores
    double storage_samples_per_s = 0;   // source bandwidth and concurrency (0: not limiting)
    double ingress_samples_per_s = 0;   // node ingress link, this GPU's share (0: not limiting)
    double h2d_samples_per_s = 0;       // PCIe host-to-device copy (0: not simulated)
};

struct EpochResult {
    double time_s = 0;                  // from the epoch's first step to the next epoch's
    double input_stall_s = 0;
    double stall_fraction = 0;
};

// Mean and percentiles (nearest rank) of a figure over replications.
struct Stats {
    double mean = 0, p5 = 0, p50 = 0, p95 = 0;
};

// The run around the steps: how it was paid for and what interrupted it. Counts and
// durations are means over replications.
struct LifecycleResult {
    std::string plan, provider, instance, region, price_source;
    price::PlanKind plan_kind = price::PlanKind::on_demand;
    double usd_per_gpu_hour = 0;     // resolved price (spot, reserved, ... per GPU-hour, in USD)
    int gpus_per_instance = 1;
    int instances = 0;               // most instances held at once
    int billed_gpus = 0;             // GPUs billed (whole instances)
    double instance_hours = 0;       // instance-hours held
    double billed_instance_hours = 0;  // after increments and minimums
    double compute_usd = 0, storage_usd = 0, egress_usd = 0;
    double checkpoint_gb = 0;        // one checkpoint: weights + optimizer state
    double checkpoint_write_s = 0;
    double checkpoint_interval_s = 0;  // 0: no periodic checkpoints
    double restart_s = 0;            // one restart, including the checkpoint load
    double preemptions = 0, failures = 0, checkpoints = 0, resizes = 0, restarts = 0;
    double lost_work_s = 0;          // training redone after interruptions
    double budget_alert_s = -1;      // first replication's alert time; -1: none
    double finished_fraction = 1;    // replications that finished within the budget
    double gave_up_fraction = 0;     // replications given up at 100x the work (interruptions outpace checkpoints)
    double deadline_h = 0;           // the scenario's deadline; 0: none
    double deadline_met_fraction = 1;
    double trained_fraction = 1;     // mean over replications of the work done when each ended
    double window_h = 0;             // the scenario's calendar window; 0: none (a fixed amount of work)
};

// The parallel layout a run used, and the search that chose it ("parallelism": "auto").
struct LayoutResult {
    bool searched = false;
    std::string chosen;              // describe() of the layout run; empty: a search found none that fits
    std::string runner_up;           // the search's second best; empty: none, or not searched
    int candidates = 0;              // layouts the search enumerated (0: not searched)
    std::map<std::string, int> refused;  // the search's refusals, reason -> count
};

// Memory one GPU of the largest pipeline stage needs, by part, GiB; they sum to
// Result::memory_per_gpu_gib.
struct MemoryParts {
    double params_gib = 0, gradients_gib = 0, optimizer_gib = 0, activations_gib = 0;
    double workspace_gib = 0;        // CUDA context, library workspaces, allocator slack
};

// RL fine-tuning (workload.rl): the rollout of each PPO iteration, per GPU. `ppo_epochs` 0:
// not an RL run (the other figures are then 0 too).
struct RlResult {
    int ppo_epochs = 0;
    double rollout_s = 0;      // per optimizer step: (generation + scoring) / ppo_epochs
    double generation_s = 0;   // per rollout: prefill and decode of the GPU's prompts
    double scoring_s = 0;      // per rollout: the scoring models' forward passes
    double kv_cache_gib = 0;   // the generation's K/V cache
};

struct Result {
    std::string name, point, model, gpu, precision;
    std::string framework;           // the framework profile (`workload.framework`)
    std::string attention;           // the attention kernel: "flash", "fmha" or "unfused"
    std::string network_model;       // how collectives were priced: "analytic" or "flow"
    int gpus = 0;
    int tp = 1, pp = 1, dp = 1;     // parallel layout
    int cp = 1;                     // context-parallel ranks per sequence
    LayoutResult layout;
    int global_batch = 0;           // samples per optimizer step
    int micro_batch = 0;
    int micro_steps = 0;            // gradient-accumulation steps per optimizer step
    double samples = 0;             // samples trained
    std::int64_t iterations = 0;    // optimizer steps
    double time_to_train_s = 0;
    double billed_s = 0;            // billed duration of each instance
    double cost_usd = 0;
    double cost_per_sample_usd = 0;  // cost_usd / samples (with a calendar window, the samples it held)
    double throughput_samples_per_s = 0;
    double throughput_tokens_per_s = 0;   // 0 for vision models
    double iteration_s = 0;
    Breakdown breakdown;
    RlResult rl;
    double tflops_per_gpu = 0;      // model FLOPs (no recomputation) per second per GPU
    double mfu = 0;                 // tflops_per_gpu / dense peak at the precision (TF32's for an fp32 run's TF32 work)
    double hardware_tflops_per_gpu = 0;  // FLOPs executed, recomputation included
    double memory_per_gpu_gib = 0;
    MemoryParts memory;
    double memory_available_gib = 0;
    bool fits = true;
    // How the run ended: "done", "stopped by budget at 61%" (the work done when it stopped),
    // "gave up", "missed deadline", "does not fit"; with replications, the share of runs
    // ("stopped by budget in 40% of runs"). See run_status().
    std::string status = "done";
    Accuracy accuracy;
    double allreduce_busbw_gbps = 0;  // of one gradient bucket
    double staging_s = 0;           // copying the dataset to local NVMe before training (billed)
    std::int64_t evaluations = 0;   // held-out evaluations during the run (workload.evaluation)
    double evaluation_s = 0;        // their forward passes, all of them; part of time_to_train_s
    std::string from_instance;      // hardware taken from a catalog instance ("aws/p4de.24xlarge: gpu ..."), or empty
    std::string note;               // why a run has no times (a layout that does not fit), or empty
    std::string step_source;        // a trace-backed scenario: where the step time came from; empty otherwise
    bool storage_pipeline = false;  // the storage-backed input pipeline was simulated
    InputDiagnosis input;
    std::vector<EpochResult> epochs;
    LifecycleResult lifecycle;
    int replications = 0;           // 0: one run with the scenario's seed
    std::uint64_t seed = 0;
    Stats time_stats, cost_stats;   // over replications (all equal to the value without)
    std::int64_t simulated_iterations = 0;
    std::uint64_t events = 0;
    std::uint64_t fingerprint = 0;
};

// Work a run would exceed the simulator's budgets with, refused before it is simulated
// (the message states the estimate and the budget). `main` turns it into exit status 2.
class BudgetError : public std::runtime_error {
public:
    BudgetError(std::string file, std::string point, const std::string& message)
        : std::runtime_error(file + (point.empty() ? "" : " (" + point + ")") + ": " + message) {}
};

// Budgets: the simulated time of one run (the int64 ns clock spans 292 years) and the
// interruptions one lifecycle replication may draw.
inline constexpr double max_simulated_years = 100;
inline constexpr double max_interruptions = 1e7;

// How a scenario is run: replications of its random events, and the seed they derive from.
struct RunOptions {
    int replications = 0;                  // 0: one run with the seed
    std::optional<std::uint64_t> seed;     // none: the scenario's
    // A written layout that does not fit: search the layouts of its GPUs to name one that
    // does (one layout search per such run). Off where only the figures are read.
    bool suggest_layout = true;
};
// The options of runs whose figures alone are read (validation, calibration).
inline RunOptions figures_only() {
    RunOptions o;
    o.suggest_layout = false;
    return o;
}

// The layout search of a scenario whose `parallelism` is searched, at the cluster's size on
// its network: every candidate is planned (plan_step with the candidate) and its step timed
// by critical_path_s (the trainer's own critical path; simulated when the input pipeline is
// modelled, where loader waits can lengthen a step), its cost as step time x steps x GPUs x
// the price, its memory by the plan's parts of the largest stage.
LayoutSearchResult search_scenario_layout(const Scenario& s, const net::Network& network);

// Compile (done by the loader), plan, simulate, result. Throws nothing for input: the
// scenario has been checked; a layout that does not fit is a result with `fits` false. A
// searched layout is chosen first (search_scenario_layout); when none fits, the result does
// not fit and its `note` names the smallest change, its figures those of the closest misfit.
// A written layout that does not fit keeps its own figures, and its `note` names the layout
// the search would run on the same GPUs (or, when none fits, the smallest change).
Result run_scenario(const Scenario& s, const RunOptions& options = {});
// Result::status from its fit and lifecycle figures (run_scenario sets it).
std::string run_status(const Result& r);
// The row of a sweep point that breaks a rule (Scenario::invalid): status "invalid", the
// error in `note`, no figures.
Result invalid_result(const Scenario& s);
// The same on the network of the scenario's cluster (plan/cluster_network), which sweep
// points and repeated predictions over one cluster can share.
Result run_scenario(const Scenario& s, const net::Network& network, const RunOptions& options = {});

}  // namespace rentsim::analysis
