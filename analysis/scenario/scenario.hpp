// A scenario: what to train, on which cluster, fed how, paid how. The loader (the scenario
// compiler) parses JSON (`"schema": 1`) once, checks every rule and resolves every reference
// (the GPU spec, the built workload, the calibration, the topology, the catalog row, the
// spot trace), so that these structs are complete and const: nothing past the loader sees
// JSON, compares a name as a string, or raises an input error. Units are in the field names
// or the types: `_s` seconds, `_h` hours, `_gbps` gigabits per second, units::Seconds, ...
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "analysis/scenario/expect.hpp"
#include "models/compute/framework.hpp"
#include "models/compute/gpu.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/compute/step.hpp"
#include "models/data/pipeline.hpp"
#include "models/network/network.hpp"
#include "models/pricing/catalog.hpp"
#include "models/pricing/spot_trace.hpp"
#include "models/registry.hpp"
#include "models/units.hpp"
#include "models/workloads/workload.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

enum class Schedule { one_f_one_b, gpipe };
enum class Staging { none, copy_to_nvme };
using price::PlanKind;

// What the layout search minimises: one optimizer step's time, or the run's cost (time x
// GPUs x price); ties go to the other (analysis/plan/layout.hpp).
enum class LayoutObjective { time, cost };
const Registry<LayoutObjective>& layout_objective_registry();

// How a run prices its collectives (`cluster.network_model`): the analytic model
// (models/network), or the flow level (analysis/simulate/flow_collectives), each collective
// alone on the cluster's topology with the ranks it uses. The flow level moves rings (direct
// transfers for all-to-all), so the loader accepts only `collective_algorithm` auto or ring with
// it; where the analytic model's automatic choice takes the double binary tree (large groups,
// small messages) the two part by more than the sharing of links.
enum class NetworkModel { analytic, flow };
const Registry<NetworkModel>& network_model_registry();

// The attention kernels `workload.attention` names (work::AttentionKind): flash, unfused, fmha.
const Registry<work::AttentionKind>& attention_kind_registry();

// The parallel layout. With `search` ("parallelism": "auto", or {"auto": true}, or a GPT-family
// model with `global_batch`, no `parallelism` block and no elastic schedule) the run layer
// chooses tp, pp, virtual stages, cp, dp, micro-batch, recomputation and ZeRO stage with the
// layout search; the fields below then hold their defaults (all 1) and only the overlap
// switches and the schedule are the scenario's.
struct Parallelism {
    bool search = false;
    LayoutObjective objective = LayoutObjective::time;
    int tp = 1, pp = 1;
    int cp = 1;                      // context parallelism: each sequence split over cp GPUs (ring attention)
    int dp = 1;                      // resolved: gpus / (tp x pp x cp) at the cluster's size
    bool sequence_parallel = false;  // resolved: only with tp > 1
    compute::Recompute recompute = compute::Recompute::none;
    int recompute_every = 1;         // with full recompute: every k-th block replays (compute::StepConfig)
    int zero = 0;                    // ZeRO stage 0..3
    int virtual_stages = 1;          // interleaved pipeline stages per GPU
    Schedule schedule = Schedule::one_f_one_b;
    // Overlaps, from the framework profile unless the scenario sets them.
    bool overlap_grad_reduce = true;    // gradient reductions overlap the rest of backward
    bool overlap_param_gather = false;  // ZeRO-1/3 parameter all-gathers prefetched behind compute
    bool tp_comm_overlap = false;       // tensor-parallel collectives overlapped with GEMMs
    bool gather_copy_out = false;       // ZeRO-3: each all-gather copied out on the compute stream (FSDP2)
    // fp8 training: sharded parameters cast to fp8 before their all-gather, 1 byte each on the
    // wire and in the gathered copy (torchao's enable_fsdp_float8_all_gather, Megatron-Core's
    // --fp8-param-gather); off: gathered in 16 bits. No effect in other precisions.
    bool fp8_all_gather = false;
    // Compute slows while a data-parallel collective runs beside it (NCCL's kernels take SMs
    // and memory bandwidth): compute::overlap_compute_slowdown. Off: overlap is free.
    bool overlap_contention = true;
    // Pipeline stages cut evenly by transformer layers (Megatron's split) rather than balanced
    // by time; from the framework profile unless the scenario sets `stage_split`.
    bool even_stages = false;
    // ZeRO-3's backward all-gathers issued once the layer above has its gradients (FSDP's
    // BACKWARD_POST; compute::Framework::gather_after_grads): exposed; false: prefetched.
    bool gather_after_grads = false;

