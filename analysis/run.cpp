#include "analysis/run.hpp"

#include <cmath>

#include "analysis/calibration_io.hpp"
#include "analysis/input_error.hpp"
#include "analysis/trainer.hpp"
#include "models/compute/step.hpp"
#include "models/network/network.hpp"
#include "models/pricing/billing.hpp"
#include "models/workloads/zoo.hpp"

namespace rentsim::analysis {

namespace {

// PyTorch DistributedDataParallel's gradient buckets: 25 MiB (`bucket_cap_mb`), and a first
// bucket of 1 MiB (`_DEFAULT_FIRST_BUCKET_BYTES`) so that communication starts early.
constexpr double ddp_first_bucket_bytes = 1.0 * 1024 * 1024;

work::Workload build_workload(const WorkloadSpec& w) {
    if (w.model == "resnet50") return work::resnet50();
    if (w.model == "bert-base" || w.model == "bert-large") {
        const std::string_view size = w.model == "bert-base" ? "base" : "large";
        return w.task == "squad" ? work::bert_squad(size, w.seq_len) : work::bert(size, w.seq_len);
    }
    if (w.model == "gpt") {
        work::GptShape s{w.layers, w.hidden, w.heads, w.seq_len, w.vocab, w.ffn_hidden, w.kv_heads, false};
        return work::gpt(s, "gpt");
    }
    const work::Preset* p = work::find_gpt_preset(w.model);
    work::GptShape s = p->shape;
    if (w.seq_len) s.seq_len = w.seq_len;
    return work::gpt(s, std::string(p->name));
}

}  // namespace

net::TopologySpec topology_spec(const ClusterSpec& c) {
    net::TopologySpec t;
    t.preset = c.topology;
    t.gpus = c.gpus;
    t.gpus_per_node = c.gpus_per_node;
    t.gpu = c.gpu;
    t.intra_node = c.intra_node;
    t.oversubscription = c.oversubscription;
    t.nodes_per_leaf = c.nodes_per_leaf;
    if (c.inter_node) {
        const auto& n = *c.inter_node;
        net::Fabric f = net::Fabric::infiniband;
        if (n.fabric == "roce") f = net::Fabric::roce;
        else if (n.fabric == "efa") f = net::Fabric::efa;
        else if (n.fabric == "tcp") f = net::Fabric::tcp;
        t.inter_node = net::FabricSpec{f, n.gbps_per_gpu, n.latency_us};
    }
    return t;
}

namespace {

sim::Time ns(units::Seconds s) { return sim::ceil_seconds(s.value); }

}  // namespace

compute::Calibration calibration_for(const Scenario& s) {
    if (!s.cluster.calibration.empty()) {
        auto c = load_calibration(s.cluster.calibration);
        if (c.gpu != s.cluster.gpu)
            throw InputError(s.file, "/cluster/calibration",
                             "calibration file '" + s.cluster.calibration + "' is for GPU '" + c.gpu + "', not '" +
                                 s.cluster.gpu + "'");
        return c;
    }
    try {
        return shipped_calibration(s.cluster.gpu);
    } catch (const InputError& e) {
        throw InputError(s.file, "/cluster/gpu", e.message());
    }
}

Result run_scenario(const Scenario& s) {
    const auto& w = s.workload;
    const auto& par = w.parallelism;
    if (par.tp > 1 || par.pp > 1)
        throw InputError(s.file, par.tp > 1 ? "/workload/parallelism/tp" : "/workload/parallelism/pp",
                         "tensor and pipeline parallelism are not simulated by this version; use tp = pp = 1");

    const compute::GpuSpec& gpu_spec = compute::find_gpu(s.cluster.gpu);
    const compute::GpuModel gpu(gpu_spec, calibration_for(s));
    const work::Workload model = build_workload(w);

    Result r;
    r.name = s.name;
    r.point = s.point;
    r.model = w.model;
    r.gpu = s.cluster.gpu;
    r.precision = std::string(compute::to_string(w.precision));
    r.gpus = s.cluster.gpus;
    const int dp = s.cluster.gpus / (par.tp * par.pp);

    // Batch layout: samples per optimizer step, micro-batch, gradient accumulation.
    int micro = 0, micro_steps = 0;
    if (w.batch_per_gpu) {
        micro = w.micro_batch ? w.micro_batch : w.batch_per_gpu;
        micro_steps = w.batch_per_gpu / micro;
        r.global_batch = w.batch_per_gpu * dp;
    } else {
        if (w.global_batch % (dp * w.micro_batch) != 0)
            throw InputError(s.file, "/workload/global_batch",
                             "expected a multiple of dp x micro_batch (" + std::to_string(dp * w.micro_batch) +
                                 "), got " + std::to_string(w.global_batch));
        micro = w.micro_batch;
        micro_steps = w.global_batch / (dp * micro);
        r.global_batch = w.global_batch;
    }
    r.micro_batch = micro;
    r.micro_steps = micro_steps;
    r.samples = w.samples;
    r.iterations = static_cast<std::int64_t>(std::ceil(w.samples / r.global_batch - 1e-9));

    compute::StepConfig cfg;
    cfg.micro_batch = micro;
    cfg.precision = w.precision;
    cfg.tp = par.tp;
    cfg.dp = dp;
    cfg.zero = par.zero;
    cfg.recompute = par.recompute == "full"        ? compute::Recompute::full
                    : par.recompute == "selective" ? compute::Recompute::selective
                                                   : compute::Recompute::none;
    const compute::StepCost step = compute::plan_step(model, gpu, cfg);

    // Gradient buckets in the order backward produces them (last layer first).
    const net::Network network = [&] {
        try {
            return net::Network(net::build_topology(topology_spec(s.cluster)));
        } catch (const std::invalid_argument& e) {
            throw InputError(s.file, "/cluster", e.what());
        }
    }();
    const net::Algorithm algorithm = s.cluster.collective_algorithm == "auto"
                                         ? net::Algorithm::automatic
                                         : *net::parse_algorithm(s.cluster.collective_algorithm);
    const double ddp_bucket_bytes = w.bucket_mb * 1024 * 1024;
    const double grad_elem = compute::is_mixed(w.precision) ? 2.0 : 4.0;
    TrainingPlan plan;
    plan.iterations = r.iterations;
    plan.micro_steps = micro_steps;
    plan.micro_fwd_bwd = ns(step.fwd + step.bwd);
    plan.last_fwd = ns(step.fwd);
    plan.optimizer = ns(step.optimizer);
    plan.step_overhead = ns(units::seconds(gpu.calibration().step_overhead_s));
    double bucket_bytes = 0;
    units::Seconds bucket_time{};
    double cap = std::min(ddp_first_bucket_bytes, ddp_bucket_bytes);
    double largest_bucket = 0;
    const auto close_bucket = [&] {
        plan.bucket_bwd.push_back(ns(bucket_time));
        units::Seconds comm{};
        if (dp > 1 && bucket_bytes > 0) {
            const auto est = network.collective(net::Collective::all_reduce, units::Bytes{bucket_bytes}, dp, algorithm);
            comm = est.time;
            if (bucket_bytes >= largest_bucket) {
                largest_bucket = bucket_bytes;
                r.allreduce_busbw_gbps = est.busbw_gbps;
            }
        }
        plan.bucket_comm.push_back(ns(comm));
        bucket_bytes = 0;
        bucket_time = {};
        cap = ddp_bucket_bytes;
    };
    for (auto it = step.layers.rbegin(); it != step.layers.rend(); ++it) {
        bucket_time += it->bwd;
        bucket_bytes += it->params * grad_elem;
        if (bucket_bytes >= cap) close_bucket();
    }
    if (bucket_bytes > 0 || plan.bucket_bwd.empty() || bucket_time.value > 0) close_bucket();

    if (s.data.workers_per_gpu > 0) {
        plan.workers = s.data.workers_per_gpu;
        plan.prefetch_factor = s.data.prefetch_factor;
        plan.batch_build = ns(units::seconds(micro / s.data.samples_per_s_per_worker));
    }

    const Timeline tl = simulate_training(plan, s.seed);
    r.time_to_train_s = sim::to_seconds(tl.total);
    r.iteration_s = static_cast<double>(tl.period_time) / static_cast<double>(tl.period ? tl.period : 1) * 1e-9;
    r.breakdown.compute_s = sim::to_seconds(tl.compute);
    r.breakdown.input_stall_s = sim::to_seconds(tl.input_stall);
    r.breakdown.exposed_comm_s = std::max(0.0, r.iteration_s - r.breakdown.compute_s - r.breakdown.input_stall_s);
    r.throughput_samples_per_s = r.global_batch / r.iteration_s;
    if (model.domain == work::Domain::language) r.throughput_tokens_per_s = r.throughput_samples_per_s * model.seq_len;
    r.tflops_per_gpu = step.model_flops_per_sample.value * r.throughput_samples_per_s / r.gpus / 1e12;
    r.mfu = r.tflops_per_gpu / gpu_spec.peak_tflops[static_cast<std::size_t>(w.precision)];
    r.memory_per_gpu_gib = step.memory.total().value / units::gib(1).value;
    r.memory_available_gib = gpu_spec.memory_gib;
    r.fits = r.memory_per_gpu_gib <= r.memory_available_gib;
    r.simulated_iterations = tl.simulated_iterations;
    r.events = tl.events;
    r.fingerprint = tl.fingerprint;

    const price::OnDemand bill{units::usd_per_hour(s.pricing.usd_per_gpu_hour),
                               units::seconds(s.pricing.billing_increment_s),
                               units::seconds(s.pricing.minimum_billed_s)};
    r.billed_s = bill.billed(units::seconds(r.time_to_train_s)).value;
    r.cost_usd = bill.cost(units::seconds(r.time_to_train_s), r.gpus).value;
    return r;
}

}  // namespace rentsim::analysis
