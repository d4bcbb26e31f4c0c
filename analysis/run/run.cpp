#include "analysis/run/run.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "analysis/plan/layout.hpp"
#include "analysis/plan/plan.hpp"
#include "analysis/run/trace_step.hpp"
#include "analysis/simulate/lifecycle.hpp"
#include "analysis/simulate/trainer.hpp"
#include "models/pricing/billing.hpp"
#include "sim/random.hpp"

namespace rentsim::analysis {

namespace {

// A regime whose GPU waits less than this share of the time is called compute-bound: the
// first batch of a run alone costs about 1% of a short epoch.
constexpr double input_bound_threshold = 0.02;
// The most workers per GPU the bisection tries when the node's cores are not given.
constexpr int max_workers_searched = 256;

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
    d.bound_by = InputBound::compute;
    const std::pair<InputBound, double> stages[] = {{InputBound::cpu_workers, d.workers_samples_per_s},
                                                    {InputBound::storage, d.storage_samples_per_s},
                                                    {InputBound::ingress, d.ingress_samples_per_s},
                                                    {InputBound::h2d, d.h2d_samples_per_s}};
    double shared_cap = in.cores ? in.cores / in.cpu_s : 1e300;
    for (const auto& [name, rate] : stages) {
        if (rate <= 0) continue;
        if (rate < best) {
            best = rate;
            d.bound_by = name;
        }
        if (name != InputBound::cpu_workers) shared_cap = std::min(shared_cap, rate);
    }
    if (shared_cap < d.compute_samples_per_s) return;
    const int analytic = static_cast<int>(std::ceil(d.compute_samples_per_s * worker_s - 1e-9));
    d.workers_to_compute_bound =
        plan.stages.enabled
            ? workers_by_simulation(plan, seed, in.cores == 0, analytic, in.cores ? 2 * in.cores : max_workers_searched)
            : analytic;
}

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


// One held-out evaluation (workload.evaluation): forward passes only, the samples spread over
// the data-parallel replicas in training micro-batches and pipelined through the stages (the
// slowest stage's share of the forward, pp - 1 micro-batches of fill). No backward, optimizer
// or gradient traffic; the forward's own collectives (tensor-parallel, ZeRO-3 parameter
// gathers, ring attention) are not priced.
double evaluation_pass_s(const WorkloadSpec& w, const StepPlan& p) {
    const double per_step = static_cast<double>(p.dp) * std::max(1, p.micro_batch);
    const double micro_batches = std::ceil(w.evaluation.samples / per_step);
    return (micro_batches + p.pp - 1) * p.step.fwd.value / p.pp;
}

// The dense peak MFU divides by, TFLOP/s: the run's precision, except that the share of an
// fp32 run's FLOPs that executes on TF32 tensor cores counts at the TF32 peak (the harmonic
// mean by FLOPs), so that MFU stays a fraction of what the GPU can do for that work.
double mfu_peak_tflops(const compute::GpuSpec& gpu, compute::Precision p, double tf32_share) {
    const double own = gpu.peak_tflops[static_cast<std::size_t>(p)];
    const double tf32 = gpu.peak_tflops[static_cast<std::size_t>(compute::Precision::tf32)];
    if (p != compute::Precision::fp32 || tf32_share <= 0 || tf32 <= 0) return own;
    return 1.0 / ((1.0 - tf32_share) / own + tf32_share / tf32);
}

// Steady step figures of one simulated step plan.
double iteration_s(const Timeline& tl) {
    return static_cast<double>(tl.period_time) / static_cast<double>(tl.period ? tl.period : 1) * 1e-9;
}

// Simulates the run around the steady steps (analysis/simulate/lifecycle.hpp) and prices it.
void run_lifecycle(const Scenario& s, const JobPlan& job, LifecyclePlan plan, const RunOptions& options, Result& r) {
    const auto& pr = s.pricing;
    const auto& lc = s.lifecycle;
    LifecycleResult& out = r.lifecycle;
    out.plan = pr.plan;
    out.plan_kind = pr.kind;
    out.provider = pr.provider;
    out.instance = pr.instance;
    out.region = pr.region;
    out.price_source = pr.source;
    out.usd_per_gpu_hour = pr.usd_per_gpu_hour;
    out.gpus_per_instance = pr.gpus_per_instance;
    out.checkpoint_gb = job.checkpoint_bytes / 1e9;
    out.checkpoint_write_s = job.checkpoint_write_s;
    out.checkpoint_interval_s = job.checkpoint_interval_s;
    out.restart_s = job.restart_s;

    const std::uint64_t base_seed = options.seed.value_or(s.seed);
    const int reps = std::max(1, options.replications);
    std::vector<double> times, costs;
    double finished = 0, met = 0, trained = 0, work_done_s = 0;
    const price::Storage storage{pr.storage_usd_per_gb_month};
    const price::Egress egress{pr.egress_usd_per_gb};
    const double stored_bytes = job.stored_bytes;
    for (int i = 0; i < reps; ++i) {
        const std::uint64_t seed =
            options.replications > 0 ? sim::derive_seed(base_seed, static_cast<std::uint64_t>(i)) : base_seed;
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
        trained += o.trained_fraction * k;
        work_done_s += sim::to_seconds(static_cast<sim::Time>(o.work_done)) * k;
        if (i == 0 && reps == 1) {
            r.billed_s = o.billed_instance_s / std::max(1, o.max_instances);
        }
    }
    out.billed_gpus = out.instances * pr.gpus_per_instance;
    out.finished_fraction = finished;
    out.deadline_met_fraction = met;
    out.trained_fraction = trained;
    out.window_h = lc.window_h;
    if (lc.window_h > 0) {
        // What the window held: the work done, at the reference (first phase's) rate, less
        // the evaluations' share of it.
        const double train_s = r.time_to_train_s > 0 ? r.time_to_train_s : 1.0;
        const double training_share = std::max(0.0, 1.0 - r.evaluation_s / train_s);
        r.samples = work_done_s * r.throughput_samples_per_s * training_share;
        r.iterations = static_cast<std::int64_t>(std::floor(r.samples / std::max(1, r.global_batch)));
    }
    out.deadline_h = lc.deadline_h;
    r.replications = options.replications;
    r.seed = base_seed;
    r.time_stats = stats_of(times);
    r.cost_stats = stats_of(costs);
    r.time_to_train_s = reps == 1 ? times[0] : r.time_stats.mean;
    r.cost_usd = reps == 1 ? costs[0] : r.cost_stats.mean;
    if (reps > 1) r.billed_s = out.billed_instance_hours * 3600.0 / std::max(1, out.instances);
    r.cost_per_sample_usd = r.samples > 0 ? r.cost_usd / r.samples : 0.0;
}


}  // namespace

