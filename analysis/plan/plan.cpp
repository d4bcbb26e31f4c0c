#include "analysis/plan/plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>

#include "analysis/simulate/flow_collectives.hpp"
#include "models/compute/generation.hpp"
#include "models/compute/gpu_model.hpp"
#include "models/data/pipeline.hpp"
#include "models/pricing/billing.hpp"

namespace rentsim::analysis {

namespace {

// PyTorch DistributedDataParallel's gradient buckets: 25 MiB (`bucket_cap_mb`), and a first
// bucket of 1 MiB (`_DEFAULT_FIRST_BUCKET_BYTES`) so that communication starts early.
constexpr double ddp_first_bucket_bytes = 1.0 * 1024 * 1024;

sim::Time ns(units::Seconds s) { return sim::ceil_seconds(s.value); }


// Fills the trainer plan's input pipeline from the scenario's `data` block, for `gpus` GPUs
// of which `dp` replicas read distinct batches.
InputPlan plan_input(const Scenario& s, int gpus, int micro, int dp, TrainingPlan& plan) {
    const DataSpec& d = s.data;
    InputPlan in;
    if (s.workload.dataset_samples > 0)
        plan.epoch_batches = static_cast<std::int64_t>(std::ceil(s.workload.dataset_samples / (dp * micro) - 1e-9));
    if (d.workers_per_gpu <= 0) return in;
    plan.workers = d.workers_per_gpu;
    plan.prefetch_factor = d.prefetch_factor;
    if (!d.sample_kind) {
        plan.batch_build = ns(units::seconds(micro / d.samples_per_s_per_worker));
        in.cpu_s = 1.0 / d.samples_per_s_per_worker;
        return in;
    }

    // Storage-backed pipeline.
    const data::SampleKind& kind = *d.sample_kind;
    const data::Instance* inst = d.instance;
    const int node_gpus = std::min(gpus, s.cluster.gpus_per_node);
    in.sample_bytes = d.sample_bytes > 0 ? d.sample_bytes : kind.stored_bytes.value;
    in.tensor_bytes = d.gpu_decode ? in.sample_bytes : kind.tensor_bytes.value * (in.sample_bytes / kind.stored_bytes.value);
    in.cpu_s = d.samples_per_s_per_worker > 0 ? 1.0 / d.samples_per_s_per_worker : kind.cpu_s_per_sample(d.gpu_decode).value;
    plan.batch_build = ns(units::seconds(micro * in.cpu_s));
    if (d.gpu_decode) {
        const sim::Time decode = ns(units::seconds(micro * kind.gpu_decode_s.value));
        plan.micro_fwd_bwd += decode;
        plan.last_fwd += decode;
    }
    const int vcpus = d.vcpus ? d.vcpus : inst ? inst->vcpus : 0;
    in.cores = vcpus ? std::max(1, vcpus / node_gpus) : 0;
    const double ram_gib = d.host_ram_gib > 0 ? d.host_ram_gib : inst ? inst->ram_gib : 0.0;
    const double ingress_gbps = d.ingress_gbps > 0 ? d.ingress_gbps : inst ? inst->network_gbps : 0.0;

    auto& st = plan.stages;
    st.enabled = true;
    st.cpu_cores = in.cores ? in.cores : plan.workers;
    in.pcie_bps = compute::pcie_bandwidth(*s.cluster.gpu).value;
    st.h2d_bytes = micro * in.tensor_bytes;
    st.h2d_bytes_per_s = in.pcie_bps;
    if (d.source) {
        const auto source_of = [&](const SourceSpec& spec) {
            data::Source src = data::default_source(spec.kind);
            if (spec.kind == data::SourceKind::local_nvme && inst && inst->nvme_drives) src.bandwidth = inst->nvme_bandwidth();
            if (spec.gbps > 0) src.bandwidth = units::gbits_per_s(spec.gbps);
            if (spec.latency_ms >= 0) src.latency = units::seconds(spec.latency_ms * 1e-3);
            if (spec.max_concurrency) src.max_concurrency = spec.max_concurrency;
            return src;
        };
        data::Source src = source_of(*d.source);
        const double dataset = d.dataset_bytes > 0 ? d.dataset_bytes : s.workload.dataset_samples * in.sample_bytes;
        units::BytesPerSecond ingress = units::gbits_per_s(ingress_gbps);
        const bool staged = d.staging == Staging::copy_to_nvme;
        if (staged) {
            in.staging = data::staging_time(units::bytes(dataset), src, ingress, inst->nvme_bandwidth());
            src = source_of(SourceSpec{data::SourceKind::local_nvme, 0, -1, 0, 0});
        }
        // Local drives are inside the node: no ingress link on their path.
        if (src.kind == data::SourceKind::local_nvme) ingress = {};
        const double cache = ram_gib * units::gib(1).value * data::page_cache_fraction();
        const double hit = plan.epoch_batches > 0 ? data::warm_hit_fraction(units::bytes(dataset), units::bytes(cache)) : 0.0;
        in.miss = plan.epoch_batches > 0 && s.workload.epochs > 1 ? 1.0 - hit : 1.0;
        st.cold_bytes = micro * in.sample_bytes;
        st.warm_bytes = st.cold_bytes * (1.0 - hit);
        // A worker issues its requests one after another: one per sample, or one per
        // `request_bytes` when samples are packed into larger objects (shards).
        const double requests_per_sample =
            d.source->request_bytes > 0 && !staged ? in.sample_bytes / d.source->request_bytes : 1.0;
        const double latency_per_sample = src.latency.value * requests_per_sample;
        st.cold_latency = ns(units::seconds(micro * latency_per_sample));
        st.warm_latency = ns(units::seconds(micro * latency_per_sample * (1.0 - hit)));
        in.cold_latency_s = latency_per_sample;
        in.latency_s = latency_per_sample * in.miss;
        in.source_bps = src.bandwidth.value / node_gpus;
        in.ingress_bps = ingress.value / node_gpus;
        in.slots = std::max(1, src.max_concurrency / node_gpus);
        st.source_bytes_per_s = in.source_bps;
        st.ingress_bytes_per_s = in.ingress_bps;
        st.source_slots = in.slots;
    } else {
        st.source_bytes_per_s = 1.0;  // no link is used: batches start in host memory
    }
    return in;
}

}  // namespace

FlowPrices::FlowPrices(const net::Network& network) : network_(network) {}

net::CollectiveEstimate FlowPrices::price(net::Collective op, units::Bytes bytes, int count, int stride) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto [it, fresh] = priced_.try_emplace({op, bytes.value, count, stride});
    if (!fresh) return it->second;
    FlowJob job;
    job.op = op;
    job.bytes = bytes;
    job.ranks.resize(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) job.ranks[static_cast<std::size_t>(i)] = i * stride;
    const FlowJobResult flow = simulate_flow_collectives(network_, std::span<const FlowJob>(&job, 1)).front();
    // The protocol is the analytic model's pick for the same call, as the flow level uses it.
    const net::Algorithm algo = op == net::Collective::all_to_all ? net::Algorithm::direct : net::Algorithm::ring;
    net::CollectiveEstimate e = network_.collective(op, bytes, job.ranks, algo);
    e.time = flow.duration;
    e.channels = flow.channels;
    e.algbw_gbps = flow.duration.value > 0 ? bytes.value / flow.duration.value / 1e9 : 0.0;
    e.busbw_gbps = e.algbw_gbps * net::busbw_factor(op, count);
    it->second = e;
    return e;
}

