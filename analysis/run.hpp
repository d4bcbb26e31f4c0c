// One scenario in, one result out: builds the models a scenario names, plans a training
// step, simulates the timeline in the engine and prices it. Results are plain data;
// writers (analysis/report) turn them into tables, CSV and JSON.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/scenario.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/network/network.hpp"

namespace rentsim::analysis {

struct Breakdown {
    double compute_s = 0;       // per step: kernels on the GPU's compute stream
    double exposed_comm_s = 0;  // per step: communication not hidden behind compute
    double input_stall_s = 0;   // per step: waiting for the input pipeline
};

// Mean and percentiles (nearest rank) of a figure over replications.
struct Stats {
    double mean = 0, p5 = 0, p50 = 0, p95 = 0;
};

// The run around the steps: how it was paid for and what interrupted it. Counts and
// durations are means over replications.
struct LifecycleResult {
    std::string plan, provider, instance, region, price_source;
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
};

struct Result {
    std::string name, point, model, gpu, precision;
    int gpus = 0;
    int global_batch = 0;           // samples per optimizer step
    int micro_batch = 0;
    int micro_steps = 0;            // gradient-accumulation steps per optimizer step
    double samples = 0;             // samples trained
    std::int64_t iterations = 0;    // optimizer steps
    double time_to_train_s = 0;
    double billed_s = 0;            // billed duration of each instance
    double cost_usd = 0;
    double throughput_samples_per_s = 0;
    double throughput_tokens_per_s = 0;   // 0 for vision models
    double iteration_s = 0;
    Breakdown breakdown;
    double tflops_per_gpu = 0;      // model FLOPs (no recomputation) per second per GPU
    double mfu = 0;                 // tflops_per_gpu / dense peak at the precision
    double memory_per_gpu_gib = 0;
    double memory_available_gib = 0;
    bool fits = true;
    double allreduce_busbw_gbps = 0;  // of one gradient bucket
    LifecycleResult lifecycle;
    int replications = 0;           // 0: one run with the scenario's seed
    std::uint64_t seed = 0;
    Stats time_stats, cost_stats;   // over replications (all equal to the value without)
    std::int64_t simulated_iterations = 0;
    std::uint64_t events = 0;
    std::uint64_t fingerprint = 0;
};

// The network the scenario's cluster describes.
net::TopologySpec topology_spec(const ClusterSpec& c);

// Loads the shipped calibration of a GPU, or the file a scenario names.
compute::Calibration calibration_for(const Scenario& s);

// Throws InputError for combinations the models cannot represent.
Result run_scenario(const Scenario& s);

}  // namespace rentsim::analysis
