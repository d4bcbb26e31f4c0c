#include "analysis/run.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/calibration_io.hpp"
#include "analysis/input_error.hpp"
#include "analysis/lifecycle.hpp"
#include "analysis/trainer.hpp"
#include "models/compute/step.hpp"
#include "models/network/network.hpp"
#include "models/pricing/billing.hpp"
#include "models/workloads/zoo.hpp"
#include "sim/random.hpp"

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
int w_zero(const Scenario& s) { return s.workload.parallelism.zero; }

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

namespace {

// The steady step timeline of `s` at its cluster size, then its lifecycle; the lifecycle of an
// elastic scenario calls back in here for the step rate at each GPU count.
Result run_steady(const Scenario& s);

Stats stats_of(std::vector<double> v) {
    Stats st;
    if (v.empty()) return st;
    double sum = 0;
    for (double x : v) sum += x;
    st.mean = sum / static_cast<double>(v.size());
    std::sort(v.begin(), v.end());
    // Nearest rank: the smallest value with at least p% of the values at or below it.
    const auto rank = [&](double p) {
        const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
        return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
    };
    st.p5 = rank(5);
    st.p50 = rank(50);
    st.p95 = rank(95);
    return st;
}

// Simulates the run around the steady steps (see analysis/lifecycle.hpp) and prices it.
void run_lifecycle(const Scenario& s, const compute::StepCost& step, int dp, sim::Time steady_total, Result& r) {
    const auto& pr = s.pricing;
    const auto& lc = s.lifecycle;
    LifecycleResult& out = r.lifecycle;
    out.plan = pr.plan;
    out.provider = pr.provider;
    out.instance = pr.instance;
    out.region = pr.region;
    out.price_source = pr.source;
    out.usd_per_gpu_hour = pr.usd_per_gpu_hour;
    out.gpus_per_instance = pr.gpus_per_instance;

    LifecyclePlan plan;
    plan.work = steady_total;
    plan.bill = price::OnDemand{units::usd_per_hour(pr.usd_per_gpu_hour), units::seconds(pr.billing_increment_s),
                                units::seconds(pr.minimum_billed_s), pr.gpus_per_instance};
    plan.billing = pr.is_owned() ? Billing::owned : pr.is_committed() ? Billing::committed : Billing::on_demand;
    if (pr.ownership) {
        const auto& o = *pr.ownership;
        plan.owned = price::Ownership{o.purchase_usd, o.depreciation_years, o.power_kw, o.pue, o.usd_per_kwh,
                                      o.operations_usd_per_year};
    }
    // Elastic schedule: the step rate at each GPU count comes from the trainer at that count.
    if (s.elastic.schedule.empty()) {
        plan.phases.push_back({0, s.cluster.gpus, 1.0});
    } else {
        for (std::size_t i = 0; i < s.elastic.schedule.size(); ++i) {
            const auto& st = s.elastic.schedule[i];
            Scenario at = s;
            at.elastic = {};
            at.lifecycle = {};
            at.replications = 0;
            at.cluster.gpus = st.gpus;
            const std::string where = "/elastic/schedule/" + std::to_string(i) + "/gpus";
            Result ri;
            try {
                if (st.gpus > at.cluster.gpus_per_node && !at.cluster.inter_node && at.cluster.topology.empty())
                    throw InputError(s.file, where, "a step of " + std::to_string(st.gpus) + " GPUs spans several nodes: give cluster 'inter_node'");
                if (st.gpus > at.cluster.gpus_per_node && st.gpus % at.cluster.gpus_per_node != 0)
                    throw InputError(s.file, where, "expected a multiple of gpus_per_node (" +
                                     std::to_string(at.cluster.gpus_per_node) + "), got " + std::to_string(st.gpus));
                ri = run_steady(at);
            } catch (const InputError& e) {
                throw InputError(s.file, where, e.message());
            }
            if (!ri.fits)
                throw InputError(s.file, where, "the model does not fit in GPU memory at " + std::to_string(st.gpus) + " GPUs");
            plan.phases.push_back({sim::ceil_seconds(st.from_h * 3600.0), st.gpus,
                                   ri.throughput_samples_per_s / r.throughput_samples_per_s});
        }
        plan.repeat = sim::ceil_seconds(s.elastic.repeat_h * 3600.0);
    }
    plan.provisioning = sim::ceil_seconds(lc.provisioning_s);
    plan.staging = sim::ceil_seconds(lc.staging_s);

    // Checkpoint: one copy of the weights and the optimizer state, undoing ZeRO sharding.
    const double weight_shard = w_zero(s) >= 3 ? dp : 1.0;
    const double state_shard = w_zero(s) >= 1 ? dp : 1.0;
    const double ckpt_bytes = lc.checkpoint_gb > 0 ? lc.checkpoint_gb * 1e9
                                                   : step.memory.weights.value * weight_shard + step.memory.optimizer.value * state_shard;
    out.checkpoint_gb = ckpt_bytes / 1e9;
    const bool checkpoints = lc.checkpoint_write_gb_per_s > 0;
    double load_s = 0;
    if (checkpoints) {
        out.checkpoint_write_s = ckpt_bytes / (lc.checkpoint_write_gb_per_s * 1e9);
        const double read = lc.checkpoint_read_gb_per_s > 0 ? lc.checkpoint_read_gb_per_s : lc.checkpoint_write_gb_per_s;
        load_s = ckpt_bytes / (read * 1e9);
    }
    out.restart_s = lc.boot_s + lc.container_s + lc.nccl_init_s + load_s;
    plan.restart = sim::ceil_seconds(out.restart_s);
    plan.resize_extra = sim::ceil_seconds(lc.resize_s);
    plan.checkpoint_write = sim::ceil_seconds(out.checkpoint_write_s);

    std::optional<price::SpotTrace> trace;
    const bool spot = pr.is_spot() && lc.spot;
    const int instances = plan.bill.instances(s.cluster.gpus);
    double interruption_rate = 0;  // per second, of the whole cluster
    if (spot) {
        plan.notice = sim::ceil_seconds(std::max(0.0, lc.notice_s));
        plan.checkpoint_on_notice = lc.checkpoint_on_notice;
        plan.capacity_wait_mean_s = lc.capacity_wait_s;
        if (!lc.spot_trace.empty()) {
            trace = price::shipped_trace(lc.spot_trace);
            plan.trace = &*trace;
            // Mean node lifetime in the trace: node-seconds alive per removal.
            double node_s = 0;
            for (std::size_t i = 1; i < trace->events.size(); ++i)
                node_s += (trace->events[i].time - trace->events[i - 1].time).value * trace->events[i].alive_before;
            if (trace->removals() > 0) interruption_rate += instances * trace->removals() / node_s;
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
        double interval = lc.checkpoint_interval_s;
        if (lc.checkpoint_optimal && interruption_rate > 0)
            interval = young_daly_interval_s(std::max(out.checkpoint_write_s, 1e-9), 1.0 / interruption_rate);
        out.checkpoint_interval_s = interval;
        plan.checkpoint_interval = sim::ceil_seconds(interval);
    }
    plan.budget_usd = lc.budget_usd;
    plan.alert_fraction = lc.budget_alert_fraction;
    plan.deadline = sim::ceil_seconds(lc.deadline_h * 3600.0);

    const int reps = std::max(1, s.replications);
    std::vector<double> times, costs;
    double finished = 0, met = 0;
    const price::Storage storage{pr.storage_usd_per_gb_month};
    const price::Egress egress{pr.egress_usd_per_gb};
    const double stored_bytes = pr.dataset_gb * 1e9 + (checkpoints ? ckpt_bytes * lc.checkpoints_kept : 0.0);
    for (int i = 0; i < reps; ++i) {
        const std::uint64_t seed = s.replications > 0 ? sim::derive_seed(s.seed, static_cast<std::uint64_t>(i)) : s.seed;
        const LifecycleOutcome o = simulate_lifecycle(plan, seed);
        const double t = sim::to_seconds(o.time);
        const double storage_usd = storage.cost(units::bytes(stored_bytes), units::seconds(t)).value;
        const double egress_usd = egress.cost(units::bytes(pr.egress_gb * 1e9)).value;
        times.push_back(t);
        costs.push_back(o.compute_usd + storage_usd + egress_usd);
        const double k = 1.0 / reps;
        out.instances = std::max(out.instances, o.max_instances);
        out.instance_hours += o.instance_s / 3600.0 * k;
        out.billed_instance_hours += o.billed_instance_s / 3600.0 * k;
        out.compute_usd += o.compute_usd * k;
        out.storage_usd += storage_usd * k;
        out.egress_usd += egress_usd * k;
        out.preemptions += o.preemptions * k;
        out.failures += o.failures * k;
        out.checkpoints += o.checkpoints * k;
        out.resizes += o.resizes * k;
        out.restarts += o.restarts * k;
        out.lost_work_s += o.lost_work_s * k;
        if (i == 0) out.budget_alert_s = o.budget_alert < 0 ? -1.0 : sim::to_seconds(o.budget_alert);
        finished += o.finished ? k : 0;
        out.gave_up_fraction += o.gave_up ? k : 0;
        met += o.deadline_met ? k : 0;
        if (i == 0 && reps == 1) {
            r.billed_s = o.billed_instance_s / std::max(1, o.max_instances);
        }
    }
    out.billed_gpus = out.instances * pr.gpus_per_instance;
    out.finished_fraction = finished;
    out.deadline_met_fraction = met;
    out.deadline_h = lc.deadline_h;
    r.replications = s.replications;
    r.seed = s.seed;
    r.time_stats = stats_of(times);
    r.cost_stats = stats_of(costs);
    r.time_to_train_s = reps == 1 ? times[0] : r.time_stats.mean;
    r.cost_usd = reps == 1 ? costs[0] : r.cost_stats.mean;
    if (reps > 1) r.billed_s = out.billed_instance_hours * 3600.0 / std::max(1, out.instances);
}

}  // namespace

Result run_scenario(const Scenario& s) { return run_steady(s); }

namespace {

Result run_steady(const Scenario& s) {
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

    if (r.fits) run_lifecycle(s, step, dp, tl.total, r);
    return r;
}

}  // namespace

}  // namespace rentsim::analysis
