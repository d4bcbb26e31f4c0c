#include "analysis/report/fields.hpp"

#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

namespace rentsim::analysis {

namespace {

template <typename T>
FieldValue value_of(const T& x) {
    if constexpr (std::is_same_v<T, bool>) return x;
    else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(x);
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return static_cast<std::int64_t>(x);
    else if constexpr (std::is_integral_v<T>) return static_cast<std::uint64_t>(x);
    else return std::string(x);
}

// Accessors. `Members` is a chain of member pointers from Result: get<&Result::breakdown,
// &Breakdown::compute_s> reads r.breakdown.compute_s.
template <auto... Members>
FieldValue get(const Result& r) { return value_of((r .* ... .* Members)); }

FieldValue bound_by(const Result& r) { return std::string(input_bound_registry().name_of(r.input.bound_by)); }

// Null where the figure is 0 or less (0 stands for "none" or "not limiting").
template <auto... Members>
FieldValue positive(const Result& r) {
    const auto x = (r .* ... .* Members);
    return x > 0 ? value_of(x) : FieldValue(nullptr);
}

// Null where the figure is negative (-1 stands for "never").
template <auto... Members>
FieldValue nonnegative(const Result& r) {
    const auto x = (r .* ... .* Members);
    return x >= 0 ? value_of(x) : FieldValue(nullptr);
}

// Null where the string is empty.
template <auto... Members>
FieldValue nonempty(const Result& r) {
    const auto& x = (r .* ... .* Members);
    return x.empty() ? FieldValue(nullptr) : value_of(x);
}

// Null where the price did not come from the catalog.
template <auto Member>
FieldValue catalog(const Result& r) {
    return r.lifecycle.provider.empty() ? FieldValue(nullptr) : value_of(r.lifecycle.*Member);
}

// Null where the run was not replicated.
template <auto... Members>
FieldValue replicated(const Result& r) {
    return r.replications > 0 ? value_of((r .* ... .* Members)) : FieldValue(nullptr);
}

FieldValue fingerprint_hex(const Result& r) { return fmt::format("{:016x}", r.fingerprint); }

FieldValue attention(const Result& r) { return r.attention; }

// The layout search's figures: null where the layout was not searched.
FieldValue layout_chosen(const Result& r) { return r.layout.chosen.empty() ? FieldValue(nullptr) : FieldValue(r.layout.chosen); }
FieldValue layout_runner_up(const Result& r) {
    return r.layout.runner_up.empty() ? FieldValue(nullptr) : FieldValue(r.layout.runner_up);
}
FieldValue layout_candidates(const Result& r) {
    return r.layout.searched ? value_of(r.layout.candidates) : FieldValue(nullptr);
}
FieldValue layout_refused(const Result& r) {
    if (!r.layout.searched) return nullptr;
    Counts c;
    for (const auto& [why, n] : r.layout.refused) c[why] = n;
    return c;
}

// Null where the run is not RL fine-tuning.
template <auto Member>
FieldValue rl_figure(const Result& r) {
    return r.rl.ppo_epochs > 0 ? value_of(r.rl.*Member) : FieldValue(nullptr);
}

// Null where no check row validates the GPU family and workload kind.
template <auto Member>
FieldValue validated(const Result& r) {
    return r.accuracy.check_rows > 0 ? value_of(r.accuracy.*Member) : FieldValue(nullptr);
}

using K = Kind;
using O = Outputs;
using P = Presence;
using R = Result;
using L = LifecycleResult;
using I = InputDiagnosis;
using M = MemoryParts;
using A = Accuracy;

constexpr O both = O::both, json = O::json, last = O::both | O::json_last;

// The table, one line per field. A new result field is its Result member and one line here;
// then regenerate README.md's field list (README.md, "Results").
constexpr Field fields[] = {
    {"name", K::string, "", both, P::always, get<&R::name>, "the scenario's `name`"},
    {"point", K::string, "", both, P::if_set, nonempty<&R::point>, "the sweep point, `key=value` for each swept key; absent without `sweep`"},
    {"model", K::string, "", both, P::always, get<&R::model>, "the workload's model"},
    {"gpu", K::string, "", both, P::always, get<&R::gpu>, "the GPU (`rentsim list gpus`)"},
    {"gpus", K::integer, "", both, P::always, get<&R::gpus>, "GPUs in the cluster"},
    {"tp", K::integer, "", both, P::always, get<&R::tp>, "tensor-parallel degree"},
    {"pp", K::integer, "", both, P::always, get<&R::pp>, "pipeline stages"},
    {"dp", K::integer, "", both, P::always, get<&R::dp>, "data-parallel degree"},
    {"cp", K::integer, "", both, P::always, get<&R::cp>, "context-parallel degree: GPUs sharing each sequence (ring attention)"},
    {"precision", K::string, "", both, P::always, get<&R::precision>, "`fp32`, `tf32`, `fp16`, `bf16`, `fp8` or `fp4`"},
    {"framework", K::string, "", both, P::always, get<&R::framework>, "the framework profile (`workload.framework`), which sets the default overlaps, fusions and attention kernel"},
    {"attention", K::string, "", both, P::always, attention, "the attention kernel: `flash` (one fused kernel), `fmha` (NVIDIA's fused BERT kernel, storing the probabilities) or `unfused`; `unfused` for models without attention"},
    {"network_model", K::string, "", both, P::always, get<&R::network_model>, "how collectives were priced (`cluster.network_model`): `analytic`, or `flow` (each collective simulated alone at flow level on the cluster's topology)"},
    {"global_batch", K::integer, "samples", both, P::always, get<&R::global_batch>, "samples per optimizer step"},
    {"micro_batch", K::integer, "samples", both, P::always, get<&R::micro_batch>, "samples per micro-batch"},
    {"micro_steps", K::integer, "", both, P::always, get<&R::micro_steps>, "gradient-accumulation steps per optimizer step"},
    {"samples", K::number, "samples", both, P::always, get<&R::samples>, "samples trained"},
    {"iterations", K::integer, "", both, P::always, get<&R::iterations>, "optimizer steps"},
    {"layout.searched", K::boolean, "", both, P::always, get<&R::layout, &LayoutResult::searched>, "whether the layout search chose the parallel layout (`\"parallelism\": \"auto\"`, or a GPT-family model with `global_batch` and no `parallelism`)"},
    {"layout.chosen", K::nullable_string, "", both, P::always, layout_chosen, "the layout run, as `tp 8, pp 2 (virtual 2), cp 1, dp 4, micro-batch 1, sequence parallel, selective recompute, zero 1`; null when a search found none that fits"},
    {"layout.runner_up", K::nullable_string, "", both, P::always, layout_runner_up, "the search's second-best layout, in the same words; null without a search or a second fitting layout"},
    {"layout.candidates", K::nullable_integer, "", both, P::always, layout_candidates, "layouts the search enumerated; null without a search"},
    {"layout.refused", K::counts, "", json, P::always, layout_refused, "the search's refused candidates, an object of reason -> count (they add up to `layout.candidates` minus the fitting ones); null without a search"},
    {"from_instance", K::string, "", json, P::if_set, nonempty<&R::from_instance>, "the values taken from a catalog instance rather than written in the scenario (`aws/p4de.24xlarge: gpu a100-sxm4-80gb, 8 GPUs per node, topology aws-p4d`); absent when none were"},
    {"fits", K::boolean, "", both, P::always, get<&R::fits>, "whether the run fits in GPU memory"},
    {"status", K::string, "", both, P::always, get<&R::status>, "how the run ended: `done`, `invalid` (a sweep point that breaks a rule; the error in `note`), `stopped by budget at 61%` (the share of the work done when the budget stopped it), `gave up` (interruptions outpace checkpoints), `missed deadline`, `does not fit`; with replications, the share of runs (`stopped by budget in 40% of runs`)"},
    {"note", K::string, "", both, P::if_set, nonempty<&R::note>, "why a run that does not fit has no times (an elastic step that does not fit; a layout search that found no fitting layout, with the smallest change that would make one fit; a written layout that does not fit, with the layout `\"parallelism\": \"auto\"` would run or, when none of its GPUs fits, that smallest change); absent otherwise"},
    {"step_source", K::string, "", json, P::if_set, nonempty<&R::step_source>, "a trace-backed scenario (`workload.trace`): the trace replayed for the step time, the GPU and GPU count it was recorded on and retargeted to, the replayed and the recorded step (`trace T (v100-sxm2-32gb x1), retargeted to a100-sxm4-80gb x1: replayed step 76.83 ms (recorded 95.70 ms)`); absent for model steps"},
    {"memory_per_gpu_gib", K::number, "GiB", both, P::always, get<&R::memory_per_gpu_gib>, "memory one GPU needs (of the largest pipeline stage); the five `memory` parts sum to it"},
    {"memory.params_gib", K::number, "GiB", both, P::always, get<&R::memory, &M::params_gib>, "of which weights (16-bit copies in mixed precision; after tensor, pipeline and ZeRO-3 sharding)"},
    {"memory.gradients_gib", K::number, "GiB", both, P::always, get<&R::memory, &M::gradients_gib>, "of which gradients (sharded from ZeRO 2)"},
    {"memory.optimizer_gib", K::number, "GiB", both, P::always, get<&R::memory, &M::optimizer_gib>, "of which optimizer state and fp32 master weights (sharded from ZeRO 1)"},
    {"memory.activations_gib", K::number, "GiB", both, P::always, get<&R::memory, &M::activations_gib>, "of which stashed activations of the micro-batches in flight"},
    {"memory.workspace_gib", K::number, "GiB", both, P::always, get<&R::memory, &M::workspace_gib>, "of which CUDA context, library workspaces and allocator slack"},
    {"memory_available_gib", K::number, "GiB", both, P::always, get<&R::memory_available_gib>, "memory of one GPU"},
    {"accuracy.family_calibrated", K::boolean, "", both, P::always, get<&R::accuracy, &A::family_calibrated>, "whether the GPU's shipped calibration was fitted from rows of its own family (not borrowed from another)"},
    {"accuracy.check_rows", K::integer, "", both, P::always, get<&R::accuracy, &A::check_rows>, "validation check rows (trust high and medium) of the GPU's family and the workload's kind (`cnn`, `bert`, `transformer-xl`, `llm`); 0: outside every validated region"},
    {"accuracy.median_error", K::nullable_number, "fraction", both, P::always, validated<&A::median_error>, "median over those rows of the absolute error of predicted / measured - 1 (models/compute/accuracy.csv); null without check rows"},
    {"accuracy.p90_error", K::nullable_number, "fraction", both, P::always, validated<&A::p90_error>, "90th percentile of the same; null without check rows"},
    {"time_to_train_s", K::number, "s", both, P::fits, get<&R::time_to_train_s>, "start to end of training, staging and interruptions included; with replications, the mean"},
    {"cost_usd", K::number, "USD", both, P::fits, get<&R::cost_usd>, "instances, storage and egress; with replications, the mean"},
    {"cost_per_sample_usd", K::number, "USD", both, P::fits, get<&R::cost_per_sample_usd>, "`cost_usd` over `samples`: with a calendar window (`lifecycle.window_h`), the cost of each sample the window held"},
    {"billed_s", K::number, "s", both, P::fits, get<&R::billed_s>, "billed duration of each instance"},
    {"throughput_samples_per_s", K::number, "samples/s", both, P::fits, get<&R::throughput_samples_per_s>, "training throughput of the whole cluster"},
    {"throughput_tokens_per_s", K::number, "tokens/s", both, P::fits, get<&R::throughput_tokens_per_s>, "the same in tokens; 0 for vision models"},
    {"iteration_s", K::number, "s", both, P::fits, get<&R::iteration_s>, "one optimizer step; the four `breakdown` parts (and `rl.rollout_s` in RL runs) sum to it"},
    {"breakdown.compute_s", K::number, "s", both, P::fits, get<&R::breakdown, &Breakdown::compute_s>, "per step: kernels on the GPU's compute stream"},
    {"breakdown.exposed_comm_s", K::number, "s", both, P::fits, get<&R::breakdown, &Breakdown::exposed_comm_s>, "per step: communication not hidden behind compute (tensor-parallel collectives and pipeline sends, which block compute, count here)"},
    {"breakdown.input_stall_s", K::number, "s", both, P::fits, get<&R::breakdown, &Breakdown::input_stall_s>, "per step: waiting for the input pipeline"},
    {"breakdown.pipeline_bubble_s", K::number, "s", both, P::fits, get<&R::breakdown, &Breakdown::pipeline_bubble_s>, "per step: idle fill and drain of the pipeline"},
    {"rl.ppo_epochs", K::integer, "", json, P::fits_if_set, rl_figure<&RlResult::ppo_epochs>, "RL fine-tuning (`workload.rl`): optimizer steps per rollout; absent otherwise"},
    {"rl.rollout_s", K::number, "s", json, P::fits_if_set, rl_figure<&RlResult::rollout_s>, "per step: its share of the rollout, (generation + scoring) / `rl.ppo_epochs`; with the four `breakdown` parts it sums to `iteration_s`"},
    {"rl.generation_s", K::number, "s", json, P::fits_if_set, rl_figure<&RlResult::generation_s>, "per rollout and GPU: prefill and decode of the responses to the GPU's prompts, in one batch"},
    {"rl.scoring_s", K::number, "s", json, P::fits_if_set, rl_figure<&RlResult::scoring_s>, "per rollout and GPU: forward passes of the policy, the critic, the reference and the reward model over the responses"},
    {"rl.kv_cache_gib", K::number, "GiB", json, P::fits_if_set, rl_figure<&RlResult::kv_cache_gib>, "the generation's K/V cache at full length, counted in `memory.activations_gib` when larger than the training activations"},
    {"tflops_per_gpu", K::number, "TFLOP/s", both, P::fits, get<&R::tflops_per_gpu>, "model FLOPs per second per GPU, without recomputation"},
    {"mfu", K::number, "fraction", both, P::fits, get<&R::mfu>, "`tflops_per_gpu` over the GPU's dense peak at the run's precision; in an fp32 run, the FLOPs that run on TF32 tensor cores count at the TF32 peak"},
    {"hardware_tflops_per_gpu", K::number, "TFLOP/s", both, P::fits, get<&R::hardware_tflops_per_gpu>, "FLOPs executed per second per GPU, recomputed forward included"},
    {"allreduce_busbw_gbps", K::number, "GB/s", both, P::fits, get<&R::allreduce_busbw_gbps>, "bus bandwidth of the largest gradient bucket's collective, as nccl-tests counts it"},
    {"simulated_iterations", K::integer, "", last, P::always, get<&R::simulated_iterations>, "steps simulated event by event; the rest were fast-forwarded"},
    {"events", K::integer, "", last, P::always, get<&R::events>, "events the engine executed"},
    {"fingerprint", K::string, "", last, P::always, fingerprint_hex, "64-bit fold of every executed event, in hexadecimal: equal fingerprints, equal simulations"},
    {"staging_s", K::number, "s", both, P::fits, get<&R::staging_s>, "copying the dataset to local NVMe before training; included in `time_to_train_s` and billed"},
    {"evaluations", K::integer, "", both, P::fits, get<&R::evaluations>, "held-out evaluations during the run (`workload.evaluation`); 0 without one"},
    {"evaluation_s", K::number, "s", both, P::fits, get<&R::evaluation_s>, "the evaluations' forward passes, all of them; included in `time_to_train_s` and billed"},
    {"input.bound_by", K::string, "", both, P::fits, bound_by, "what limits the input: `compute`, `cpu_workers`, `storage`, `ingress` or `h2d`"},
    {"input.stall_fraction", K::number, "fraction", both, P::fits, get<&R::input, &I::stall_fraction>, "the GPU's wait for input over the training time"},
    {"input.input_bound_s", K::number, "s", both, P::fits, get<&R::input, &I::input_bound_s>, "the whole run's GPU wait for input"},
    {"input.workers_to_compute_bound", K::nullable_integer, "", both, P::fits, positive<&R::input, &I::workers_to_compute_bound>, "smallest `workers_per_gpu` that is compute-bound; null when none is"},
    {"input.capacity_samples_per_s.compute", K::nullable_number, "samples/s", json, P::fits, positive<&R::input, &I::compute_samples_per_s>, "per GPU: the GPU itself, without input waits"},
    {"input.capacity_samples_per_s.cpu_workers", K::nullable_number, "samples/s", json, P::fits, positive<&R::input, &I::workers_samples_per_s>, "per GPU: loader workers (their CPU time and serial request latency) and cores"},
    {"input.capacity_samples_per_s.storage", K::nullable_number, "samples/s", json, P::fits, positive<&R::input, &I::storage_samples_per_s>, "per GPU: the source's bandwidth and concurrency; null when not limiting"},
    {"input.capacity_samples_per_s.ingress", K::nullable_number, "samples/s", json, P::fits, positive<&R::input, &I::ingress_samples_per_s>, "per GPU: its share of the node's ingress link; null when not limiting"},
    {"input.capacity_samples_per_s.h2d", K::nullable_number, "samples/s", json, P::fits, positive<&R::input, &I::h2d_samples_per_s>, "per GPU: host-to-device copies; null when not simulated"},
    {"epochs", K::epochs, "", json, P::fits, nullptr, "one object per epoch"},
    {"lifecycle.plan", K::string, "", both, P::fits_only, get<&R::lifecycle, &L::plan>, "the pricing plan"},
    {"lifecycle.provider", K::string, "", json, P::fits_if_set, catalog<&L::provider>, "the price catalog's provider; absent with explicit prices"},
    {"lifecycle.instance", K::string, "", json, P::fits_if_set, catalog<&L::instance>, "the catalog's instance; absent with explicit prices"},
    {"lifecycle.region", K::string, "", json, P::fits_if_set, catalog<&L::region>, "the catalog's region; absent with explicit prices"},
    {"lifecycle.price_source", K::string, "", json, P::fits_if_set, catalog<&L::price_source>, "the catalog's source of the price; absent with explicit prices"},
    {"lifecycle.usd_per_gpu_hour", K::number, "USD/GPU-h", both, P::fits_only, get<&R::lifecycle, &L::usd_per_gpu_hour>, "the resolved price"},
    {"lifecycle.gpus_per_instance", K::integer, "", json, P::fits_only, get<&R::lifecycle, &L::gpus_per_instance>, "GPUs per billed instance"},
    {"lifecycle.instances", K::integer, "", both, P::fits_only, get<&R::lifecycle, &L::instances>, "most instances held at once"},
    {"lifecycle.billed_gpus", K::integer, "", both, P::fits_only, get<&R::lifecycle, &L::billed_gpus>, "GPUs billed (whole instances)"},
    {"lifecycle.instance_hours", K::number, "h", json, P::fits_only, get<&R::lifecycle, &L::instance_hours>, "instance-hours held"},
    {"lifecycle.billed_instance_hours", K::number, "h", json, P::fits_only, get<&R::lifecycle, &L::billed_instance_hours>, "instance-hours billed, after increments and minimums"},
    {"lifecycle.compute_usd", K::number, "USD", both, P::fits_only, get<&R::lifecycle, &L::compute_usd>, "cost of the instances"},
    {"lifecycle.storage_usd", K::number, "USD", both, P::fits_only, get<&R::lifecycle, &L::storage_usd>, "cost of storage"},
    {"lifecycle.egress_usd", K::number, "USD", both, P::fits_only, get<&R::lifecycle, &L::egress_usd>, "cost of egress"},
    {"lifecycle.checkpoint_gb", K::number, "GB", json, P::fits_only, get<&R::lifecycle, &L::checkpoint_gb>, "one checkpoint: weights and optimizer state"},
    {"lifecycle.checkpoint_write_s", K::number, "s", json, P::fits_only, get<&R::lifecycle, &L::checkpoint_write_s>, "writing one checkpoint"},
    {"lifecycle.checkpoint_interval_s", K::number, "s", both, P::fits_only, get<&R::lifecycle, &L::checkpoint_interval_s>, "between checkpoints; 0: no periodic checkpoints"},
    {"lifecycle.restart_s", K::number, "s", json, P::fits_only, get<&R::lifecycle, &L::restart_s>, "one restart, checkpoint load included"},
    {"lifecycle.preemptions", K::number, "", both, P::fits_only, get<&R::lifecycle, &L::preemptions>, "spot preemptions"},
    {"lifecycle.failures", K::number, "", both, P::fits_only, get<&R::lifecycle, &L::failures>, "GPU failures"},
    {"lifecycle.checkpoints", K::number, "", both, P::fits_only, get<&R::lifecycle, &L::checkpoints>, "checkpoints taken"},
    {"lifecycle.resizes", K::number, "", both, P::fits_only, get<&R::lifecycle, &L::resizes>, "elastic resizes"},
    {"lifecycle.restarts", K::number, "", json, P::fits_only, get<&R::lifecycle, &L::restarts>, "restarts after interruptions"},
    {"lifecycle.lost_work_s", K::number, "s", both, P::fits_only, get<&R::lifecycle, &L::lost_work_s>, "training redone after interruptions"},
    {"lifecycle.budget_alert_s", K::nullable_number, "s", json, P::fits_only, nonnegative<&R::lifecycle, &L::budget_alert_s>, "when the first replication's budget alert fired; null: it did not"},
    {"lifecycle.finished_fraction", K::number, "fraction", both, P::fits_only, get<&R::lifecycle, &L::finished_fraction>, "replications that finished within the budget"},
    {"lifecycle.gave_up_fraction", K::number, "fraction", json, P::fits_only, get<&R::lifecycle, &L::gave_up_fraction>, "replications abandoned at 100x their work because interruptions outpace checkpoints"},
    {"lifecycle.deadline_h", K::nullable_number, "h", json, P::fits_only, positive<&R::lifecycle, &L::deadline_h>, "the scenario's deadline; null: none"},
    {"lifecycle.window_h", K::nullable_number, "h", both, P::fits_only, positive<&R::lifecycle, &L::window_h>, "the calendar window simulated (`time_to_train_s` is then the window, `samples` what it held); null: a fixed amount of work"},
    {"lifecycle.deadline_met_fraction", K::number, "fraction", both, P::fits_only, get<&R::lifecycle, &L::deadline_met_fraction>, "replications that met the deadline"},
    {"lifecycle.trained_fraction", K::number, "fraction", both, P::fits_only, get<&R::lifecycle, &L::trained_fraction>, "share of the work done when the run ended (1 when it finished), mean over replications"},
    {"replications.n", K::integer, "", both, P::fits_if_set, replicated<&R::replications>, "replications run (`--replications`)"},
    {"replications.seed", K::integer, "", json, P::fits_if_set, replicated<&R::seed>, "the seed their random streams derive from (`--seed`)"},
    {"replications.time_to_train_s.mean", K::number, "s", json, P::fits_if_set, replicated<&R::time_stats, &Stats::mean>, "mean of `time_to_train_s`"},
    {"replications.time_to_train_s.p5", K::number, "s", both, P::fits_if_set, replicated<&R::time_stats, &Stats::p5>, "5th percentile (nearest rank)", "time_to_train_s_p5"},
    {"replications.time_to_train_s.p50", K::number, "s", both, P::fits_if_set, replicated<&R::time_stats, &Stats::p50>, "median", "time_to_train_s_p50"},
    {"replications.time_to_train_s.p95", K::number, "s", both, P::fits_if_set, replicated<&R::time_stats, &Stats::p95>, "95th percentile", "time_to_train_s_p95"},
    {"replications.cost_usd.mean", K::number, "USD", json, P::fits_if_set, replicated<&R::cost_stats, &Stats::mean>, "mean of `cost_usd`"},
    {"replications.cost_usd.p5", K::number, "USD", both, P::fits_if_set, replicated<&R::cost_stats, &Stats::p5>, "5th percentile (nearest rank)", "cost_usd_p5"},
    {"replications.cost_usd.p50", K::number, "USD", both, P::fits_if_set, replicated<&R::cost_stats, &Stats::p50>, "median", "cost_usd_p50"},
    {"replications.cost_usd.p95", K::number, "USD", both, P::fits_if_set, replicated<&R::cost_stats, &Stats::p95>, "95th percentile", "cost_usd_p95"},
};

constexpr EpochField epoch_table[] = {
    {"epoch", K::integer, "", [](const EpochResult&, std::size_t e) { return value_of(e); }, "the epoch, from 1"},
    {"time_s", K::number, "s", [](const EpochResult& x, std::size_t) { return value_of(x.time_s); }, "from the epoch's first step to the next epoch's"},
    {"input_stall_s", K::number, "s", [](const EpochResult& x, std::size_t) { return value_of(x.input_stall_s); }, "the GPU's wait for input in the epoch"},
    {"stall_fraction", K::number, "fraction", [](const EpochResult& x, std::size_t) { return value_of(x.stall_fraction); }, "`input_stall_s` over `time_s`"},
};

std::string_view kind_name(Kind k) {
    switch (k) {
        case Kind::number: return "number";
        case Kind::integer: return "integer";
        case Kind::boolean: return "boolean";
        case Kind::string: return "string";
        case Kind::nullable_number: return "number or null";
        case Kind::nullable_integer: return "integer or null";
        case Kind::nullable_string: return "string or null";
        case Kind::counts: return "object of integers, or null";
        case Kind::epochs: return "array";
    }
    return "";
}

std::string_view presence_name(Presence p) {
    switch (p) {
        case Presence::always: return "always";
        case Presence::if_set: return "when set";
        case Presence::fits: return "fits, else null";
        case Presence::fits_only: return "fits";
        case Presence::fits_if_set: return "fits, when set";
    }
    return "";
}

std::string markdown_row(std::string_view name, Kind kind, std::string_view unit, std::string_view outputs,
                         Presence presence, std::string_view description) {
    return fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", name, kind_name(kind), unit.empty() ? "-" : unit, outputs,
                       presence_name(presence), description);
}

}  // namespace

