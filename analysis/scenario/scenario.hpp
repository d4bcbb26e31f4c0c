// A scenario: what to train, on which cluster, fed how, paid how. Parsed once from JSON
// (`"schema": 1`) into these immutable structs; nothing past the loader sees JSON.
// Units are in the key names and the field names: `_s` seconds, `_us` microseconds,
// `_gbps` gigabits per second, `usd_per_gpu_hour` US dollars per GPU-hour.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/compute/gpu.hpp"

namespace rentsim::analysis {

struct Parallelism {
    int tp = 1, pp = 1, dp = 0;    // dp 0: all remaining GPUs (gpus / (tp * pp))
    bool sequence_parallel = false;
    std::string recompute = "none";  // none, selective, full
    int zero = 0;                    // ZeRO stage 0..3
    int virtual_stages = 1;          // interleaved pipeline stages per GPU
    std::string schedule = "1f1b";   // pipeline schedule: 1f1b or gpipe
};

struct WorkloadSpec {
    std::string model;             // zoo name: resnet50, bert-base, bert-large, gpt, or a GPT preset
    std::string task;              // BERT: "pretraining" or "squad"; empty otherwise
    compute::Precision precision = compute::Precision::fp32;
    // GPT shape (model "gpt", or a preset with seq_len overridden); 0 means "from the preset"
    int layers = 0, hidden = 0, heads = 0, seq_len = 0, vocab = 0, ffn_hidden = 0, kv_heads = 0;
    int batch_per_gpu = 0;         // samples per GPU per optimizer step (data-parallel form)
    int global_batch = 0;          // samples per optimizer step (with micro_batch)
    int micro_batch = 0;
    double bucket_mb = 25;
    bool fused_elementwise = false;  // elementwise ops fused into neighbouring kernels (XLA, fused frameworks)         // gradient bucket size, MiB (PyTorch DDP bucket_cap_mb)
    Parallelism parallelism;
    double samples = 0;            // samples to train (dataset_samples * epochs, or tokens / seq_len)
    double dataset_samples = 0;    // 0 when the amount was given as samples or tokens
    double epochs = 0;
};

struct InterNode {
    std::string fabric;            // infiniband, roce, efa, tcp
    double gbps_per_gpu = 0;       // line rate per GPU, Gb/s
    double latency_us = 0;         // one-way message latency, microseconds
};

struct ClusterSpec {
    std::string gpu;               // catalog name
    int gpus = 1;
    int gpus_per_node = 8;
    std::string intra_node = "nvlink";  // nvlink or pcie
    std::optional<InterNode> inter_node;
    std::string topology;          // network preset name, or empty
    double oversubscription = 1.0; // leaf-to-spine oversubscription of the fabric
    int nodes_per_leaf = 0;        // nodes under one leaf switch (0: the preset's or one leaf)
    std::string collective_algorithm = "auto";  // auto (as NCCL picks), ring, tree, hierarchical
    std::string calibration;       // path of a calibration file, or empty for the shipped one
};

// Where the dataset is read from (`data.source`); zero or negative fields take the kind's
// default (models/data catalog).
struct SourceSpec {
    std::string kind;              // local-nvme, nfs, object-storage
    double gbps = 0;               // aggregate read bandwidth for one node, Gb/s
    double latency_ms = -1;        // per request, milliseconds
    int max_concurrency = 0;       // requests in flight from one node
    double request_bytes = 0;      // bytes per request (0: one sample per request; shards are larger)
};

struct DataSpec {
    int workers_per_gpu = 0;              // 0: the input pipeline is not modelled (synthetic data)
    double samples_per_s_per_worker = 0;  // decode + augment rate of one worker process (0: the kind's)
    int prefetch_factor = 2;              // batches each worker keeps ready (PyTorch DataLoader default)
    // Storage-backed pipeline: set when `sample_kind` is given; empty means the workers
    // alone are simulated, at samples_per_s_per_worker.
    std::string sample_kind;              // imagenet-jpeg, pretokenized-text, point-cloud
    std::string instance;                 // instance preset (vCPUs, RAM, network, NVMe), or empty
    double sample_bytes = 0;              // stored bytes per sample (0: the kind's)
    double dataset_bytes = 0;             // 0: workload.dataset_samples x sample_bytes
    std::optional<SourceSpec> source;     // none: samples are already in host memory
    std::string staging = "none";         // none, copy-to-nvme
    double host_ram_gib = 0;              // 0: the instance's, or no page cache
    int vcpus = 0;                        // CPU threads of a node (0: the instance's, or one per worker)
    bool gpu_decode = false;              // decode on the GPU (DALI-style), adding GPU time
    double ingress_gbps = 0;              // node ingress (0: the instance's network, or unlimited)
};

// Owning the hardware instead of renting it (plan "self-owned"), per instance.
struct OwnershipSpec {
    double purchase_usd = 0, depreciation_years = 0, power_kw = 0, pue = 1, usd_per_kwh = 0,
           operations_usd_per_year = 0;
};

// How the GPUs are paid for: a catalog row (provider + instance + plan) or explicit prices.
// Prices are resolved to USD at load time (`usd_per_unit` converts other currencies).
struct PricingSpec {
    std::string plan = "on-demand";  // on-demand, spot, a catalog plan (reserved_1y_..., committed_use_1y), self-owned
    std::string provider, instance, region;  // empty for explicit prices
    std::string source;                      // the catalog row's source and date, or empty
    double usd_per_gpu_hour = 0;             // resolved price of one GPU-hour (instance price / GPUs per instance)
    int gpus_per_instance = 1;               // instances are billed whole
    double billing_increment_s = 1;
    double minimum_billed_s = 60;
    std::string currency = "USD";
    double usd_per_unit = 1;                 // USD per unit of `currency`
    double storage_usd_per_gb_month = 0;     // object storage for the dataset and checkpoints
    double dataset_gb = 0;                   // stored for the whole run
    double egress_gb = 0;                    // moved out of the provider (e.g. the trained model)
    double egress_usd_per_gb = 0;
    std::optional<OwnershipSpec> ownership;  // needed by plan self-owned
    double spot_notice_s = 0;                // provider's spot notice (0: not documented)