    int model_parallel() const { return tp * pp * cp; }
};

// Reinforcement-learning fine-tuning with PPO (`workload.rl`), as RLHF frameworks run it
// (OpenRLHF, DeepSpeed-Chat, verl): each optimizer step's samples are prompts. The policy
// first generates a response to each (the rollout: prefill, then one decode step per token);
// the responses are scored by forward passes of the policy (old log-probabilities), the
// critic (values) and the frozen reference (KL penalty) and reward models; then policy and
// critic train on them for `ppo_epochs` passes, one optimizer step each. Every model has the
// policy's shape; the sequence is prompt_tokens + response_tokens.
struct RlSpec {
    bool enabled = false;
    int prompt_tokens = 0, response_tokens = 0;
    int ppo_epochs = 1;
    bool critic = true, reference = true, reward_model = true;
    // Forward passes over each sample to score a rollout.
    int scoring_passes() const { return 1 + int(critic) + int(reference) + int(reward_model); }
};

// Held-out evaluation during training (`workload.evaluation`): a forward pass over `samples`
// held-out samples after every `every_samples` trained ones, as MLPerf Training counts it in
// its time to train ("the time to evaluate the quality is included in the wallclock time",
// MLPerf Training rules, Quality measure) and as recipes that validate each epoch do. Zero
// `every_samples`: no evaluation.
struct EvaluationSpec {
    double every_samples = 0;      // trained samples between evaluations
    double samples = 0;            // held-out samples per evaluation
};

struct WorkloadSpec {
    std::string model;             // registry name: resnet50, bert-base, bert-large, gpt, or a GPT preset
    work::Workload graph;          // the built model: layers of ops with their shapes
    compute::Precision precision = compute::Precision::fp32;
    int batch_per_gpu = 0;         // samples per GPU per optimizer step (data-parallel form)
    int global_batch = 0;          // samples per optimizer step (with micro_batch)
    int micro_batch = 0;           // 0 only with a layout search that chooses it
    units::Bytes bucket{25.0 * 1024 * 1024};  // gradient bucket (PyTorch DDP bucket_cap_mb, MiB)
    std::string framework{compute::default_framework};  // registry name of the framework profile
    bool fused_elementwise = false;  // elementwise ops fused, one kernel per run (profile or key)
    bool gemm_epilogue = false;      // an activation after a GEMM runs in its epilogue (key)
    bool tf32_matmul = false, tf32_conv = false;  // fp32 requests on TF32 tensor cores (profile or `tf32`)
    compute::ConvLayout conv_layout = compute::ConvLayout::nchw;  // profile or `conv_layout`
    compute::OptimizerKernel optimizer_kernel = compute::OptimizerKernel::fused;  // profile or `optimizer_kernel`
    compute::GradClip grad_clip = compute::GradClip::none;  // profile or `grad_clip`
    compute::LossKernel loss_kernel = compute::LossKernel::eager;  // profile or `loss_kernel`
    compute::GradReduce grad_reduce = compute::GradReduce::param;  // profile (by precision) or `grad_reduce`
    bool main_grads = false;       // main-gradient buffers (compute::Framework::main_grads): the profile's, or the key
    work::AttentionKind attention = work::AttentionKind::unfused;  // resolved: key, or framework and GPU
    int lora_rank = 0;             // LoRA fine-tuning of the transformer blocks at this rank; 0: every weight trains
    double padding_fraction = 0;   // BERT: share of padding tokens in a sample (removed only by frameworks that unpad)
    int length_bin = 0;            // BERT: batches binned by length, padded to the bin's top (tokens); 0: none
    Parallelism parallelism;
    double samples = 0;            // samples to train (dataset_samples * epochs, or tokens / seq_len)
    double dataset_samples = 0;    // 0 when the amount was given as samples or tokens
    double epochs = 0;
    EvaluationSpec evaluation;
    // A recorded op-level trace (`trace`: a Kineto or Chakra file, or a folder of one file per
    // rank), resolved against the scenario's folder; empty: the step comes from the model. With
    // a trace, analysis/run replays it (analysis/replay; retargeted to the cluster's GPU, GPU count
    // and precision when they differ from the recording) and takes the replayed iteration as the
    // step time; the model and batch_per_gpu still give the samples per step and the memory.
    std::string trace;
    RlSpec rl;
};

