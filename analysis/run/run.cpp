#include "analysis/run/run.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/simulate/lifecycle.hpp"
#include "analysis/simulate/trainer.hpp"
#include "models/compute/step.hpp"
#include "models/data/pipeline.hpp"
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

// Cuts layers (in order) into `stages` contiguous non-empty stages minimising the largest
// stage's forward + backward time: binary search on that time with a greedy fill. Returns
// stages + 1 boundaries.
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
        // The loader accepted only names net::parse_fabric knows.
        t.inter_node = net::FabricSpec{*net::parse_fabric(n.fabric), n.gbps_per_gpu, n.latency_us};
    }
    return t;
}

namespace {

sim::Time ns(units::Seconds s) { return sim::ceil_seconds(s.value); }

// A regime whose GPU waits less than this share of the time is called compute-bound: the
// first batch of a run alone costs about 1% of a short epoch.
constexpr double input_bound_threshold = 0.02;
// The most workers per GPU the bisection tries when the node's cores are not given.
constexpr int max_workers_searched = 256;

// What the input pipeline looks like to the analytic diagnosis, per sample and per GPU.
struct InputPlan {
    units::Seconds staging{};
    double cpu_s = 0;            // CPU time per sample in a worker
    double latency_s = 0;        // serial request latency per sample, steady regime
    double miss = 1;             // share of bytes read from the source, steady regime
    double cold_latency_s = 0;   // serial request latency per sample, first epoch
    double sample_bytes = 0, tensor_bytes = 0;
    double source_bps = 0, ingress_bps = 0, pcie_bps = 0;  // this GPU's shares, bytes/s (0: none)
    int slots = 0, cores = 0;    // this GPU's shares (0: unlimited)
};

// Fills the plan's input pipeline from the scenario's `data` block.
InputPlan plan_input(const Scenario& s, const compute::GpuSpec& gpu, int micro, int dp, TrainingPlan& plan) {
    const DataSpec& d = s.data;
    InputPlan in;
    if (s.workload.dataset_samples > 0)
        plan.epoch_batches = static_cast<std::int64_t>(std::ceil(s.workload.dataset_samples / (dp * micro) - 1e-9));
    if (d.workers_per_gpu <= 0) return in;
    plan.workers = d.workers_per_gpu;
    plan.prefetch_factor = d.prefetch_factor;
    if (d.sample_kind.empty()) {
        plan.batch_build = ns(units::seconds(micro / d.samples_per_s_per_worker));
        in.cpu_s = 1.0 / d.samples_per_s_per_worker;
        return in;
    }

    // Storage-backed pipeline.
    const data::SampleKind& kind = *data::find_sample_kind(d.sample_kind);
    const data::Instance* inst = d.instance.empty() ? nullptr : data::find_instance(d.instance);
    const int node_gpus = std::min(s.cluster.gpus, s.cluster.gpus_per_node);
    in.sample_bytes = d.sample_bytes ? d.sample_bytes : kind.stored_bytes.value;
    in.tensor_bytes = d.gpu_decode ? in.sample_bytes : kind.tensor_bytes.value * (in.sample_bytes / kind.stored_bytes.value);
    in.cpu_s = d.samples_per_s_per_worker ? 1.0 / d.samples_per_s_per_worker : kind.cpu_s_per_sample(d.gpu_decode).value;
    plan.batch_build = ns(units::seconds(micro * in.cpu_s));
    if (d.gpu_decode) {
        const sim::Time decode = ns(units::seconds(micro * kind.gpu_decode_s.value));
        plan.micro_fwd_bwd += decode;
        plan.last_fwd += decode;
    }
    const int vcpus = d.vcpus ? d.vcpus : inst ? inst->vcpus : 0;
    in.cores = vcpus ? std::max(1, vcpus / node_gpus) : 0;
    const double ram_gib = d.host_ram_gib ? d.host_ram_gib : inst ? inst->ram_gib : 0.0;
    const double ingress_gbps = d.ingress_gbps ? d.ingress_gbps : inst ? inst->network_gbps : 0.0;

    auto& st = plan.stages;
    st.enabled = true;
    st.cpu_cores = in.cores ? in.cores : plan.workers;
    in.pcie_bps = compute::pcie_bandwidth(gpu).value;
    st.h2d_bytes = micro * in.tensor_bytes;
    st.h2d_bytes_per_s = in.pcie_bps;
    if (d.source) {
        const auto source_of = [&](const SourceSpec& spec) {
            const auto k = *data::parse_source_kind(spec.kind);
            data::Source src = data::default_source(k);
            if (k == data::SourceKind::local_nvme && inst && inst->nvme_drives) src.bandwidth = inst->nvme_bandwidth();
            if (spec.gbps) src.bandwidth = units::gbits_per_s(spec.gbps);
            if (spec.latency_ms >= 0) src.latency = units::seconds(spec.latency_ms * 1e-3);
            if (spec.max_concurrency) src.max_concurrency = spec.max_concurrency;
            return src;
        };
        data::Source src = source_of(*d.source);
        const double dataset = d.dataset_bytes ? d.dataset_bytes : s.workload.dataset_samples * in.sample_bytes;
        units::BytesPerSecond ingress = units::gbits_per_s(ingress_gbps);
        if (d.staging == "copy-to-nvme") {
            in.staging = data::staging_time(units::bytes(dataset), src, ingress, inst->nvme_bandwidth());
            src = source_of(SourceSpec{"local-nvme", 0, -1, 0, 0});
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
        const bool staged = d.staging == "copy-to-nvme";
        const double requests_per_sample =
            d.source->request_bytes && !staged ? in.sample_bytes / d.source->request_bytes : 1.0;
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

// Share of the time the GPU waits for input in the first epoch (cold) or in the steady state.
double regime_stall(const Timeline& t, bool cold) {
    if (cold && !t.epochs.empty())
        return t.epochs.front().time > 0
                   ? static_cast<double>(t.epochs.front().input_stall) / static_cast<double>(t.epochs.front().time)
                   : 0.0;
    return t.iteration > 0 ? static_cast<double>(t.input_stall) / static_cast<double>(t.iteration) : 0.0;
}

// The smallest worker count whose own simulation keeps the GPU waiting less than
// input_bound_threshold of the whole run, by bisection around the analytic count (assuming
// that more workers never wait more); 0 when `limit` workers still wait.
int workers_by_simulation(TrainingPlan plan, std::uint64_t seed, bool cores_follow_workers, int guess, int limit) {
    const auto waits = [&](int w) {
        plan.workers = w;
        if (cores_follow_workers) plan.stages.cpu_cores = w;
        const Timeline t = simulate_training(plan, seed);
        return static_cast<double>(t.total_input_stall) >= input_bound_threshold * static_cast<double>(t.total);
    };
    int lo = 0, hi = std::clamp(guess, 1, limit);  // lo waits (or is 0), hi does not
    if (waits(hi)) {
        while (true) {
            if (hi >= limit) return 0;
            lo = hi;
            hi = std::min(2 * hi, limit);
            if (!waits(hi)) break;
        }
    }
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (waits(mid) ? lo : hi) = mid;
    }
    return hi;
}

// Bottleneck capacities per GPU (samples/s) in the regime that stalls most (first epoch
// or later epochs), the bound, the measured stalls, and the number of workers at which
// the job becomes compute-bound. That count is analytic for workers alone (one worker
// delivers 1 / (cpu_s + latency_s) samples/s, so workers = ceil(compute rate x (cpu_s +
// latency_s))) and, with the storage-backed pipeline, found by bisection over worker counts
// with the same simulation (the whole run waiting less than input_bound_threshold),
// starting from the analytic count. It is 0 (none) when a shared stage (cores, storage,
// ingress, PCIe) caps the rate below compute in the regime described.
void diagnose_input(const TrainingPlan& plan, const InputPlan& in, const Timeline& tl, std::uint64_t seed, Result& r) {
    auto& d = r.input;
    r.storage_pipeline = plan.stages.enabled;
    const double train_s = sim::to_seconds(tl.total);
    d.input_bound_s = sim::to_seconds(tl.total_input_stall);
    d.stall_fraction = train_s > 0 ? d.input_bound_s / train_s : 0.0;
    for (const auto& e : tl.epochs) {
        EpochResult er{sim::to_seconds(e.time), sim::to_seconds(e.input_stall), 0.0};
        er.stall_fraction = er.time_s > 0 ? er.input_stall_s / er.time_s : 0.0;
        r.epochs.push_back(er);
    }
    const double per_gpu_batch = static_cast<double>(plan.micro_steps) * r.micro_batch;
    const double compute_step = sim::to_seconds(tl.compute + tl.exposed_comm);
    d.compute_samples_per_s = per_gpu_batch / compute_step;
    if (plan.workers == 0) return;

    // The regime the diagnosis describes: the later (warm) epochs, unless the first (cold)
    // epoch is input-bound and holds more of the run's input stall.
    double miss = in.miss, latency = in.latency_s;
    const bool cold = tl.epochs.size() > 1 && 2 * tl.epochs.front().input_stall > tl.total_input_stall &&
                      regime_stall(tl, true) >= input_bound_threshold;
    if (cold) {
        miss = 1.0;
        latency = in.cold_latency_s;
    }
    const double worker_s = in.cpu_s + latency;
    d.workers_samples_per_s = plan.workers / worker_s;
    if (in.cores) d.workers_samples_per_s = std::min(d.workers_samples_per_s, in.cores / in.cpu_s);
    const double read = miss * in.sample_bytes;
    if (in.source_bps > 0 && read > 0) {
        d.storage_samples_per_s = in.source_bps / read;
        if (latency > 0) d.storage_samples_per_s = std::min(d.storage_samples_per_s, in.slots / latency);
    }
    if (in.ingress_bps > 0 && read > 0) d.ingress_samples_per_s = in.ingress_bps / read;
    if (plan.stages.enabled && in.pcie_bps > 0) d.h2d_samples_per_s = in.pcie_bps / in.tensor_bytes;

    // The bound: compute when the GPU waits less than `input_bound_threshold` of the time
    // in the regime described; otherwise the input stage with the smallest capacity, even
    // when that capacity exceeds compute (in-order delivery and workers reading in step
    // can leave a link idle, which the capacities do not see but the simulation does).
    double best = regime_stall(tl, cold) < input_bound_threshold ? d.compute_samples_per_s : 1e300;
    d.bound_by = "compute";
    const std::pair<const char*, double> stages[] = {{"cpu_workers", d.workers_samples_per_s},
                                                     {"storage", d.storage_samples_per_s},
                                                     {"ingress", d.ingress_samples_per_s},
                                                     {"h2d", d.h2d_samples_per_s}};
    double shared_cap = in.cores ? in.cores / in.cpu_s : 1e300;
    for (const auto& [name, rate] : stages) {
        if (rate <= 0) continue;
        if (rate < best) {
            best = rate;
            d.bound_by = name;
        }
        if (std::string_view(name) != "cpu_workers") shared_cap = std::min(shared_cap, rate);
    }
    if (shared_cap < d.compute_samples_per_s) return;
    const int analytic = static_cast<int>(std::ceil(d.compute_samples_per_s * worker_s - 1e-9));
    d.workers_to_compute_bound =
        plan.stages.enabled
            ? workers_by_simulation(plan, seed, in.cores == 0, analytic, in.cores ? 2 * in.cores : max_workers_searched)
            : analytic;
}

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
Result run_steady(const Scenario& s, const net::Network& network);

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

// Simulates the run around the steady steps (see analysis/simulate/lifecycle.hpp) and prices it.
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
                ri = run_steady(at, cluster_network(at));
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
    // Dataset staging (data.staging) and any staging the lifecycle names are billed alike.
    plan.staging = sim::ceil_seconds(lc.staging_s + r.staging_s);

    // Checkpoint: one copy of the weights and the optimizer state, undoing ZeRO sharding.
    const double weight_shard = s.workload.parallelism.zero >= 3 ? dp : 1.0;
    const double state_shard = s.workload.parallelism.zero >= 1 ? dp : 1.0;
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

net::Network cluster_network(const Scenario& s) {
    try {
        return net::Network(net::build_topology(topology_spec(s.cluster)));
    } catch (const std::invalid_argument& e) {
        throw InputError(s.file, "/cluster", e.what());
    }
}

Result run_scenario(const Scenario& s) { return run_steady(s, cluster_network(s)); }

Result run_scenario(const Scenario& s, const net::Network& network) { return run_steady(s, network); }

namespace {

Result run_steady(const Scenario& s, const net::Network& network) {
    const auto& w = s.workload;
    const auto& par = w.parallelism;
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
    r.tp = par.tp;
    r.pp = par.pp;
    r.dp = dp;

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

    if (model.heads > 0 && par.tp > 1 && model.heads % par.tp != 0)
        throw InputError(s.file, "/workload/parallelism/tp",
                         "expected a divisor of the model's " + std::to_string(model.heads) +
                             " attention heads, got tp = " + std::to_string(par.tp));
    if (par.tp > 1 && model.domain == work::Domain::vision)
        throw InputError(s.file, "/workload/parallelism/tp",
                         "tensor parallelism splits transformer layers; model '" + w.model + "' has none");

    compute::StepConfig cfg;
    cfg.micro_batch = micro;
    cfg.precision = w.precision;
    cfg.tp = par.tp;
    cfg.sequence_parallel = par.sequence_parallel && par.tp > 1;
    cfg.dp = dp;
    cfg.zero = par.zero;
    cfg.fused_elementwise = w.fused_elementwise;
    cfg.recompute = par.recompute == "full"        ? compute::Recompute::full
                    : par.recompute == "selective" ? compute::Recompute::selective
                                                   : compute::Recompute::none;
    const compute::StepCost step = compute::plan_step(model, gpu, cfg);

    const net::Algorithm algorithm = s.cluster.collective_algorithm == "auto"
                                         ? net::Algorithm::automatic
                                         : *net::parse_algorithm(s.cluster.collective_algorithm);
    // Megatron's rank order: tensor-parallel ranks adjacent (inside a node when tp <= GPUs per
    // node), then data-parallel, then pipeline stages.
    std::vector<int> dp_ranks;
    for (int i = 0; i < dp; ++i) dp_ranks.push_back(i * par.tp);
    const auto dp_collective = [&](net::Collective op, double bytes) {
        if (dp <= 1 || bytes <= 0) return net::CollectiveEstimate{};
        return par.tp > 1 ? network.collective(op, units::Bytes{bytes}, dp_ranks, algorithm)
                          : network.collective(op, units::Bytes{bytes}, dp, algorithm);
    };

    // Per layer, one micro-batch: compute plus the tensor-parallel collectives on the critical path.
    const std::size_t n_layers = step.layers.size();
    std::vector<units::Seconds> fwd(n_layers), bwd(n_layers), tp_comm(n_layers);
    double cached_bytes = -1;
    units::Seconds cached_time{};
    for (std::size_t i = 0; i < n_layers; ++i) {
        const auto& l = step.layers[i];
        fwd[i] = l.fwd;
        bwd[i] = l.bwd;
        if (par.tp <= 1 || l.tp_fwd_collectives + l.tp_bwd_collectives == 0) continue;
        if (l.tp_collective_bytes.value != cached_bytes) {
            cached_bytes = l.tp_collective_bytes.value;
            if (cfg.sequence_parallel)
                cached_time = network.collective(net::Collective::all_gather, l.tp_collective_bytes, par.tp).time +
                              network.collective(net::Collective::reduce_scatter, l.tp_collective_bytes, par.tp).time;
            else
                cached_time = network.collective(net::Collective::all_reduce, l.tp_collective_bytes, par.tp).time;
        }
        const units::Seconds f = cached_time * l.tp_fwd_collectives, b = cached_time * l.tp_bwd_collectives;
        fwd[i] += f;
        bwd[i] += b;
        tp_comm[i] = f + b;
    }

    // Pipeline stages: contiguous layers, balanced by time (the smallest largest stage).
    const int stages = par.pp * par.virtual_stages;
    if (static_cast<std::size_t>(stages) > n_layers)
        throw InputError(s.file, "/workload/parallelism/pp",
                         "expected at most " + std::to_string(n_layers) +
                             " pipeline stages (pp x virtual_stages), one per layer of the model (blocks, embedding and "
                             "head), got " + std::to_string(stages));
    std::vector<std::size_t> bounds = balanced_stages(fwd, bwd, stages);  // stage c: [bounds[c], bounds[c+1])
    // A GPU holds chunks p, p + pp, ... (interleaved schedule); the critical one is the slowest.
    int slow = 0;
    units::Seconds slot{}, slow_fwd{};
    double stage_params_max = 0;
    for (int g = 0; g < par.pp; ++g) {
        units::Seconds f{}, t{};
        double params = 0;
        for (int c = g; c < stages; c += par.pp)
            for (std::size_t i = bounds[static_cast<std::size_t>(c)]; i < bounds[static_cast<std::size_t>(c) + 1]; ++i) {
                f += fwd[i];
                t += fwd[i] + bwd[i];
                params += step.layers[i].params;
            }
        stage_params_max = std::max(stage_params_max, params);
        if (t > slot) {
            slot = t;
            slow_fwd = f;
            slow = g;
        }
    }
    // Activations and gradients cross each stage boundary once per chunk and micro-batch.
    units::Seconds p2p{};
    if (par.pp > 1) {
        const std::array<int, 2> pair{0, par.tp * dp};
        p2p = network.collective(net::Collective::send_recv, step.layers.front().boundary_bytes, pair).time *
              par.virtual_stages;
    }
    units::Seconds micro_comm{}, slow_tp{};
    for (int c = slow; c < stages; c += par.pp)
        for (std::size_t i = bounds[static_cast<std::size_t>(c)]; i < bounds[static_cast<std::size_t>(c) + 1]; ++i)
            slow_tp += tp_comm[i];
    micro_comm = slow_tp + p2p * 2.0;
    if (stages == 1) {
        // One stage: the step's own sums, so that data-parallel runs keep their exact times.
        slot = step.fwd + step.bwd + slow_tp;
        slow_fwd = step.fwd;
        for (std::size_t i = 0; i < n_layers; ++i) slow_fwd += fwd[i] - step.layers[i].fwd;
    }

    // ZeRO-3 (FSDP) gathers each layer's parameters before its forward, prefetching behind
    // the previous layer's compute: only what forward cannot hide is exposed.
    const double weight_b = compute::is_mixed(w.precision) ? 2.0 : 4.0;
    const double stage_params = par.pp > 1 ? stage_params_max : step.params;
    units::Seconds gather_exposed{};
    if (par.zero >= 3 && dp > 1) {
        const auto gather = dp_collective(net::Collective::all_gather, stage_params * weight_b).time;
        if (gather > slow_fwd) gather_exposed = gather - slow_fwd;
    }
    micro_comm += gather_exposed;
    // A slot: the stage's compute and TP collectives, the two pipeline transfers, and the
    // parameter gather forward could not hide.
    const units::Seconds slot_time = slot + p2p * 2.0 + gather_exposed;

    const double ddp_bucket_bytes = w.bucket_mb * 1024 * 1024;
    const double grad_elem = compute::is_mixed(w.precision) ? 2.0 : 4.0;
    TrainingPlan plan;
    plan.iterations = r.iterations;
    plan.micro_steps = micro_steps;
    plan.micro_fwd_bwd = ns(slot_time);
    plan.last_fwd = ns(slow_fwd + p2p + gather_exposed);  // the gradient's receive opens the first bucket
    plan.micro_comm = ns(micro_comm);
    // Fill and drain: (pp - 1) / v stage slots (Narayanan et al. 2021, Sec. 2.2), the same for
    // GPipe and 1F1B.
    if (par.pp > 1) plan.pipeline_bubble = ns(slot_time * (static_cast<double>(par.pp - 1) / par.virtual_stages));
    plan.optimizer = ns(step.optimizer * (stage_params / step.params));
    plan.step_overhead = ns(units::seconds(gpu.calibration().step_overhead_s));

    // Gradient buckets in the order backward produces them (last layer first); ZeRO-2/3
    // reduce-scatter gradients instead of all-reducing them, ZeRO-3 gathers parameters again
    // for backward.
    const net::Collective grad_op = par.zero >= 2 ? net::Collective::reduce_scatter : net::Collective::all_reduce;
    double bucket_bytes = 0, bucket_params = 0;
    units::Seconds bucket_time = p2p;  // the gradient received from the next stage
    double cap = std::min(ddp_first_bucket_bytes, ddp_bucket_bytes);
    double largest_bucket = 0;
    const auto close_bucket = [&] {
        plan.bucket_bwd.push_back(ns(bucket_time));
        units::Seconds comm{};
        if (dp > 1 && bucket_bytes > 0) {
            const auto est = dp_collective(grad_op, bucket_bytes);
            comm = est.time;
            if (par.zero >= 3) comm += dp_collective(net::Collective::all_gather, bucket_params * weight_b).time;
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
    for (int c = stages - par.pp + slow; c >= 0; c -= par.pp) {
        const auto lo = bounds[static_cast<std::size_t>(c)], hi = bounds[static_cast<std::size_t>(c) + 1];
        for (auto i = hi; i-- > lo;) {
            bucket_time += bwd[i];
            bucket_bytes += step.layers[i].params * grad_elem;
            bucket_params += step.layers[i].params;
            if (bucket_bytes >= cap) close_bucket();
        }
    }
    if (bucket_bytes > 0 || plan.bucket_bwd.empty() || bucket_time.value > 0) close_bucket();
    // ZeRO-1/2: every rank updates its shard, then the updated parameters are all-gathered.
    if ((par.zero == 1 || par.zero == 2) && dp > 1) {
        plan.bucket_bwd.push_back(0);
        plan.bucket_comm.push_back(ns(dp_collective(net::Collective::all_gather, stage_params * weight_b).time));
    }

    const InputPlan input = plan_input(s, gpu_spec, micro, dp, plan);

    const Timeline tl = simulate_training(plan, s.seed);
    r.time_to_train_s = sim::to_seconds(tl.total);
    r.iteration_s = static_cast<double>(tl.period_time) / static_cast<double>(tl.period ? tl.period : 1) * 1e-9;
    r.breakdown.compute_s = sim::to_seconds(tl.compute);
    r.breakdown.input_stall_s = sim::to_seconds(tl.input_stall);
    r.breakdown.pipeline_bubble_s = sim::to_seconds(tl.pipeline_bubble);
    r.breakdown.exposed_comm_s = std::max(0.0, r.iteration_s - r.breakdown.compute_s - r.breakdown.input_stall_s -
                                                   r.breakdown.pipeline_bubble_s);
    r.throughput_samples_per_s = r.global_batch / r.iteration_s;
    if (model.domain == work::Domain::language) r.throughput_tokens_per_s = r.throughput_samples_per_s * model.seq_len;
    r.tflops_per_gpu = step.model_flops_per_sample.value * r.throughput_samples_per_s / r.gpus / 1e12;
    r.mfu = r.tflops_per_gpu / gpu_spec.peak_tflops[static_cast<std::size_t>(w.precision)];
    r.hardware_tflops_per_gpu = step.hardware_flops_per_sample.value * r.throughput_samples_per_s / r.gpus / 1e12;
    // Memory of the largest stage. Activations: one micro-batch of the whole model, split
    // among stages, times the micro-batches a stage holds at once (Korthikanti et al. 2022,
    // Sec. 4.2.3): GPipe all m, 1F1B the first stage's pp (of pp stages' worth of layers),
    // interleaved 1F1B 1 + (pp - 1) / (pp v) times more.
    compute::MemoryUse mem = step.memory;
    if (par.pp > 1) {
        const double share = stage_params / step.params;
        mem.weights = mem.weights * share;
        mem.gradients = mem.gradients * share;
        mem.optimizer = mem.optimizer * share;
        const double pp = par.pp, m = micro_steps, v = par.virtual_stages;
        const double in_flight = par.schedule == "gpipe" ? m / pp
                                                         : std::min(m, pp) / pp * (v > 1 ? 1.0 + (pp - 1) / (pp * v) : 1.0);
        mem.activations = mem.activations * in_flight;
    }
    r.memory_per_gpu_gib = mem.total().value / units::gib(1).value;
    r.memory_available_gib = gpu_spec.memory_gib;
    r.fits = r.memory_per_gpu_gib <= r.memory_available_gib;
    diagnose_input(plan, input, tl, s.seed, r);
    r.simulated_iterations = tl.simulated_iterations;
    r.events = tl.events;
    r.fingerprint = tl.fingerprint;

    // Staging happens on the rented instances before training starts: the lifecycle bills it.
    r.staging_s = input.staging.value;
    if (r.fits) run_lifecycle(s, step, dp, tl.total, r);
    return r;
}

}  // namespace

}  // namespace rentsim::analysis