std::span<const Field> result_fields() { return fields; }
std::span<const EpochField> epoch_fields() { return epoch_table; }

const Field& field(std::string_view name) {
    for (const Field& f : fields)
        if (f.name == name) return f;
    throw std::out_of_range("no result field '" + std::string(name) + "'");
}

std::string_view csv_column(const Field& f) { return f.csv_name.empty() ? f.name : f.csv_name; }

std::optional<FieldValue> reported_value(const Field& f, const Result& r) {
    if (!r.fits) {
        if (f.presence == Presence::fits) return FieldValue(nullptr);
        if (f.presence == Presence::fits_only || f.presence == Presence::fits_if_set) return std::nullopt;
    }
    FieldValue v = f.get ? f.get(r) : FieldValue(nullptr);
    const bool optional = f.presence == Presence::if_set || f.presence == Presence::fits_if_set;
    if (optional && std::holds_alternative<std::nullptr_t>(v)) return std::nullopt;
    return v;
}

std::string results_fields_markdown() {
    std::string o = "| field | type | unit | output | present | meaning |\n|---|---|---|---|---|---|\n";
    for (const Field& f : fields) {
        std::string out;
        if (carries(f.outputs, Outputs::json)) out = carries(f.outputs, Outputs::json_last) ? "JSON (last)" : "JSON";
        if (carries(f.outputs, Outputs::csv)) {
            out += out.empty() ? "CSV" : ", CSV";
            if (!f.csv_name.empty()) out += fmt::format(" `{}`", f.csv_name);
        }
        o += markdown_row(f.name, f.kind, f.unit, out, f.presence, f.description);
        if (f.kind == Kind::epochs)
            for (const EpochField& e : epoch_table)
                o += markdown_row(fmt::format("{}[].{}", f.name, e.name), e.kind, e.unit, out, f.presence, e.description);
    }
    return o;
}

}  // namespace rentsim::analysis