const Registry<InputBound>& input_bound_registry() {
    static const Registry<InputBound> r{"input bound",
                                        {{"compute", InputBound::compute, "the GPU: input arrives in time"},
                                         {"cpu_workers", InputBound::cpu_workers, "loader workers and their CPU cores"},
                                         {"storage", InputBound::storage, "the source's bandwidth or request slots"},
                                         {"ingress", InputBound::ingress, "the node's network ingress"},
                                         {"h2d", InputBound::h2d, "the host-to-device copy over PCIe"}}};
    return r;
}

Result run_scenario(const Scenario& s, const RunOptions& options) {
    if (!s.invalid.empty()) return invalid_result(s);  // no cluster to build
    return run_scenario(s, cluster_network(s), options);
}

namespace {

// Refuses a step plan whose run would outlast the simulated clock: every micro-step takes at
// least a nanosecond, so this lower bound also keeps the trainer's step counts in range.
void check_time_budget(const Scenario& s, const StepPlan& p) {
    const TrainingPlan& t = p.training;
    const double step_ns = static_cast<double>(t.micro_steps) * std::max<double>(1.0, static_cast<double>(t.micro_fwd_bwd)) +
                           static_cast<double>(t.optimizer + t.pipeline_bubble + t.step_overhead + t.rollout);
    const double years = static_cast<double>(t.iterations) * step_ns * 1e-9 / (365.25 * 86400);
    if (years > max_simulated_years)
        throw BudgetError(s.file, s.point,
                          "training " + std::to_string(t.iterations) + " steps at " + std::to_string(p.gpus) +
                              " GPUs takes at least " + std::to_string(static_cast<long long>(years)) +
                              " years; rentsim simulates runs of up to " +
                              std::to_string(static_cast<int>(max_simulated_years)) + " years: train fewer samples");
}

// Refuses a lifecycle whose interruptions (spot preemptions and GPU failures, up to the
// give-up horizon) are more than one replication can simulate in reasonable time.
void check_interruption_budget(const Scenario& s, const LifecyclePlan& l) {
    double rate = 0;  // per second of the whole cluster, at its largest size
    int gpus = 0;
    for (const auto& ph : l.phases) gpus = std::max(gpus, ph.gpus);
    if (l.preempt_mean_s > 0) rate += l.bill.instances(gpus) / l.preempt_mean_s;
    if (l.gpu_mtbf_s > 0) rate += gpus / l.gpu_mtbf_s;
    const double horizon_s = l.window > 0 ? sim::to_seconds(l.window)
                                          : std::max(1.0, l.horizon_factor) * sim::to_seconds(l.work + l.provisioning + l.staging);
    const double expected = rate * std::min(horizon_s, max_simulated_years * 365.25 * 86400);
    if (expected > max_interruptions)
        throw BudgetError(s.file, s.point,
                          "the run would draw about " + std::to_string(static_cast<long long>(expected)) +
                              " interruptions (preemptions and failures up to the give-up horizon); rentsim simulates up to " +
                              std::to_string(static_cast<long long>(max_interruptions)) +
                              ": raise the mean time between preemptions or failures");
}

// The candidate micro-batches of a search: the scenario's when given; else, where dp is all
// the GPUs (batch_per_gpu, or a model without layers to split), the batch per GPU and its
// halvings down to an eighth (a CNN runs its whole per-GPU batch at once when it fits); else
// the search's default, 1 to 8.
std::vector<int> micro_batch_candidates(const WorkloadSpec& w, int gpus, bool transformer) {
    if (w.micro_batch) return {w.micro_batch};
    const int per_gpu = w.batch_per_gpu ? w.batch_per_gpu : !transformer && w.global_batch % gpus == 0 ? w.global_batch / gpus : 0;
    if (per_gpu <= 0) return LayoutProblem{}.micro_batches;
    std::vector<int> v;
    for (int d = 1; d <= 8; d *= 2)
        if (per_gpu % d == 0) v.push_back(per_gpu / d);
    return v;
}

// The layout a plan used, as the search describes layouts.
Layout layout_of(const Scenario& s, const StepPlan& p) {
    const Parallelism& par = s.workload.parallelism;
    Layout l;
    l.tp = p.tp, l.pp = p.pp, l.cp = p.cp, l.dp = p.dp, l.micro_batch = p.micro_batch;
    l.virtual_stages = par.virtual_stages;
    l.sequence_parallel = par.sequence_parallel;
    l.recompute = par.recompute;
    l.recompute_every = par.recompute_every;
    l.zero = par.zero;
    return l;
}

// The fields of a result that come from the scenario alone.
Result identity(const Scenario& s) {
    const auto& w = s.workload;
    const compute::GpuSpec& gpu = *s.cluster.gpu;
    Result r;
    r.name = s.name;
    r.point = s.point;
    r.model = w.model;
    r.gpu = std::string(gpu.name);
    r.precision = std::string(compute::to_string(w.precision));
    r.framework = w.framework;
    r.attention = std::string(attention_kind_registry().name_of(w.attention));
    r.network_model = std::string(network_model_registry().name_of(s.cluster.network_model));
    r.gpus = s.cluster.gpus;
    r.samples = w.samples;
    r.from_instance = s.cluster.from_instance;
    r.memory_available_gib = gpu.memory_gib;
    r.accuracy = accuracy_of(gpu.name, w.model);
    // No RL run has been validated: the LLM rows check training steps, not rollouts.
    if (w.rl.enabled) {
        r.accuracy.check_rows = 0;
        r.accuracy.median_error = r.accuracy.p90_error = 0;
    }
    r.layout.searched = w.parallelism.search;
    return r;
}

MemoryParts memory_parts(const compute::MemoryUse& m) {
    const double gib = units::gib(1).value;
    return {m.weights.value / gib, m.gradients.value / gib, m.optimizer.value / gib, m.activations.value / gib,
            m.reserved.value / gib};
}

// The figures of a step plan: layout, batch, memory by part.
void plan_figures(const StepPlan& p, Result& r) {
    r.gpus = p.gpus;
    r.tp = p.tp;
    r.pp = p.pp;
    r.cp = p.cp;
    r.dp = p.dp;
    r.global_batch = p.global_batch;
    r.micro_batch = p.micro_batch;
    r.micro_steps = p.micro_steps;
    r.iterations = p.iterations;
    r.allreduce_busbw_gbps = p.allreduce_busbw_gbps;
    r.memory_per_gpu_gib = p.memory_per_gpu_gib;
    r.memory = memory_parts(p.memory);
    r.fits = p.fits;
}

}  // namespace