struct ClusterSpec {
    const compute::GpuSpec* gpu = nullptr;  // catalog entry
    int gpus = 1;
    int gpus_per_node = 8;
    net::TopologySpec topology;      // the network the cluster describes (preset or explicit)
    net::Algorithm collective_algorithm = net::Algorithm::automatic;
    NetworkModel network_model = NetworkModel::analytic;
    compute::Calibration calibration;  // the shipped one, or the file the scenario names
    std::string calibration_file;    // that file, resolved against the scenario's folder; empty: shipped
    // Values taken from a catalog instance rather than written in the scenario, for the
    // output: "gpu a100-sxm4-80gb, 8 GPUs per node, topology aws-p4d" (empty: none).
    std::string from_instance;
};

// Where the dataset is read from (`data.source`), with the kind's defaults filled in.
struct SourceSpec {
    data::SourceKind kind = data::SourceKind::object_storage;
    double gbps = 0;               // aggregate read bandwidth for one node, Gb/s (0: the kind's or the instance's)
    double latency_ms = -1;        // per request, milliseconds (-1: the kind's)
    int max_concurrency = 0;       // requests in flight from one node (0: the kind's)
    double request_bytes = 0;      // bytes per request (0: one sample per request; shards are larger)
};

struct DataSpec {
    int workers_per_gpu = 0;              // 0: the input pipeline is not modelled (synthetic data)
    double samples_per_s_per_worker = 0;  // decode + augment rate of one worker process (0: the kind's)
    int prefetch_factor = 2;              // batches each worker keeps ready (PyTorch DataLoader default)
    // Storage-backed pipeline: set when `sample_kind` is given; null means the workers alone
    // are simulated, at samples_per_s_per_worker.
    const data::SampleKind* sample_kind = nullptr;
    const data::Instance* instance = nullptr;  // vCPUs, RAM, network, NVMe of a node, or null
    double sample_bytes = 0;              // stored bytes per sample (0: the kind's)
    double dataset_bytes = 0;             // 0: workload.dataset_samples x sample_bytes
    std::optional<SourceSpec> source;     // none: samples are already in host memory
    Staging staging = Staging::none;
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

// How the GPUs are paid for: a catalog row (provider + instance + plan) or explicit prices,
// resolved to USD at load time (`usd_per_unit` converts other currencies).
struct PricingSpec {
    std::string plan = "on-demand";  // as written: on-demand, spot, a catalog plan (reserved_1y_..., committed_use_1y), self-owned
    PlanKind kind = PlanKind::on_demand;
    std::string provider, instance, region;  // empty for explicit prices
    std::string source;                      // the catalog row's source and date, or empty
    double usd_per_gpu_hour = 0;             // resolved price of one GPU-hour (instance price / GPUs per instance)
    std::string currency = "USD";            // of the price as written
    int gpus_per_instance = 1;               // instances are billed whole
    units::Seconds billing_increment{1};
    units::Seconds minimum_billed{60};
    double storage_usd_per_gb_month = 0;     // object storage for the dataset and checkpoints
    double dataset_gb = 0;                   // stored for the whole run
    double egress_gb = 0;                    // moved out of the provider (e.g. the trained model)
    double egress_usd_per_gb = 0;
    std::optional<OwnershipSpec> ownership;  // with PlanKind::owned
    units::Seconds spot_notice{0};           // provider's spot notice (0: not documented)
};

// The run around the training steps: start-up, restarts, checkpoints, interruptions, guards.
struct LifecycleSpec {
    units::Seconds provisioning{};      // instances booting before the first step (billed)
    units::Seconds staging{};           // dataset staged before the first step (billed)
    units::Seconds boot{}, container{}, nccl_init{};  // each restart, plus the checkpoint load
    units::Seconds resize{};            // re-sharding on an elastic resize
    // Checkpoints.
    units::Seconds checkpoint_interval{};  // 0: none, unless checkpoint_optimal
    bool checkpoint_optimal = false;    // Young/Daly interval from the interruption rate
    double checkpoint_write_gb_per_s = 0;  // aggregate bandwidth to checkpoint storage (0: no checkpoints)
    double checkpoint_read_gb_per_s = 0;   // 0: same as write
    double checkpoint_gb = 0;           // 0: weights + optimizer state of the model
    int checkpoints_kept = 1;           // copies stored (for storage cost)
    // Spot (set when the plan is spot).
    bool spot = false;
    double preempt_mean_h = 0;          // mean time between preemptions of one instance
    std::shared_ptr<const price::SpotTrace> spot_trace;  // or a shipped trace, replayed
    units::Seconds notice{};            // the scenario's, else the provider's
    units::Seconds capacity_wait{};     // mean wait for capacity after a preemption
    bool checkpoint_on_notice = true;
    // Failures.
    double gpu_mtbf_h = 0;              // 0: none
    // Guards.
    double budget_usd = 0;
    double budget_alert_fraction = 0.8;
    double deadline_h = 0;
    // > 0: simulate this calendar period from the start and report the work done in it,
    // instead of the time a fixed amount of work takes (`workload`'s amount is then unused).
    double window_h = 0;
};

// One step of an elastic schedule; its parallel layout is checked at its GPU count.
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
    std::vector<std::pair<std::string, std::string>> swept;  // (dotted key, value as written) of this point
    // Non-empty: this sweep point breaks a rule that spans keys (fp4 on a GPU without it), and
    // this is the error ("file: pointer: message (at sweep point ...)"). Only file, name, point
    // and swept are set; the other points still run. Empty for every valid scenario.
    std::string invalid;
    std::uint64_t seed = 1;
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
    std::vector<Scenario> points;      // one, or the cartesian product of the sweep axes and zip groups
    std::vector<SweepAxis> axes;       // one per swept key, zipped keys included; empty without a sweep block
    Expectations expect;               // the file's `expect` block (empty without one); never swept
};