std::vector<std::size_t> balanced_stages(const std::vector<units::Seconds>& fwd,
                                         const std::vector<units::Seconds>& bwd, int stages) {
    const std::size_t n = fwd.size(), k = static_cast<std::size_t>(stages);
    std::vector<double> t(n);
    double lo = 0, hi = 0;
    for (std::size_t i = 0; i < n; ++i) {
        t[i] = (fwd[i] + bwd[i]).value;
        lo = std::max(lo, t[i]);
        hi += t[i];
    }
    // Greedy fill under `limit`, leaving at least one layer for every later stage.
    const auto fill = [&](double limit, std::vector<std::size_t>* out) {
        std::size_t i = 0;
        for (std::size_t c = 0; c < k; ++c) {
            if (out) out->push_back(i);
            double sum = 0;
            const std::size_t last = n - (k - 1 - c);  // exclusive bound keeping one layer per later stage
            if (i >= last) return false;
            sum += t[i++];
            while (i < last && sum + t[i] <= limit) sum += t[i++];
            if (c + 1 == k && i < n) return false;
        }
        if (out) out->push_back(n);
        return true;
    };
    if (k == 1) return {0, n};
    // Binary search on the largest stage's time with the greedy fill.
    for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (fill(mid, nullptr)) hi = mid;
        else lo = mid;
    }
    std::vector<std::size_t> bounds;
    if (!fill(hi * (1 + 1e-12), &bounds)) {  // rounding: fall back to a limit that always fits
        bounds.clear();
        fill(std::numeric_limits<double>::infinity(), &bounds);
    }
    return bounds;
}

std::vector<std::size_t> even_stages(const std::vector<bool>& block, int stages) {
    const std::size_t n = block.size(), k = static_cast<std::size_t>(std::max(stages, 1));
    std::vector<std::size_t> blocks;
    for (std::size_t i = 0; i < n; ++i)
        if (block[i]) blocks.push_back(i);
    if (blocks.size() < k) return {};
    const std::size_t per = blocks.size() / k, extra = blocks.size() % k;
    std::vector<std::size_t> bounds{0};
    std::size_t b = 0;
    for (std::size_t c = 1; c < k; ++c) {
        b += per + (c <= extra ? 1 : 0);
        bounds.push_back(blocks[b]);  // stage c starts at its first block
    }
    bounds.push_back(n);
    return bounds;
}

double critical_path_s(const TrainingPlan& plan) {
    sim::Time t = (plan.micro_steps - 1) * plan.micro_fwd_bwd + plan.pipeline_bubble + plan.last_fwd;
    sim::Time comm_end = 0;
    for (std::size_t b = 0; b < plan.bucket_bwd.size() && b < plan.bucket_comm.size(); ++b) {
        t += plan.bucket_bwd[b];
        comm_end = std::max(t, comm_end) + plan.bucket_comm[b];
    }
    return sim::to_seconds(std::max(t, comm_end) + plan.optimizer + plan.step_overhead + plan.rollout);
}

net::Network cluster_network(const Scenario& s) { return net::Network(net::build_topology(s.cluster.topology)); }