LayoutSearchResult search_scenario_layout(const Scenario& s, const net::Network& network) {
    const auto& w = s.workload;
    const work::Workload& g = w.graph;
    const compute::GpuSpec& gpu = *s.cluster.gpu;
    LayoutProblem problem;
    problem.gpus = s.cluster.gpus;
    problem.gpus_per_node = s.cluster.gpus_per_node;
    problem.transformer = g.domain != work::Domain::vision && g.heads > 0;
    if (problem.transformer) {
        problem.layers = g.n_layers;
        problem.heads = g.heads;
        problem.kv_heads = g.kv_heads;
        problem.seq_len = static_cast<int>(g.seq_len);
    }
    problem.global_batch = w.global_batch ? w.global_batch : w.batch_per_gpu * s.cluster.gpus;
    problem.micro_batches = micro_batch_candidates(w, s.cluster.gpus, problem.transformer);
    problem.gpu_memory_gib = gpu.memory_gib;
    // The loader workers' waits depend on the micro-batch: with an input pipeline each
    // candidate's step is simulated (a few steps reach the periodic state).
    const bool input_pipeline = s.data.workers_per_gpu > 0;
    const double usd_per_gpu_s = s.pricing.usd_per_gpu_hour / 3600.0;
    // A flow-level scenario's candidates share their collectives' prices (same groups, same sizes).
    FlowPrices flow_prices(network);
    const auto evaluate = [&](const Layout& l) {
        const StepPlan p = plan_step(s, s.cluster.gpus, network, &l, &flow_prices);
        const double gib = units::gib(1).value;
        LayoutEval e;
        e.params_gib = p.memory.weights.value / gib;
        e.grads_gib = p.memory.gradients.value / gib;
        e.optimizer_gib = p.memory.optimizer.value / gib;
        e.activations_gib = p.memory.activations.value / gib;
        e.workspace_gib = p.memory.reserved.value / gib;
        e.memory_gib = p.memory_per_gpu_gib;
        e.available_gib = gpu.memory_gib;
        e.fits = p.fits;
        if (!e.fits) return e;
        if (input_pipeline) {
            TrainingPlan few = p.training;
            few.iterations = std::min<std::int64_t>(few.iterations, 64);
            e.step_s = iteration_s(simulate_training(few, s.seed));
        } else {
            e.step_s = critical_path_s(p.training);
        }
        e.cost_usd = e.step_s * static_cast<double>(p.iterations) * p.gpus * usd_per_gpu_s;
        return e;
    };
    const Objective objective = w.parallelism.objective == LayoutObjective::cost ? Objective::cost : Objective::time;
    return search_layout(problem, evaluate, objective);
}