    bool is_spot() const { return plan == "spot" || plan == "preemptible"; }
    bool is_owned() const { return plan == "self-owned"; }
    bool is_committed() const {
        return plan.starts_with("reserved") || plan.starts_with("committed") || plan == "monthly";
    }
};

// The run around the training steps: start-up, restarts, checkpoints, interruptions, guards.
struct LifecycleSpec {
    double provisioning_s = 0;          // instances booting before the first step (billed)
    double staging_s = 0;               // dataset staged before the first step (billed)
    double boot_s = 0, container_s = 0, nccl_init_s = 0;  // each restart, plus the checkpoint load
    double resize_s = 0;                // re-sharding on an elastic resize
    // Checkpoints.
    double checkpoint_interval_s = 0;   // 0: none, unless checkpoint_optimal
    bool checkpoint_optimal = false;    // Young/Daly interval from the interruption rate
    double checkpoint_write_gb_per_s = 0;  // aggregate bandwidth to checkpoint storage
    double checkpoint_read_gb_per_s = 0;   // 0: same as write
    double checkpoint_gb = 0;           // 0: weights + optimizer state of the model
    int checkpoints_kept = 1;           // copies stored (for storage cost)
    // Spot (applies when the plan is spot).
    bool spot = false;
    double preempt_mean_h = 0;          // mean time between preemptions of one instance
    std::string spot_trace;             // or a shipped trace name
    double notice_s = -1;               // -1: the provider's
    double capacity_wait_s = 0;         // mean wait for capacity after a preemption
    bool checkpoint_on_notice = true;
    // Failures.
    double gpu_mtbf_h = 0;              // 0: none
    // Guards.
    double budget_usd = 0;
    double budget_alert_fraction = 0.8;
    double deadline_h = 0;
};

struct ElasticStep {
    double from_h = 0;
    int gpus = 1;
};
struct ElasticSpec {
    std::vector<ElasticStep> schedule;  // empty: fixed cluster.gpus
    double repeat_h = 0;
};

struct Scenario {
    std::string file;          // where it was read from
    std::string name;
    std::string point;         // sweep point label, e.g. "cluster.gpus=16"; empty without a sweep
    std::uint64_t seed = 1;
    int replications = 0;      // independent lifecycle replications (0: one run with `seed`)
    WorkloadSpec workload;
    ClusterSpec cluster;
    DataSpec data;
    PricingSpec pricing;
    LifecycleSpec lifecycle;
    ElasticSpec elastic;
};

struct SweepAxis {
    std::string key;                   // dotted key, e.g. "cluster.gpus"
    std::vector<std::string> labels;   // each value as written (JSON text)
};

struct ScenarioSet {
    std::vector<Scenario> points;      // one, or the cartesian product of the sweep axes
    std::vector<SweepAxis> axes;       // empty without a sweep block
};

// Throws InputError naming the file and JSON pointer on any problem.
ScenarioSet load_scenarios(const std::string& path);
ScenarioSet parse_scenarios(const std::string& text, const std::string& file);

}  // namespace rentsim::analysis