// PPO (WorkloadSpec::rl) on a data-parallel step already planned for the policy at the
// sequence length prompt + response. Each rollout, every GPU generates the responses of its
// batch_per_gpu prompts in one batch (prefill, then a decode step per token), then scores them
// with one forward pass of each scoring model per micro-batch; `ppo_epochs` optimizer steps
// train on the rollout, so each step carries 1/ppo_epochs of it. The critic, of the policy's
// shape, trains in the same steps: its forward, backward, gradient buckets and update copy the
// policy's (in the simulated step its forward runs beside the policy's, before both backward
// passes, so the policy's reductions may overlap the critic's backward; frameworks that
// train them one after the other overlap less). Memory: the critic's weights, gradients and
// optimizer state, the frozen models' weights, and the larger of the training activations
// and the generation's K/V cache (they are not live together).
void plan_rollout(const WorkloadSpec& w, const compute::GpuModel& gpu, StepPlan& r, compute::MemoryUse& mem) {
    const RlSpec& rl = w.rl;
    TrainingPlan& plan = r.training;
    if (rl.critic) {
        plan.micro_fwd_bwd *= 2;
        plan.last_fwd *= 2;
        plan.micro_comm *= 2;
        plan.optimizer *= 2;
        const auto bwd = plan.bucket_bwd;
        const auto comm = plan.bucket_comm;
        plan.bucket_bwd.insert(plan.bucket_bwd.end(), bwd.begin(), bwd.end());
        plan.bucket_comm.insert(plan.bucket_comm.end(), comm.begin(), comm.end());
        mem.gradients = mem.gradients * 2.0;
        mem.optimizer = mem.optimizer * 2.0;
    }
    const double frozen = double(rl.reference) + double(rl.reward_model);
    mem.weights = mem.weights * (1.0 + double(rl.critic) + frozen);
    const double prompts = static_cast<double>(r.micro_batch) * r.micro_steps;
    const compute::GenerationCost gen =
        compute::generation_cost(w.graph, gpu, w.precision, prompts, rl.prompt_tokens, rl.response_tokens);
    mem.activations = std::max(mem.activations, gen.kv_cache);
    const units::Seconds scoring = r.step.fwd * static_cast<double>(rl.scoring_passes() * r.micro_steps);
    r.rollout_generation_s = gen.total().value;
    r.rollout_scoring_s = scoring.value;
    r.rollout_kv_cache_gib = gen.kv_cache.value / units::gib(1).value;
    plan.rollout = ns((gen.total() + scoring) / static_cast<double>(rl.ppo_epochs));
    r.iterations *= rl.ppo_epochs;
    plan.iterations = r.iterations;
}

net::Network cluster_network(const Scenario& s, int gpus) {
    net::TopologySpec t = s.cluster.topology;
    t.gpus = gpus;
    return net::Network(net::build_topology(t));
}