namespace {

// What a written layout that does not fit could become: the layout the search would run for
// the same GPUs and batch (`"parallelism": "auto"`), or, when no layout of these GPUs fits,
// the search's smallest change. Empty where the search does not apply (an RL run, a replayed
// trace, an elastic schedule: each needs its written layout).
std::string written_layout_hint(const Scenario& s, const net::Network& network) {
    const auto& w = s.workload;
    if (w.rl.enabled || !w.trace.empty() || !s.elastic.schedule.empty()) return {};
    const LayoutSearchResult search = search_scenario_layout(s, network);
    if (search.best)
        return fmt::format("\"parallelism\": \"auto\" fits {}, {:.1f} GiB", describe(search.best->layout),
                           search.best->eval.memory_gib);
    return search.smallest_change.empty() ? std::string() : "no layout of these GPUs fits: " + search.smallest_change;
}

Result run_one(const Scenario& s, const net::Network& network, const RunOptions& options) {
    Result r = identity(s);
    std::optional<Layout> searched;
    if (s.workload.parallelism.search) {
        const auto search = search_scenario_layout(s, network);
        r.layout.candidates = search.candidates;
        r.layout.refused = search.refused;
        if (search.best) searched = search.best->layout;
        if (search.runner_up) r.layout.runner_up = describe(search.runner_up->layout);
        if (!search.best) {
            // Nothing fits: the closest misfit's figures (when a candidate passed the rules)
            // and the smallest change; no times.
            r.fits = false;
            r.note = search.smallest_change;
            if (search.closest_misfit) {
                const Layout& l = search.closest_misfit->layout;
                plan_figures(plan_step(s, s.cluster.gpus, network, &l), r);
                r.fits = false;
            }
            return r;
        }
    }
    const JobPlan job = plan_job(s, network, searched ? &*searched : nullptr);
    check_time_budget(s, job.step);
    for (const auto& e : job.elastic) check_time_budget(s, e);
    const StepPlan& p = job.step;
    const auto& w = s.workload;
    const compute::GpuSpec& gpu = *s.cluster.gpu;
    const std::uint64_t seed = options.seed.value_or(s.seed);

    plan_figures(p, r);
    r.layout.chosen = describe(searched ? *searched : layout_of(s, p));

    Timeline tl = simulate_training(p.training, seed);
    r.time_to_train_s = sim::to_seconds(tl.total);
    r.iteration_s = iteration_s(tl);
    r.breakdown.compute_s = sim::to_seconds(tl.compute);
    r.breakdown.input_stall_s = sim::to_seconds(tl.input_stall);
    r.breakdown.pipeline_bubble_s = sim::to_seconds(tl.pipeline_bubble);
    if (w.rl.enabled) {
        r.rl.ppo_epochs = w.rl.ppo_epochs;
        r.rl.rollout_s = sim::to_seconds(tl.rollout);
        r.rl.generation_s = p.rollout_generation_s;
        r.rl.scoring_s = p.rollout_scoring_s;
        r.rl.kv_cache_gib = p.rollout_kv_cache_gib;
    }
    r.breakdown.exposed_comm_s = std::max(0.0, r.iteration_s - r.breakdown.compute_s - r.breakdown.input_stall_s -
                                                   r.breakdown.pipeline_bubble_s - r.rl.rollout_s);
    if (!w.trace.empty()) {
        // The replayed trace is the step: its host time, loader waits and communication are
        // the recording's, so the model's step and input pipeline give way to it.
        const TraceStep ts = replay_trace_step(s);
        r.step_source = ts.source;
        r.iteration_s = ts.iteration_s;
        r.breakdown.compute_s = ts.compute_s;
        r.breakdown.exposed_comm_s = ts.exposed_comm_s;
        r.breakdown.input_stall_s = 0;
        r.breakdown.pipeline_bubble_s = 0;
        tl.total = sim::from_seconds(ts.iteration_s * static_cast<double>(p.iterations));
        r.time_to_train_s = sim::to_seconds(tl.total);
    }
    // Evaluations after every `every_samples` trained samples; the run's last one falls at its
    // end when the samples are a multiple (MLPerf stops at the evaluation that reaches the target).
    if (w.evaluation.every_samples > 0) {
        r.evaluations = static_cast<std::int64_t>(std::floor(w.samples / w.evaluation.every_samples + 1e-9));
        r.evaluation_s = static_cast<double>(r.evaluations) * evaluation_pass_s(w, p);
        tl.total += sim::from_seconds(r.evaluation_s);
        r.time_to_train_s = sim::to_seconds(tl.total);
    }
    // RL: each prompt is trained on in ppo_epochs steps.
    r.throughput_samples_per_s = r.global_batch / r.iteration_s / (w.rl.enabled ? w.rl.ppo_epochs : 1);
    if (w.graph.domain == work::Domain::language) r.throughput_tokens_per_s = r.throughput_samples_per_s * w.graph.seq_len;
    // RL: per prompt, ppo_epochs training passes of the policy (and of the critic), a forward
    // pass of each scoring model, and the generation, whose K/V cache makes it one forward
    // pass over the sequence: a third of a training pass each.
    const double passes = w.rl.enabled ? w.rl.ppo_epochs * (1.0 + double(w.rl.critic)) + (w.rl.scoring_passes() + 1) / 3.0 : 1.0;
    r.tflops_per_gpu = passes * p.step.model_flops_per_sample.value * r.throughput_samples_per_s / r.gpus / 1e12;
    r.mfu = r.tflops_per_gpu / mfu_peak_tflops(gpu, w.precision, p.step.tf32_flops_share);
    r.hardware_tflops_per_gpu = passes * p.step.hardware_flops_per_sample.value * r.throughput_samples_per_s / r.gpus / 1e12;
    diagnose_input(p.training, p.input, tl, seed, r);
    r.simulated_iterations = tl.simulated_iterations;
    r.events = tl.events;
    r.fingerprint = tl.fingerprint;
    // Staging happens on the rented instances before training starts: the lifecycle bills it.
    r.staging_s = p.input.staging.value;
    if (!r.fits) {
        if (!w.parallelism.search && options.suggest_layout) r.note = written_layout_hint(s, network);
        return r;
    }

    // The lifecycle: the steady steps' work, and each elastic phase's speed from its own step.
    LifecyclePlan lifecycle = job.lifecycle;
    lifecycle.work = tl.total;
    // A calendar window: more work than the window can hold at a thousand times the
    // reference rate, so that only the window ends the run.
    if (lifecycle.window > 0)
        lifecycle.work = static_cast<sim::Time>(std::min(4e18, 1e3 * static_cast<double>(lifecycle.window)));
    for (std::size_t i = 0; i < job.elastic.size(); ++i) {
        const StepPlan& e = job.elastic[i];
        if (!e.fits) {
            r.fits = false;
            r.memory_per_gpu_gib = e.memory_per_gpu_gib;
            r.memory = memory_parts(e.memory);
            r.note = "does not fit at the elastic step of " + std::to_string(e.gpus) + " GPUs";
            return r;
        }
        const double throughput = e.global_batch / iteration_s(simulate_training(e.training, seed));
        lifecycle.phases[i].speed = throughput / r.throughput_samples_per_s;
    }
    check_interruption_budget(s, lifecycle);
    run_lifecycle(s, job, std::move(lifecycle), options, r);
    return r;
}

std::string share_of_runs(double fraction) { return fmt::format("in {:.0f}% of runs", 100 * fraction); }

}  // namespace