// A scenario described in code (a measurement row, an importer) by dotted keys, as a sweep
// names them ("cluster.gpus", "workload.parallelism.tp"). compile_scenario checks it by the
// same rules as a file and resolves it the same way; errors name `file` and the key's pointer.
using DraftValue = std::variant<bool, std::int64_t, double, std::string>;
struct ScenarioDraft {
    std::string file;
    std::vector<std::pair<std::string, DraftValue>> keys;  // in order; a later key overrides
    ScenarioDraft& set(std::string key, DraftValue value) {
        keys.emplace_back(std::move(key), std::move(value));
        return *this;
    }
};
Scenario compile_scenario(const ScenarioDraft& draft);

// Values set at dotted keys of every point, after the sweep: what-if variations of a file.
using Overrides = std::vector<std::pair<std::string, DraftValue>>;

// Throws InputError naming the file and JSON pointer on any problem (an overridden key is
// named as "override KEY"). Paths inside the scenario (a calibration file) resolve against
// the folder of `path`.
ScenarioSet load_scenarios(const std::string& path, const Overrides& overrides = {});
// `file` names the text in messages and is the base of relative paths.
ScenarioSet parse_scenarios(const std::string& text, const std::string& file, const Overrides& overrides = {});

// `rentsim fabric`: jobs sharing one cluster's fabric, each a stream of one collective over
// whole nodes. Placement deals the cluster's nodes to the jobs: `block` gives each job the next
// free nodes in order, `interleaved` one node to each job in turn (node 0 to the first, node 1
// to the second, ...), so that interleaved jobs cross the same leaf uplinks.
enum class Placement { block, interleaved };
const Registry<Placement>& placement_registry();

struct FabricJobSpec {
    std::string name;
    int nodes = 1;                       // whole nodes of the cluster
    net::Collective op = net::Collective::all_reduce;
    units::Bytes bytes{0.0};             // nccl-tests size (`size_mib`)
    int count = 1;                       // collectives in the stream, one after another
    units::Seconds gap{0.0};             // compute between one collective's end and the next (`gap_ms`)
};

struct FabricSpec {
    std::string file, name;
    ClusterSpec cluster;                 // the `cluster` block, read as a scenario's (its network_model does not apply)
    Placement placement = Placement::block;
    std::vector<FabricJobSpec> jobs;     // their nodes add up to at most the cluster's
};

// {"schema": 1, "name", "description"?, "cluster": {...}, "placement"?, "jobs": [{"name",
// "nodes", "op", "size_mib", "count"?, "gap_ms"?}, ...]}. Throws InputError naming the file and
// JSON pointer on any problem, as load_scenarios does.
FabricSpec load_fabric(const std::string& path);
FabricSpec parse_fabric(const std::string& text, const std::string& file);



}  // namespace rentsim::analysis