StepPlan plan_step(const Scenario& s, int gpus, const net::Network& network, const Layout* layout,
                   FlowPrices* flow_prices) {
    const auto& w = s.workload;
    Parallelism par = w.parallelism;
    int micro_given = w.micro_batch;
    if (layout) {
        par.tp = layout->tp;
        par.pp = layout->pp;
        par.cp = layout->cp;
        par.virtual_stages = layout->virtual_stages;
        par.sequence_parallel = layout->sequence_parallel && layout->tp > 1;
        par.recompute = layout->recompute;
        par.zero = layout->zero;
        micro_given = layout->micro_batch;
    }
    const compute::GpuSpec& gpu_spec = *s.cluster.gpu;
    const compute::GpuModel gpu(gpu_spec, s.cluster.calibration);
    const work::Workload& model = w.graph;

    StepPlan r;
    r.gpus = gpus;
    const int dp = gpus / par.model_parallel();
    // Context-parallel ranks hold the same parameters: gradients are reduced, and ZeRO
    // shards, over dp x cp ranks (Megatron-Core's data-parallel-with-context group).
    const int replicas = dp * par.cp;
    r.tp = par.tp;
    r.pp = par.pp;
    r.cp = par.cp;
    r.dp = dp;

    // Batch layout: samples per optimizer step, micro-batch, gradient accumulation.
    int micro = 0, micro_steps = 0;
    if (w.batch_per_gpu) {
        micro = micro_given ? micro_given : w.batch_per_gpu;
        micro_steps = w.batch_per_gpu / micro;
        r.global_batch = w.batch_per_gpu * dp;
    } else {
        // A searched scenario planned without a layout (a caller other than the run layer)
        // has no micro-batch: it gets 1 and at least one micro-step, the loader's rules
        // having been left to the search.
        micro = micro_given ? micro_given : 1;
        micro_steps = std::max(1, w.global_batch / (dp * micro));
        r.global_batch = w.global_batch;
    }
    r.micro_batch = micro;
    r.micro_steps = micro_steps;
    r.iterations = static_cast<std::int64_t>(std::ceil(w.samples / r.global_batch - 1e-9));

    compute::StepConfig cfg;
    // A context-parallel rank computes 1/cp of each sequence: every op, attention included
    // (its queries attend to all keys), scales as a 1/cp share of the micro-batch.
    cfg.micro_batch = static_cast<double>(micro) / par.cp;
    cfg.precision = w.precision;
    cfg.tp = par.tp;
    cfg.sequence_parallel = par.sequence_parallel;
    cfg.dp = replicas;
    cfg.zero = par.zero;
    cfg.fused_elementwise = w.fused_elementwise;
    cfg.gemm_epilogue = w.gemm_epilogue;
    cfg.recompute = par.recompute;
    cfg.recompute_every = par.recompute_every;
    cfg.tf32_matmul = w.tf32_matmul;
    cfg.tf32_conv = w.tf32_conv;
    cfg.conv_layout = w.conv_layout;
    cfg.optimizer_kernel = w.optimizer_kernel;
    cfg.grad_clip = w.grad_clip;
    cfg.loss_kernel = w.loss_kernel;
    cfg.grad_reduce = w.grad_reduce;
    cfg.main_grads = w.main_grads;
    cfg.lora_rank = w.lora_rank;
    r.step = compute::plan_step(model, gpu, cfg);
    const compute::StepCost& step = r.step;

    const net::Algorithm algorithm = s.cluster.collective_algorithm;
    const bool flow = s.cluster.network_model == NetworkModel::flow;
    // Flow-level prices: the caller's (shared by a layout search's candidates), else this step's.
    std::optional<FlowPrices> own_prices;
    if (flow && !flow_prices) own_prices.emplace(network);
    FlowPrices* const flow_pricer = flow_prices ? flow_prices : own_prices ? &*own_prices : nullptr;
    // Megatron's rank order: tensor-parallel ranks adjacent (inside a node when tp <= GPUs per
    // node), then data-parallel, then pipeline stages: a data-parallel group is every tp-th
    // GPU, priced per NVLink domain rather than per rank.
    // Gradient buckets of identical blocks have identical sizes: each (op, size) is priced
    // once per step plan (thousands of buckets for a 175B model; the layout search plans
    // thousands of candidates).
    std::map<std::pair<net::Collective, double>, net::CollectiveEstimate> dp_priced;
    const auto dp_collective = [&](net::Collective op, double bytes) {
        if (replicas <= 1 || bytes <= 0) return net::CollectiveEstimate{};
        const auto [it, fresh] = dp_priced.try_emplace({op, bytes});
        if (fresh && flow)
            it->second = flow_pricer->price(op, units::Bytes{bytes}, replicas, par.tp);
        else if (fresh)
            it->second = par.tp > 1 ? network.collective_strided(op, units::Bytes{bytes}, replicas, par.tp, algorithm)
                                    : network.collective(op, units::Bytes{bytes}, replicas, algorithm);
        return it->second;
    };
    // Ring attention (context parallelism): in forward each rank passes its K and V block
    // round the cp ranks in cp - 1 steps; backward passes K, V and their gradients. Each step
    // overlaps the attention compute of the block in hand, so only the excess is exposed
    // (Liu et al. 2023, Ring Attention; Megatron-Core context parallelism).
    units::Seconds ring_step{};
    if (par.cp > 1 && model.heads > 0) {
        const double head_dim = model.hidden / model.heads;
        const double kv_block = 2.0 * (model.seq_len / par.cp) * model.kv_heads * head_dim * micro *
                                compute::activation_bytes(w.precision) / par.tp;
        const std::array<int, 2> pair{0, par.tp};
        ring_step = flow ? flow_pricer->price(net::Collective::send_recv, units::Bytes{kv_block}, 2, par.tp).time
                         : network.collective(net::Collective::send_recv, units::Bytes{kv_block}, pair, algorithm).time;
    }

    // Per layer, one micro-batch: compute plus the tensor-parallel collectives on the critical path.
    const std::size_t n_layers = step.layers.size();
    std::vector<units::Seconds> fwd(n_layers), bwd(n_layers), tp_comm(n_layers);
    double cached_bytes = -1;
    units::Seconds cached_time{};
    for (std::size_t i = 0; i < n_layers; ++i) {
        const auto& l = step.layers[i];
        fwd[i] = l.fwd;
        bwd[i] = l.bwd;
        if (ring_step.value > 0 && l.attention_fwd.value > 0) {
            const units::Seconds ring = ring_step * static_cast<double>(par.cp - 1);
            const units::Seconds f = ring > l.attention_fwd ? ring - l.attention_fwd : units::Seconds{};
            const units::Seconds b = ring * 2.0 > l.attention_bwd ? ring * 2.0 - l.attention_bwd : units::Seconds{};
            fwd[i] += f;
            bwd[i] += b;
            tp_comm[i] += f + b;
        }
        if (par.tp <= 1 || l.tp_fwd_collectives + l.tp_bwd_collectives == 0) continue;
        if (l.tp_collective_bytes.value != cached_bytes) {
            cached_bytes = l.tp_collective_bytes.value;
            if (flow && cfg.sequence_parallel)
                cached_time = flow_pricer->price(net::Collective::all_gather, l.tp_collective_bytes, par.tp, 1).time +
                              flow_pricer->price(net::Collective::reduce_scatter, l.tp_collective_bytes, par.tp, 1).time;
            else if (flow)
                cached_time = flow_pricer->price(net::Collective::all_reduce, l.tp_collective_bytes, par.tp, 1).time;
            else if (cfg.sequence_parallel)
                cached_time = network.collective(net::Collective::all_gather, l.tp_collective_bytes, par.tp).time +
                              network.collective(net::Collective::reduce_scatter, l.tp_collective_bytes, par.tp).time;
            else
                cached_time = network.collective(net::Collective::all_reduce, l.tp_collective_bytes, par.tp).time;
        }
        units::Seconds f = cached_time * l.tp_fwd_collectives, b = cached_time * l.tp_bwd_collectives;
        if (par.tp_comm_overlap) {
            // Transformer Engine's userbuffer overlap splits each all-gather / reduce-scatter
            // into chunks pipelined with the GEMM that consumes or produces them: what the
            // layer's compute cannot cover stays exposed.
            f = f > l.fwd ? f - l.fwd : units::Seconds{};
            b = b > l.bwd ? b - l.bwd : units::Seconds{};
        }
        fwd[i] += f;
        bwd[i] += b;
        tp_comm[i] += f + b;
    }
    // Bytes per parameter of a ZeRO parameter gather: the training copy's width (2 in mixed
    // precision, 4 in fp32), 1 where fp8 training gathers fp8 casts of the shards.
    const double gather_b = par.fp8_all_gather && w.precision == compute::Precision::fp8 ? 1.0
                            : compute::is_mixed(w.precision)                               ? 2.0
                                                                                           : 4.0;
    // FSDP2 (compute::Framework::gather_copy_out): each layer's gather before its forward and
    // again before its backward is copied out of the gather buffer on the compute stream, one
    // kernel reading and writing the layer's gathered weights, every micro-batch.
    units::Seconds copy_out_total{};
    if (par.zero >= 3 && par.gather_copy_out && replicas > 1) {
        for (std::size_t i = 0; i < n_layers; ++i) {
            const double gathered = step.layers[i].params * gather_b;
            if (gathered <= 0) continue;
            const units::Seconds copy = gpu.stream_time(units::bytes(2.0 * gathered));
            fwd[i] += copy;
            bwd[i] += copy;
            copy_out_total += copy * 2.0;
        }
    }

    // Pipeline stages: contiguous layers, pp x virtual_stages of them.
    const int stages = par.pp * par.virtual_stages;
    std::vector<bool> is_block(n_layers);
    for (std::size_t i = 0; i < n_layers; ++i) is_block[i] = step.layers[i].block;
    // Megatron's even split where the profile (or `stage_split`) asks for it and there are
    // enough layers; stages balanced by time otherwise. Stage c: [bounds[c], bounds[c + 1]).
    std::vector<std::size_t> bounds = par.even_stages ? even_stages(is_block, stages) : std::vector<std::size_t>{};
    if (bounds.empty()) bounds = balanced_stages(fwd, bwd, stages);
    // A GPU holds chunks p, p + pp, ... (interleaved schedule); the critical one is the slowest.
    int slow = 0;
    units::Seconds slot{}, slow_fwd{}, stages_sum{};
    double stage_params_max = 0, stage_trainable_max = 0;
    for (int g = 0; g < par.pp; ++g) {
        units::Seconds f{}, t{};
        double params = 0, trainable = 0;
        for (int c = g; c < stages; c += par.pp)
            for (std::size_t i = bounds[static_cast<std::size_t>(c)]; i < bounds[static_cast<std::size_t>(c) + 1]; ++i) {
                f += fwd[i];
                t += fwd[i] + bwd[i];
                params += step.layers[i].params;
                trainable += step.layers[i].trainable_params;
            }
        stage_params_max = std::max(stage_params_max, params);
        stage_trainable_max = std::max(stage_trainable_max, trainable);
        stages_sum += t;
        if (t > slot) {
            slot = t;
            slow_fwd = f;
            slow = g;
        }
    }
    // Activations and gradients cross each stage boundary once per chunk and micro-batch.
    units::Seconds p2p{};
    if (par.pp > 1) {
        const std::array<int, 2> pair{0, par.tp * replicas};
        const units::Bytes boundary = step.layers.front().boundary_bytes;
        p2p = (flow ? flow_pricer->price(net::Collective::send_recv, boundary, 2, par.tp * replicas).time
                    : network.collective(net::Collective::send_recv, boundary, pair).time) *
              par.virtual_stages;
    }
    units::Seconds micro_comm{}, slow_tp{};
    for (int c = slow; c < stages; c += par.pp)
        for (std::size_t i = bounds[static_cast<std::size_t>(c)]; i < bounds[static_cast<std::size_t>(c) + 1]; ++i)
            slow_tp += tp_comm[i];
    micro_comm = slow_tp + p2p * 2.0;
    if (stages == 1) {
        // One stage: the step's own sums, so that data-parallel runs keep their exact times.
        slot = step.fwd + step.bwd + slow_tp + copy_out_total;
        slow_fwd = step.fwd;
        for (std::size_t i = 0; i < n_layers; ++i) slow_fwd += fwd[i] - step.layers[i].fwd;
    }

    // ZeRO-3 (FSDP) gathers each layer's parameters before its forward, prefetching behind
    // the previous layer's compute: only what forward cannot hide is exposed.
    const double stage_params = par.pp > 1 ? stage_params_max : step.params;
    const double stage_trainable = par.pp > 1 ? stage_trainable_max : step.trainable_params;
    units::Seconds gather_exposed{}, gather_contention{};
    // A gather that overlaps the forward runs one collective per layer (FSDP all-gathers each
    // wrapped unit before its forward, PyTorch FSDP docs; Megatron-Core gathers bucket by
    // bucket as the forward reaches it), in order on one communication stream: layer i's
    // forward waits for its own gather, and each gather for the one before. So every layer's
    // collective pays its own latency, and the first one is never hidden. Returns the delay
    // it adds to the stage's forward and the time its collectives take.
    // One layer's all-gather of p parameters; the layers of a model repeat, so each size is
    // priced once (the last one kept).
    double gather_priced = -1;
    units::Seconds gather_time{};
    const auto layer_gather = [&](double p) {
        if (p != gather_priced) {
            gather_time = dp_collective(net::Collective::all_gather, p * gather_b).time;
            gather_priced = p;
        }
        return gather_time;
    };
    const auto forward_gather = [&](bool trainable_only) {
        units::Seconds comm_done{}, compute_done{}, work{}, wire{};
        for (int c = slow; c < stages; c += par.pp)
            for (std::size_t i = bounds[static_cast<std::size_t>(c)]; i < bounds[static_cast<std::size_t>(c) + 1]; ++i) {
                const units::Seconds g = layer_gather(trainable_only ? step.layers[i].trainable_params : step.layers[i].params);
                comm_done += g;
                wire += g;
                compute_done = std::max(compute_done, comm_done) + fwd[i];
                work += fwd[i];
            }
        return std::pair{compute_done - work, wire};
    };
    // Every ZeRO-3 implementation prefetches (FSDP's BACKWARD_PRE and forward prefetch,
    // DeepSpeed's stage3_prefetch_bucket_size); `overlap_param_gather` is ZeRO-1/2's switch.
    // The hidden part of the gather slows the forward that hides it.
    if (par.zero >= 3 && replicas > 1) {
        const auto [exposed, wire] = forward_gather(false);
        gather_exposed = exposed;
        if (par.overlap_contention) gather_contention = (wire - exposed) * compute::overlap_compute_slowdown;
    }
    micro_comm += gather_exposed;
    // A slot: the stage's compute and TP collectives, the two pipeline transfers, and the
    // parameter gather forward could not hide.
    const units::Seconds slot_time = slot + p2p * 2.0 + gather_exposed + gather_contention;

    const double ddp_bucket_bytes = w.bucket.value;
    const double grad_elem = compute::reduced_gradient_bytes(w.precision, w.grad_reduce);
    TrainingPlan& plan = r.training;
    plan.iterations = r.iterations;
    plan.micro_steps = micro_steps;
    plan.micro_fwd_bwd = ns(slot_time);
    plan.last_fwd = ns(slow_fwd + p2p + gather_exposed + gather_contention);  // the gradient's receive opens the first bucket
    plan.micro_comm = ns(micro_comm);
    // Fill and drain: the forward of the last micro-batch reaches the slowest stage through the
    // stages before it, and its backward returns through them; the stages after it add their
    // forward and backward of that micro-batch. So the step is (m - 1) slowest slots plus one
    // slot of every stage: the bubble is the other stages' slots, (pp - 1) / v slots when the
    // stages are balanced (Narayanan et al. 2021, Sec. 2.2, the same for GPipe and 1F1B). The
    // head's logits and loss make Megatron's last stage the slow one, and the others' shorter
    // slots shorten the fill and drain.
    if (par.pp > 1) {
        const units::Seconds extra = slot_time - slot;  // transfers and gathers, the same on every stage
        const units::Seconds others = stages_sum - slot + extra * static_cast<double>(par.pp - 1);
        plan.pipeline_bubble = ns(others * (1.0 / par.virtual_stages));
    }
    plan.optimizer = ns(step.optimizer * (step.trainable_params > 0 ? stage_trainable / step.trainable_params : 1.0));
    plan.step_overhead = ns(units::seconds(gpu.calibration().step_overhead_s));

    // Gradient buckets in the order backward produces them (last layer first). Every ZeRO
    // stage reduce-scatters gradients instead of all-reducing them: each rank updates only its
    // shard, so it needs only that shard's sum. Megatron-Core's distributed optimizer (ZeRO-1)
    // reduce-scatters its grad buffer and all-gathers the updated parameters ("Distributed
    // Optimizer", Megatron Core developer guide, read 2026-12-07); DeepSpeed's stages 1 and 2
    // do the same ("reduce_scatter": true by default). ZeRO-3 gathers parameters again for
    // backward.
    const net::Collective grad_op = par.zero >= 1 ? net::Collective::reduce_scatter : net::Collective::all_reduce;
    double bucket_bytes = 0, bucket_params = 0;
    units::Seconds bucket_time = p2p;  // the gradient received from the next stage
    double cap = std::min(ddp_first_bucket_bytes, ddp_bucket_bytes);
    double largest_bucket = 0;
    const auto close_bucket = [&] {
        plan.bucket_bwd.push_back(ns(bucket_time));
        units::Seconds comm{};
        if (replicas > 1 && bucket_bytes > 0) {
            const auto est = dp_collective(grad_op, bucket_bytes);
            comm = est.time;
            if (par.zero >= 3 && !par.gather_after_grads)
                comm += dp_collective(net::Collective::all_gather, bucket_params * gather_b).time;
            if (bucket_bytes >= largest_bucket) {
                largest_bucket = bucket_bytes;
                r.allreduce_busbw_gbps = est.busbw_gbps;
            }
        }
        plan.bucket_comm.push_back(ns(comm));
        bucket_bytes = 0;
        bucket_params = 0;
        bucket_time = {};
        cap = ddp_bucket_bytes;
    };
    // FSDP's BACKWARD_POST issues a layer's gather once the layer after it has computed its
    // gradients: the gather overlaps that layer's reduce-scatter, and the layer's own backward
    // waits for it on the compute stream (one collective per FSDP unit, as forward's).
    const bool exposed_backward_gather = par.zero >= 3 && par.gather_after_grads && replicas > 1;
    for (int c = stages - par.pp + slow; c >= 0; c -= par.pp) {
        const auto lo = bounds[static_cast<std::size_t>(c)], hi = bounds[static_cast<std::size_t>(c) + 1];
        for (auto i = hi; i-- > lo;) {
            if (exposed_backward_gather && step.layers[i].params > 0) bucket_time += layer_gather(step.layers[i].params);
            bucket_time += bwd[i];
            bucket_bytes += step.layers[i].trainable_params * grad_elem;
            bucket_params += step.layers[i].params;
            if (bucket_bytes >= cap) close_bucket();
        }
    }
    if (bucket_bytes > 0 || plan.bucket_bwd.empty() || bucket_time.value > 0) close_bucket();
    // ZeRO-1/2: every rank updates its shard, then the updated parameters are all-gathered.
    if (!par.overlap_grad_reduce && plan.bucket_bwd.size() > 1) {
        // Reductions start only once backward has finished (Megatron-LM without
        // --overlap-grad-reduce): one bucket at the end, carrying all their time.
        sim::Time bwd_sum = 0, comm_sum = 0;
        for (const auto t : plan.bucket_bwd) bwd_sum += t;
        for (const auto t : plan.bucket_comm) comm_sum += t;
        plan.bucket_bwd.assign(1, bwd_sum);
        plan.bucket_comm.assign(1, comm_sum);
    }
    // ZeRO-1/2 (Megatron's distributed optimizer): every rank updates its shard, then the
    // updated parameters are all-gathered; with --overlap-param-gather the gather of each
    // bucket runs behind the next step's forward and only the excess is exposed.
    if ((par.zero == 1 || par.zero == 2) && replicas > 1) {
        // Only trained parameters change: LoRA's frozen weights are never gathered again.
        units::Seconds gather = par.overlap_param_gather
                                    ? forward_gather(true).first
                                    : dp_collective(net::Collective::all_gather, stage_trainable * gather_b).time;
        plan.bucket_bwd.push_back(0);
        plan.bucket_comm.push_back(ns(gather));
    }
    // Contention: each bucket's backward runs slower while an earlier bucket's reduction is
    // still on the wire, as the trainer will schedule them (one collective at a time, in
    // order, each after its bucket's backward).
    if (par.overlap_contention && replicas > 1) {
        const double dilation = 1.0 + compute::overlap_compute_slowdown;
        sim::Time now = 0, wire_free = 0;
        for (std::size_t b = 0; b < plan.bucket_bwd.size(); ++b) {
            const sim::Time work = plan.bucket_bwd[b];
            const sim::Time busy = std::max<sim::Time>(0, wire_free - now);  // overlapped time available
            sim::Time took = work;
            if (busy > 0 && work > 0) {
                const double dilated = static_cast<double>(work) * dilation;
                took = dilated <= static_cast<double>(busy)
                           ? static_cast<sim::Time>(std::llround(dilated))
                           : busy + static_cast<sim::Time>(std::llround(static_cast<double>(work) - static_cast<double>(busy) / dilation));
            }
            plan.bucket_bwd[b] = took;
            now += took;
            wire_free = std::max(wire_free, now) + plan.bucket_comm[b];
        }
    }
    r.input = plan_input(s, gpus, micro, dp, plan);

    // Memory of the largest stage. Activations: one micro-batch of the whole model, split
    // among stages, times the micro-batches a stage holds at once (Korthikanti et al. 2022,
    // Sec. 4.2.3): GPipe all m, 1F1B the first stage's pp (of pp stages' worth of layers),
    // interleaved 1F1B 1 + (pp - 1) / (pp v) times more.
    compute::MemoryUse mem = step.memory;
    if (par.pp > 1) {
        const double share = stage_params / step.params;
        mem.weights = mem.weights * share;
        const double trained_share = step.trainable_params > 0 ? stage_trainable / step.trainable_params : share;
        mem.gradients = mem.gradients * trained_share;
        mem.optimizer = mem.optimizer * trained_share;
        const double pp = par.pp, m = micro_steps, v = par.virtual_stages;
        const double in_flight = par.schedule == Schedule::gpipe
                                     ? m / pp
                                     : std::min(m, pp) / pp * (v > 1 ? 1.0 + (pp - 1) / (pp * v) : 1.0);
        mem.activations = mem.activations * in_flight;
    }
    if (w.rl.enabled) plan_rollout(w, gpu, r, mem);
    r.memory = mem;
    r.memory_per_gpu_gib = mem.total().value / units::gib(1).value;
    r.fits = r.memory_per_gpu_gib <= gpu_spec.memory_gib;
    r.layer_fwd = std::move(fwd);
    r.layer_bwd = std::move(bwd);
    return r;
}