std::string run_status(const Result& r) {
    if (!r.fits) return "does not fit";
    const LifecycleResult& l = r.lifecycle;
    const double stopped = 1 - l.finished_fraction - l.gave_up_fraction;  // by the budget
    if (l.gave_up_fraction >= 1 - 1e-12) return "gave up";
    if (stopped >= 1 - 1e-12) return fmt::format("stopped by budget at {:.0f}%", 100 * l.trained_fraction);
    if (stopped > 1e-12) return "stopped by budget " + share_of_runs(stopped);
    if (l.gave_up_fraction > 1e-12) return "gave up " + share_of_runs(l.gave_up_fraction);
    if (l.deadline_met_fraction <= 1e-12) return "missed deadline";
    if (l.deadline_met_fraction < 1 - 1e-12) return "missed deadline " + share_of_runs(1 - l.deadline_met_fraction);
    return "done";
}

Result invalid_result(const Scenario& s) {
    Result r;
    r.name = s.name;
    r.point = s.point;
    r.fits = false;
    r.status = "invalid";
    r.note = s.invalid;
    return r;
}

Result run_scenario(const Scenario& s, const net::Network& network, const RunOptions& options) {
    if (!s.invalid.empty()) return invalid_result(s);
    Result r = run_one(s, network, options);
    r.status = run_status(r);
    return r;
}

}  // namespace rentsim::analysis