JobPlan plan_job(const Scenario& s, const net::Network& network, const Layout* layout) {
    JobPlan job;
    job.step = plan_step(s, s.cluster.gpus, network, layout);
    for (const auto& st : s.elastic.schedule)
        job.elastic.push_back(plan_step(s, st.gpus, cluster_network(s, st.gpus), layout));

    const auto& pr = s.pricing;
    const auto& lc = s.lifecycle;
    LifecyclePlan& plan = job.lifecycle;
    plan.bill = price::OnDemand{units::usd_per_hour(pr.usd_per_gpu_hour), pr.billing_increment, pr.minimum_billed,
                                pr.gpus_per_instance};
    plan.billing = pr.kind == PlanKind::owned       ? Billing::owned
                   : pr.kind == PlanKind::committed ? Billing::committed
                                                    : Billing::on_demand;
    if (pr.ownership) {
        const auto& o = *pr.ownership;
        plan.owned = price::Ownership{o.purchase_usd, o.depreciation_years, o.power_kw, o.pue, o.usd_per_kwh,
                                      o.operations_usd_per_year};
    }
    // Elastic schedule: each phase's speed is set once its step has been simulated.
    if (s.elastic.schedule.empty()) {
        plan.phases.push_back({0, s.cluster.gpus, 1.0});
    } else {
        for (const auto& st : s.elastic.schedule)
            plan.phases.push_back({sim::ceil_seconds(st.from_h * 3600.0), st.gpus, 1.0});
        plan.repeat = sim::ceil_seconds(s.elastic.repeat_h * 3600.0);
    }
    plan.provisioning = sim::ceil_seconds(lc.provisioning.value);
    // Dataset staging (data.staging) and any staging the lifecycle names are billed alike.
    plan.staging = sim::ceil_seconds(lc.staging.value + job.step.input.staging.value);

    // Checkpoint: one copy of the weights and the optimizer state, undoing ZeRO sharding.
    const int zero = layout ? layout->zero : s.workload.parallelism.zero;
    const double replicas = static_cast<double>(job.step.dp) * job.step.cp;
    const double weight_shard = zero >= 3 ? replicas : 1.0;
    const double state_shard = zero >= 1 ? replicas : 1.0;
    const auto& mem = job.step.step.memory;
    job.checkpoint_bytes = lc.checkpoint_gb > 0 ? lc.checkpoint_gb * 1e9
                                                : (mem.weights.value * weight_shard + mem.optimizer.value * state_shard) *
                                                      (s.workload.rl.enabled && s.workload.rl.critic ? 2.0 : 1.0);
    const bool checkpoints = lc.checkpoint_write_gb_per_s > 0;
    double load_s = 0;
    if (checkpoints) {
        job.checkpoint_write_s = job.checkpoint_bytes / (lc.checkpoint_write_gb_per_s * 1e9);
        const double read = lc.checkpoint_read_gb_per_s > 0 ? lc.checkpoint_read_gb_per_s : lc.checkpoint_write_gb_per_s;
        load_s = job.checkpoint_bytes / (read * 1e9);
    }
    job.restart_s = lc.boot.value + lc.container.value + lc.nccl_init.value + load_s;
    plan.restart = sim::ceil_seconds(job.restart_s);
    plan.resize_extra = sim::ceil_seconds(lc.resize.value);
    plan.checkpoint_write = sim::ceil_seconds(job.checkpoint_write_s);

    const bool spot = pr.kind == PlanKind::spot && lc.spot;
    const int instances = plan.bill.instances(s.cluster.gpus);
    double interruption_rate = 0;  // per second, of the whole cluster
    if (spot) {
        plan.notice = sim::ceil_seconds(std::max(0.0, lc.notice.value));
        plan.checkpoint_on_notice = lc.checkpoint_on_notice;
        plan.capacity_wait_mean_s = lc.capacity_wait.value;
        if (lc.spot_trace) {
            const price::SpotTrace& trace = *lc.spot_trace;
            plan.trace = &trace;
            // Mean node lifetime in the trace: node-seconds alive per removal.
            double node_s = 0;
            for (std::size_t i = 1; i < trace.events.size(); ++i)
                node_s += (trace.events[i].time - trace.events[i - 1].time).value * trace.events[i].alive_before;
            if (trace.removals() > 0) interruption_rate += instances * trace.removals() / node_s;
        } else {
            plan.preempt_mean_s = lc.preempt_mean_h * 3600.0;
            interruption_rate += instances / plan.preempt_mean_s;
        }
    }
    if (lc.gpu_mtbf_h > 0) {
        plan.gpu_mtbf_s = lc.gpu_mtbf_h * 3600.0;
        interruption_rate += s.cluster.gpus / plan.gpu_mtbf_s;
    }
    if (checkpoints) {
        double interval = lc.checkpoint_interval.value;
        if (lc.checkpoint_optimal && interruption_rate > 0)
            interval = young_daly_interval_s(std::max(job.checkpoint_write_s, 1e-9), 1.0 / interruption_rate);
        job.checkpoint_interval_s = interval;
        plan.checkpoint_interval = sim::ceil_seconds(interval);
    }
    plan.budget_usd = lc.budget_usd;
    plan.alert_fraction = lc.budget_alert_fraction;
    plan.deadline = sim::ceil_seconds(lc.deadline_h * 3600.0);
    plan.window = sim::ceil_seconds(lc.window_h * 3600.0);
    job.stored_bytes = pr.dataset_gb * 1e9 + (checkpoints ? job.checkpoint_bytes * lc.checkpoints_kept : 0.0);
    return job;
}

}  // namespace rentsim::analysis
