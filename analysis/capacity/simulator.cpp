#include "analysis/capacity/simulator.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "analysis/capacity/policy.hpp"
#include "analysis/capacity/quantiles.hpp"
#include "analysis/capacity/workload_class.hpp"
#include "models/compute/gpu.hpp"
#include "models/pricing/billing.hpp"
#include "sim/engine.hpp"

namespace rentsim::capacity {

std::optional<jobs::Job> VectorJobReader::next() {
    if (next_ >= jobs_.size()) return std::nullopt;
    return jobs_[next_++];
}

namespace {

using sim::Time;

// Event kinds, for the engine's fingerprint.
enum EventKind : std::uint32_t { ev_arrival = 1, ev_end, ev_ready, ev_release, ev_preempt, ev_trace, ev_wake };

enum class NodeState : std::uint8_t { gone, provisioning, ready };

struct Node {
    NodeState state = NodeState::gone;
    int free = 0;
    Time lease_start = 0;
    Time ready_at = 0;
    std::vector<std::uint32_t> jobs;  // running on it
    sim::EventId release_event, preempt_event, ready_event;
    Time release_at = -1;
};

struct PoolState {
    const Pool* spec = nullptr;
    int gpn = 8;
    double peak = 0;  // the GPU's dense fp16 peak; 0 when unknown
    std::vector<Node> nodes;
    std::vector<std::set<int>> by_free;  // ready nodes by free GPUs, 0..gpn
    std::vector<int> dead;                // gone node slots to reuse
    std::set<std::pair<Time, int>> provisioning;  // (ready time, node)
    std::set<std::pair<Time, std::uint32_t>> running;  // (estimated end, job)
    int alive = 0;
    PoolResult result;
    double billed_s = 0;  // node-seconds billed
    double priced_s = 0;  // the same at the price in force, as seconds at the catalog price
    std::size_t trace_next = 0;
    double trace_offset_s = 0;
};

struct ActiveJob {
    jobs::Job job;
    QueuedJob q;
    Time submit = 0;
    double work_s = 0;       // remaining work, seconds on the job's reference GPU
    double ref_peak = 0;     // that GPU's peak; 0 when unknown (durations kept)
    std::string ref_gpu;     // GPU catalog name of the recorded type (strict matching)
    int cls = -1;            // workload class (index), -1: durations by the peak ratio or kept
    std::vector<const ClassFactor*> class_factors;  // per pool, with a class; factor 0: cannot run there
    int pool = -1;
    std::vector<int> nodes;
    int per_node = 0;        // GPUs it holds on each of its nodes
    Time attempt_start = 0, overhead = 0, first_start = -1;
    Time est_end = 0;
    double speed = 1;
    bool restart = false;    // pays the restart on its next start
    sim::EventId end_event;
    int preemptions = 0;
    double cost = 0;
    bool live = false;
};

struct QueueKey {
    QueuedJob q;
    std::uint32_t slot;
};

class Simulation {
public:
    Simulation(const ClusterConfig& c, jobs::JobReader& reader, const JobSink& sink)
        : c_(c), reader_(reader), sink_(sink), policy_(policy_registry().get(c.scheduler)),
          engine_(c.seed), queue_(Cmp{policy_}), classes_(c) {
        bin_ = std::max<Time>(1, sim::from_seconds(c.utilization_interval_s));
        scan_ = sim::from_seconds(autoscaler_scan_s);
        wait_threshold_ = sim::from_seconds(c.autoscaler.queue_wait_s);
        pools_.resize(c.pools.size());
        for (std::size_t i = 0; i < c.pools.size(); ++i) {
            PoolState& p = pools_[i];
            p.spec = &c.pools[i];
            p.gpn = p.spec->gpus_per_node;
            p.by_free.resize(static_cast<std::size_t>(p.gpn) + 1);
            if (const auto* g = compute::lookup_gpu(p.spec->gpu)) p.peak = compute::peak(*g, compute::Precision::fp16).value;
            p.result.name = p.spec->name;
            p.result.kind = p.spec->kind;
            p.result.nodes = p.spec->nodes;
            p.result.max_nodes = std::max(p.spec->max_nodes, p.spec->nodes);
            if (p.spec->scalable()) has_scalable_ = true;
        }
        // Preference: reserved (paid anyway), spot, on-demand; each kind cheapest per GPU first.
        for (std::size_t i = 0; i < pools_.size(); ++i) order_.push_back(static_cast<int>(i));
        std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
            const Pool& x = *pools_[static_cast<std::size_t>(a)].spec;
            const Pool& y = *pools_[static_cast<std::size_t>(b)].spec;
            if (x.kind != y.kind) return rank(x.kind) < rank(y.kind);
            return x.usd_per_gpu_second() < y.usd_per_gpu_second();
        });
    }

    ClusterResult run() {
        for (std::size_t i = 0; i < pools_.size(); ++i) {
            PoolState& p = pools_[i];
            for (int n = 0; n < p.spec->nodes; ++n) {
                const int idx = new_node(p);
                p.nodes[static_cast<std::size_t>(idx)].lease_start = 0;
                p.alive++;
                p.result.leases++;
                held_ += p.gpn;
                make_ready(static_cast<int>(i), idx);
            }
            p.result.peak_nodes = p.alive;
            if (p.spec->kind == PoolKind::spot && p.spec->spot_trace && !p.spec->spot_trace->events.empty())
                schedule_trace(static_cast<int>(i));
        }
        read_next();
        if (pending_.has_value()) engine_.run();
        // Without a scaled pool nothing wakes a stuck queue: the events run out instead.
        if (!stopped_ && stuck()) abandon_queue();
        return finish();
    }

private:
    struct Cmp {
        const Policy* policy;
        bool operator()(const QueueKey& a, const QueueKey& b) const {
            if (policy->before(a.q, b.q)) return true;
            if (policy->before(b.q, a.q)) return false;
            return a.q.order < b.q.order;
        }
    };

    static int rank(PoolKind k) { return k == PoolKind::reserved ? 0 : k == PoolKind::spot ? 1 : 2; }
    double now_s() const { return sim::to_seconds(engine_.now()); }
    ActiveJob& job(std::uint32_t s) { return jobs_[s]; }

    // ---- arrivals ------------------------------------------------------------------------
    void read_next() {
        pending_ = reader_.next();
        if (!pending_) {
            reader_done_ = true;
            maybe_stop();
            return;
        }
        // Readers deliver in submission order; a job dated before the clock arrives now.
        const Time t = std::max(engine_.now(), sim::from_seconds(std::max(0.0, pending_->submit_s)));
        engine_.schedule_at(t, [this] { arrive(); }, ev_arrival);
    }

    void arrive() {
        jobs::Job j = std::move(*pending_);
        pending_.reset();
        ++result_.jobs;
        admit(std::move(j));
        read_next();
        schedule();
        autoscale();
    }

    std::string ref_gpu_of(const jobs::Job& j) {
        if (j.gpu_type.empty()) return c_.trace_gpu;
        if (auto it = c_.gpu_type_map.find(j.gpu_type); it != c_.gpu_type_map.end()) return it->second;
        auto [it, fresh] = label_gpu_.try_emplace(j.gpu_type);
        if (fresh) {
            std::string lower;
            for (char ch : j.gpu_type) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            // The label as a catalog name, else the first catalog part it prefixes ("V100" -> v100-sxm2-16gb).
            if (compute::lookup_gpu(lower)) it->second = lower;
            else
                for (const auto& g : compute::gpu_catalog())
                    if (g.name.starts_with(lower + "-")) {
                        it->second = std::string(g.name);
                        break;
                    }
        }
        return it->second.empty() ? c_.trace_gpu : it->second;
    }

    // The job may run on GPU `gpu` (its recorded type, an allowed one, or any when not strict).
    bool gpu_allowed(const ActiveJob& a, const std::string& gpu) const {
        if (!c_.gpu_type_strict || a.job.gpu_type.empty() || a.ref_gpu == gpu) return true;
        const auto it = c_.gpu_type_allow.find(a.job.gpu_type);
        return it != c_.gpu_type_allow.end() && std::find(it->second.begin(), it->second.end(), gpu) != it->second.end();
    }

    std::size_t index_of(const PoolState& p) const { return static_cast<std::size_t>(&p - pools_.data()); }

    bool class_refuses(const ActiveJob& a, const PoolState& p) const {
        return !a.class_factors.empty() && a.class_factors[index_of(p)]->factor <= 0;
    }

    bool allowed(const ActiveJob& a, const PoolState& p) const {
        if (p.spec->kind == PoolKind::spot && !a.job.spot_ok) return false;
        if (!gpu_allowed(a, p.spec->gpu)) return false;
        if (class_refuses(a, p)) return false;
        return holds(a, p);
    }

    // The pool is large enough for the job.
    static bool holds(const ActiveJob& a, const PoolState& p) {
        return a.job.gpus <= p.gpn || (a.job.gpus + p.gpn - 1) / p.gpn <= std::max(p.spec->max_nodes, p.spec->nodes);
    }

    void admit(jobs::Job j) {
        std::uint32_t s;
        if (!free_slots_.empty()) {
            s = free_slots_.back();
            free_slots_.pop_back();
        } else {
            s = static_cast<std::uint32_t>(jobs_.size());
            jobs_.emplace_back();
        }
        ActiveJob& a = jobs_[s];
        a = ActiveJob{};
        a.job = std::move(j);
        a.live = true;
        a.submit = engine_.now();
        a.work_s = std::max(0.0, a.job.duration_s);
        a.ref_gpu = ref_gpu_of(a.job);
        if (!a.ref_gpu.empty())
            if (const auto* g = compute::lookup_gpu(a.ref_gpu)) a.ref_peak = compute::peak(*g, compute::Precision::fp16).value;
        a.q.order = next_order_++;
        a.q.submit_s = now_s();
        a.q.gpus = std::max(1, a.job.gpus);
        a.job.gpus = a.q.gpus;
        a.q.priority = a.job.priority;
        a.q.estimate_s = estimate(a.job);
        if (classes_.enabled()) assign_class(a);
        bool any = false;
        for (const auto& p : pools_) any = any || allowed(a, p);
        if (!any) {
            refuse(s, unschedulable_reason(a));
            return;
        }
        ++in_flight_;
        result_.peak_jobs_in_flight = std::max(result_.peak_jobs_in_flight, in_flight_);
        enqueue(s);
    }

    // The job's workload class and its factor on every pool (memoised per class, GPU pair and
    // count); counted by class and source for the assumptions.
    void assign_class(ActiveJob& a) {
        const auto [cls, source] = classes_.class_of(a.job);
        std::string key;
        if (a.ref_gpu.empty()) {
            key = "no recorded GPU, kept as recorded";
        } else if (cls < 0) {
            key = "no workload class, by the peak ratio";
        } else {
            a.cls = cls;
            // Only pools that could hold the job otherwise are worth a step-model run.
            static const ClassFactor not_evaluated{};
            for (const auto& p : pools_) {
                const bool could = (p.spec->kind != PoolKind::spot || a.job.spot_ok) && gpu_allowed(a, p.spec->gpu) &&
                                   holds(a, p);
                a.class_factors.push_back(could ? &classes_.factor(cls, a.ref_gpu, *p.spec, a.job.gpus) : &not_evaluated);
            }
            key = fmt::format("workload class {} (from {})", c_.workload_classes[static_cast<std::size_t>(cls)].name,
                              to_string(source));
        }
        ++class_counts_[key];
    }

    std::string unschedulable_reason(const ActiveJob& a) const {
        int most = 0;
        std::string class_problem;
        for (const auto& p : pools_) {
            if (p.spec->kind == PoolKind::spot && !a.job.spot_ok) continue;
            if (!gpu_allowed(a, p.spec->gpu)) continue;
            if (class_refuses(a, p) && !a.class_factors[index_of(p)]->problem.empty()) {
                if (class_problem.empty()) class_problem = a.class_factors[index_of(p)]->problem;
                continue;
            }
            most = std::max(most, std::max(p.spec->max_nodes, p.spec->nodes) * p.gpn);
        }
        if (most == 0 && !class_problem.empty()) return "no pool can run it: " + class_problem;
        if (most == 0)
            return a.job.gpu_type.empty() || !c_.gpu_type_strict
                       ? "no pool it may use (spot only, and the job is not spot_ok)"
                       : fmt::format("no pool of its GPU type {} (allow others in gpu_types.allow, or set gpu_types.strict "
                                     "false)", a.job.gpu_type);
        return fmt::format("{} GPUs asked, at most {} in a pool it may use", a.job.gpus, most);
    }

    void refuse(std::uint32_t s, const std::string& reason) {
        ActiveJob& a = jobs_[s];
        ++result_.unschedulable;
        if (result_.unschedulable_examples.size() < max_listed_unschedulable)
            result_.unschedulable_examples.push_back(a.job.id + ": " + reason);
        if (sink_) {
            JobRecord r;
            r.job = &a.job;
            r.status = "unschedulable";
            r.reason = reason;
            r.workload_class = class_name(a);
            sink_(r);
        }
        release_slot(s);
    }

    std::string_view class_name(const ActiveJob& a) const {
        return a.cls < 0 ? std::string_view() : std::string_view(c_.workload_classes[static_cast<std::size_t>(a.cls)].name);
    }

    void release_slot(std::uint32_t s) {
        jobs_[s] = ActiveJob{};
        free_slots_.push_back(s);
    }

    double estimate(const jobs::Job& j) const {
        if (c_.estimate == DurationEstimate::recorded) return j.duration_s;
        if (auto it = users_.find(j.user); it != users_.end() && it->second.second > 0)
            return it->second.first / static_cast<double>(it->second.second);
        return done_count_ > 0 ? done_sum_ / static_cast<double>(done_count_) : initial_estimate_s;
    }

    void enqueue(std::uint32_t s) {
        queue_.insert(QueueKey{jobs_[s].q, s});
        waiting_.insert({jobs_[s].q.submit_s, jobs_[s].q.order});
    }

    // ---- placement -----------------------------------------------------------------------
    double speed(const ActiveJob& a, const PoolState& p) const {
        if (!a.class_factors.empty()) return 1.0 / a.class_factors[index_of(p)]->factor;
        return a.ref_peak > 0 && p.peak > 0 ? p.peak / a.ref_peak : 1.0;
    }

    // Nodes for `a` in pool `p` now (best fit for one node, the lowest free whole nodes for a
    // gang); empty when it does not fit.
    std::vector<int> fit(const ActiveJob& a, const PoolState& p) const {
        const int g = a.job.gpus;
        if (g <= p.gpn) {
            for (int f = g; f <= p.gpn; ++f)
                if (!p.by_free[static_cast<std::size_t>(f)].empty()) return {*p.by_free[static_cast<std::size_t>(f)].begin()};
            return {};
        }
        const auto k = static_cast<std::size_t>((g + p.gpn - 1) / p.gpn);
        const auto& whole = p.by_free[static_cast<std::size_t>(p.gpn)];
        if (whole.size() < k) return {};
        std::vector<int> out;
        for (auto it = whole.begin(); out.size() < k; ++it) out.push_back(*it);
        return out;
    }

    void set_free(PoolState& p, int idx, int free) {
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        if (n.state == NodeState::ready) p.by_free[static_cast<std::size_t>(n.free)].erase(idx);
        n.free = free;
        if (n.state == NodeState::ready) p.by_free[static_cast<std::size_t>(free)].insert(idx);
    }

    // Starts `s` in the first pool it fits; with a reservation (`shadow` in `shadow_pool`), only
    // where it cannot delay it.
    bool try_start(std::uint32_t s, Time shadow, int shadow_pool) {
        ActiveJob& a = jobs_[s];
        for (int pi : order_) {
            PoolState& p = pools_[static_cast<std::size_t>(pi)];
            if (!allowed(a, p)) continue;
            std::vector<int> nodes = fit(a, p);
            if (nodes.empty()) continue;
            if (pi == shadow_pool && shadow != sim::time_max) {
                const double sp = speed(a, p);
                const Time est = engine_.now() + sim::from_seconds(a.q.estimate_s / sp + (a.restart ? c_.restart_s : 0.0));
                if (est > shadow) continue;
            }
            start(s, pi, std::move(nodes));
            return true;
        }
        return false;
    }

    void start(std::uint32_t s, int pi, std::vector<int> nodes) {
        account();
        ActiveJob& a = jobs_[s];
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        a.pool = pi;
        a.nodes = std::move(nodes);
        a.per_node = a.job.gpus <= p.gpn ? a.job.gpus : p.gpn;
        for (int idx : a.nodes) {
            Node& n = p.nodes[static_cast<std::size_t>(idx)];
            if (n.release_event.valid()) engine_.cancel(n.release_event);
            n.release_event = {};
            n.release_at = -1;
            set_free(p, idx, n.free - a.per_node);
            n.jobs.push_back(s);
        }
        busy_ += a.per_node * static_cast<int>(a.nodes.size());
        a.speed = speed(a, p);
        a.attempt_start = engine_.now();
        a.overhead = a.restart ? sim::from_seconds(c_.restart_s) : 0;
        if (a.first_start < 0) a.first_start = engine_.now();
        const Time run = a.overhead + sim::ceil_seconds(a.work_s / a.speed);
        a.end_event = engine_.schedule_in(run, [this, s] { complete(s); }, ev_end, s);
        a.est_end = engine_.now() + a.overhead + sim::from_seconds(a.q.estimate_s / a.speed);
        p.running.insert({a.est_end, s});
        waiting_.erase({a.q.submit_s, a.q.order});
    }

    // Frees the job's nodes; returns GPU-seconds it held in this attempt.
    double vacate(std::uint32_t s) {
        account();
        ActiveJob& a = jobs_[s];
        PoolState& p = pools_[static_cast<std::size_t>(a.pool)];
        p.running.erase({a.est_end, s});
        const double held_s = sim::to_seconds(engine_.now() - a.attempt_start);
        const double gpu_s = held_s * a.per_node * static_cast<double>(a.nodes.size());
        p.result.busy_gpu_hours += gpu_s / 3600.0;
        const double priced_s = p.spec->priced_seconds(sim::to_seconds(a.attempt_start), held_s);
        a.cost += priced_s * a.per_node * static_cast<double>(a.nodes.size()) * p.spec->usd_per_gpu_second();
        busy_ -= a.per_node * static_cast<int>(a.nodes.size());
        for (int idx : a.nodes) {
            Node& n = p.nodes[static_cast<std::size_t>(idx)];
            std::erase(n.jobs, s);
            if (n.state == NodeState::ready) set_free(p, idx, n.free + a.per_node);
        }
        return gpu_s;
    }

    void complete(std::uint32_t s) {
        ActiveJob& a = jobs_[s];
        a.end_event = {};
        vacate(s);
        const PoolState& p = pools_[static_cast<std::size_t>(a.pool)];
        useful_gpu_s_ += a.work_s / a.speed * a.job.gpus;
        const double wait = sim::to_seconds(a.first_start - a.submit);
        const double jct = sim::to_seconds(engine_.now() - a.submit);
        waits_.add(wait);
        jcts_.add(jct);
        ++result_.finished;
        done_sum_ += a.job.duration_s;
        ++done_count_;
        auto& u = users_[a.job.user];
        u.first += a.job.duration_s;
        ++u.second;
        if (sink_) {
            JobRecord r;
            r.job = &a.job;
            r.status = "done";
            r.start_s = sim::to_seconds(a.first_start);
            r.end_s = now_s();
            r.wait_s = wait;
            r.jct_s = jct;
            r.pool = p.spec->name;
            r.gpu = p.spec->gpu;
            r.duration_factor = 1.0 / a.speed;
            r.workload_class = class_name(a);
            r.preemptions = a.preemptions;
            r.cost_usd = a.cost;
            sink_(r);
        }
        const int pi = a.pool;
        const std::vector<int> nodes = std::move(a.nodes);
        release_slot(s);
        --in_flight_;
        last_finish_ = engine_.now();
        for (int idx : nodes) idle_check(pi, idx);
        schedule();
        autoscale();
        maybe_stop();
    }

    // ---- the scheduling pass -------------------------------------------------------------
    void schedule() {
        bool blocked = false;
        Time shadow = sim::time_max;
        int shadow_pool = -1;
        int tried = 0;
        int largest = 0;  // largest_fit() while blocked
        for (auto it = queue_.begin(); it != queue_.end();) {
            // Nothing free anywhere: nothing starts, unless the head may preempt.
            if (busy_ >= ready_gpus_ && (blocked || !c_.priority_preemption)) break;
            const std::uint32_t s = it->slot;
            if (!blocked) {
                if (try_start(s, sim::time_max, -1) || (c_.priority_preemption && preempt_for(s))) {
                    it = queue_.erase(it);
                    continue;
                }
                blocked = true;
                if (!policy_->backfill()) break;
                reservation(s, shadow, shadow_pool);
                largest = largest_fit();
                ++it;
                continue;
            }
            if (++tried > backfill_max_jobs) break;
            // A job larger than any pool could place now cannot start: it is passed over without
            // looking at it (it still counts as tried). In a deep queue most of the jobs behind a
            // blocked head are such.
            if (it->q.gpus <= largest && try_start(s, shadow, shadow_pool)) {
                it = queue_.erase(it);
                largest = largest_fit();
                continue;
            }
            ++it;
        }
    }

    // The most GPUs one job could be given now in some pool, whatever its constraints: fit()
    // finds nodes for `g` GPUs in pool p exactly when g <= p's whole free nodes times its GPUs
    // per node, or, with no whole node free, g <= the most free GPUs of one node.
    int largest_fit() const {
        int most = 0;
        for (const PoolState& p : pools_) {
            const auto whole = p.by_free[static_cast<std::size_t>(p.gpn)].size();
            if (whole > 0) {
                const std::int64_t gpus = static_cast<std::int64_t>(whole) * p.gpn;
                most = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(most, gpus), std::numeric_limits<int>::max()));
                continue;
            }
            for (int f = p.gpn - 1; f > most; --f)
                if (!p.by_free[static_cast<std::size_t>(f)].empty()) {
                    most = f;
                    break;
                }
        }
        return most;
    }

    // ---- priority preemption -------------------------------------------------------------
    // GPU-seconds that job `s` would lose if interrupted now: its held time since its last
    // checkpoint (the restart it is paying included), times its GPUs.
    double lost_gpu_s(std::uint32_t s) const {
        const ActiveJob& a = jobs_[s];
        const double held = sim::to_seconds(engine_.now() - a.attempt_start);
        const double computing = held - sim::to_seconds(a.overhead);
        const double kept = computing > 0 ? std::floor(computing / c_.checkpoint_interval_s) * c_.checkpoint_interval_s : 0.0;
        return (held - kept) * a.per_node * static_cast<double>(a.nodes.size());
    }

    bool preemptible_for(std::uint32_t victim, const ActiveJob& head) const {
        const ActiveJob& v = jobs_[victim];
        return v.job.spot_ok && v.q.priority < head.q.priority;
    }

    // Frees room for the queue's head `s` by interrupting running preemptible jobs of lower
    // priority, the set that loses the fewest GPU-seconds of work over the pools it may use
    // (greedy within a pool: on one node, its cheapest victims first until the job fits; for a
    // gang, the nodes cheapest to empty), then starts it. False when no such set exists.
    bool preempt_for(std::uint32_t s) {
        const ActiveJob& a = jobs_[s];
        double best = std::numeric_limits<double>::infinity();
        int best_pool = -1;
        std::vector<std::uint32_t> best_victims;
        for (int pi : order_) {
            const PoolState& p = pools_[static_cast<std::size_t>(pi)];
            if (!allowed(a, p)) continue;
            std::vector<std::uint32_t> victims;
            const double lost = victims_in(a, p, victims);
            if (lost < best) {
                best = lost;
                best_pool = pi;
                best_victims = std::move(victims);
            }
        }
        if (best_pool < 0 || best_victims.empty()) return false;
        for (std::uint32_t v : best_victims) interrupt(v, true);
        for (std::uint32_t v : best_victims) {
            if (jobs_[v].preemptions > max_preemptions_per_job) give_up(v, "preempted too often");
            else enqueue(v);
        }
        PoolState& p = pools_[static_cast<std::size_t>(best_pool)];
        std::vector<int> nodes = fit(a, p);
        if (nodes.empty()) return false;  // cannot happen: the victims held the room
        start(s, best_pool, std::move(nodes));
        return true;
    }

    // The cheapest victims in pool `p` for job `a` (appended to `out`) and the GPU-seconds they
    // lose; infinity when the pool cannot make room.
    double victims_in(const ActiveJob& a, const PoolState& p, std::vector<std::uint32_t>& out) const {
        const double inf = std::numeric_limits<double>::infinity();
        const int g = a.job.gpus;
        if (g <= p.gpn) {
            double best = inf;
            for (std::size_t idx = 0; idx < p.nodes.size(); ++idx) {
                const Node& n = p.nodes[idx];
                if (n.state != NodeState::ready) continue;
                std::vector<std::pair<double, std::uint32_t>> cand;
                int room = n.free;
                for (std::uint32_t v : n.jobs)
                    if (preemptible_for(v, a)) cand.push_back({lost_gpu_s(v), v});
                std::sort(cand.begin(), cand.end());
                double lost = 0;
                std::vector<std::uint32_t> picked;
                for (const auto& [l, v] : cand) {
                    if (room >= g) break;
                    room += jobs_[v].per_node;
                    lost += l;
                    picked.push_back(v);
                }
                if (room >= g && !picked.empty() && lost < best) {
                    best = lost;
                    out = std::move(picked);
                }
            }
            return best;
        }
        // A gang: whole nodes, each emptied of all its jobs (all must be preemptible).
        const auto k = static_cast<std::size_t>((g + p.gpn - 1) / p.gpn);
        std::vector<std::pair<double, int>> nodes;  // (lost to empty it, node)
        for (std::size_t idx = 0; idx < p.nodes.size(); ++idx) {
            const Node& n = p.nodes[idx];
            if (n.state != NodeState::ready) continue;
            double lost = 0;
            bool ok = true;
            for (std::uint32_t v : n.jobs) {
                if (!preemptible_for(v, a)) {
                    ok = false;
                    break;
                }
                lost += lost_gpu_s(v);
            }
            if (ok) nodes.push_back({lost, static_cast<int>(idx)});
        }
        if (nodes.size() < k) return inf;
        std::sort(nodes.begin(), nodes.end());
        std::set<std::uint32_t> picked;
        for (std::size_t i = 0; i < k; ++i)
            for (std::uint32_t v : p.nodes[static_cast<std::size_t>(nodes[i].second)].jobs) picked.insert(v);
        double lost = 0;
        for (std::uint32_t v : picked) lost += lost_gpu_s(v);
        out.assign(picked.begin(), picked.end());
        return lost;
    }

    // The earliest time the blocked head could start by the estimates, and its pool.
    void reservation(std::uint32_t s, Time& shadow, int& shadow_pool) {
        const ActiveJob& a = jobs_[s];
        for (int pi : order_) {
            const PoolState& p = pools_[static_cast<std::size_t>(pi)];
            if (!allowed(a, p)) continue;
            const Time t = earliest(a, p);
            if (t < shadow) {
                shadow = t;
                shadow_pool = pi;
            }
        }
    }

    Time earliest(const ActiveJob& a, const PoolState& p) const {
        const int g = a.job.gpus;
        const bool gang = g > p.gpn;
        const auto k = static_cast<std::size_t>(gang ? (g + p.gpn - 1) / p.gpn : 1);
        std::unordered_map<int, int> free;  // nodes whose free GPUs change by the estimates
        std::size_t whole = p.by_free[static_cast<std::size_t>(p.gpn)].size();
        const auto fits_now = [&](int f) { return gang ? whole >= k : f >= g; };
        auto run = p.running.begin();
        auto prov = p.provisioning.begin();
        const Time now = engine_.now();
        while (run != p.running.end() || prov != p.provisioning.end()) {
            const bool take_run = prov == p.provisioning.end() ||
                                  (run != p.running.end() && std::max(run->first, now) <= prov->first);
            Time t;
            if (take_run) {
                t = std::max(run->first, now);
                const ActiveJob& r = jobs_[run->second];
                for (int idx : r.nodes) {
                    auto [f, fresh] = free.try_emplace(idx, p.nodes[static_cast<std::size_t>(idx)].free);
                    (void)fresh;
                    f->second += r.per_node;
                    if (f->second == p.gpn) ++whole;
                    if (fits_now(f->second)) return t;
                }
                ++run;
            } else {
                t = prov->first;
                ++whole;
                free[prov->second] = p.gpn;
                if (fits_now(p.gpn)) return t;
                ++prov;
            }
        }
        return sim::time_max;
    }

    // ---- nodes ---------------------------------------------------------------------------
    int new_node(PoolState& p) {
        int idx;
        if (!p.dead.empty()) {
            idx = p.dead.back();
            p.dead.pop_back();
            p.nodes[static_cast<std::size_t>(idx)] = Node{};
        } else {
            idx = static_cast<int>(p.nodes.size());
            p.nodes.emplace_back();
        }
        return idx;
    }

    void make_ready(int pi, int idx) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        n.state = NodeState::ready;
        n.free = p.gpn;
        n.ready_event = {};
        p.by_free[static_cast<std::size_t>(p.gpn)].insert(idx);
        ready_gpus_ += p.gpn;
        if (p.spec->kind == PoolKind::spot && p.spec->preempt_mean_h > 0) {
            const double dt = engine_.rng("spot").exponential(p.spec->preempt_mean_h * 3600.0);
            n.preempt_event = engine_.schedule_in(sim::ceil_seconds(std::min(dt, 1e9)),
                                                  [this, pi, idx] { preempt(pi, idx); }, ev_preempt,
                                                  static_cast<std::uint32_t>(idx));
        }
    }

    void provision(int pi) {
        account();
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        const int idx = new_node(p);
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        n.state = NodeState::provisioning;
        n.lease_start = engine_.now();
        n.ready_at = engine_.now() + sim::from_seconds(p.spec->startup_s);
        n.ready_event = engine_.schedule_at(n.ready_at, [this, pi, idx] { node_ready(pi, idx); }, ev_ready,
                                            static_cast<std::uint32_t>(idx));
        p.provisioning.insert({n.ready_at, idx});
        p.alive++;
        p.result.leases++;
        p.result.peak_nodes = std::max(p.result.peak_nodes, p.alive);
        held_ += p.gpn;
    }

    void node_ready(int pi, int idx) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        p.provisioning.erase({p.nodes[static_cast<std::size_t>(idx)].ready_at, idx});
        make_ready(pi, idx);
        schedule();
        idle_check(pi, idx);
        autoscale();
    }

    // An idle node of a scaled pool: release it when its idle time is up (config.hpp, Autoscaler).
    void idle_check(int pi, int idx) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        if (p.spec->kind == PoolKind::reserved || !p.spec->scalable() || n.state != NodeState::ready || !n.jobs.empty() ||
            n.release_event.valid())
            return;
        n.release_at = release_time(*p.spec, n.lease_start, engine_.now());
        n.release_event = engine_.schedule_at(n.release_at, [this, pi, idx] { release_idle(pi, idx); }, ev_release,
                                              static_cast<std::uint32_t>(idx));
    }

    Time release_time(const Pool& pool, Time lease_start, Time now) const {
        const auto& as = c_.autoscaler;
        const Time timeout = sim::from_seconds(as.idle_timeout_s);
        if (as.release == Release::timeout) return now + timeout;
        price::OnDemand od{units::UsdPerSecond{0}, units::seconds(pool.billing_increment_s),
                           units::seconds(pool.minimum_billed_s), 1};
        const double held = sim::to_seconds(now - lease_start);
        // Hourly-style billing: what is paid runs past the timeout; keep it to its end, no longer.
        const double paid = pool.billing_increment_s > as.idle_timeout_s
                                ? od.billed(units::seconds(held)).value
                                : od.billed(units::seconds(held + as.idle_timeout_s)).value;
        return std::max(now, lease_start + sim::from_seconds(paid));
    }

    void release_idle(int pi, int idx) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        n.release_event = {};
        n.release_at = -1;
        if (!n.jobs.empty() || p.alive <= p.spec->nodes) return;
        // An idle timeout shorter than the pool's start-up, the queue's head a gang this pool may
        // run, and more of its nodes starting: they were asked for together, so this one is kept
        // until they are up. Released, each node would go before the next arrived and the gang
        // would never start (the replay would run for ever). Checked again when the first of
        // them is ready. With a timeout longer than the start-up the nodes meet by themselves.
        if (c_.autoscaler.idle_timeout_s < p.spec->startup_s && !p.provisioning.empty() && !queue_.empty() &&
            gang_head_for(p)) {
            // One nanosecond after its ready time, so that the node is up when this runs again.
            n.release_at = std::max(engine_.now(), p.provisioning.begin()->first) + 1;
            n.release_event = engine_.schedule_at(n.release_at, [this, pi, idx] { release_idle(pi, idx); }, ev_release,
                                                  static_cast<std::uint32_t>(idx));
            return;
        }
        end_lease(pi, idx);
    }

    bool gang_head_for(const PoolState& p) const {
        const ActiveJob& head = jobs_[queue_.begin()->slot];
        return head.job.gpus > p.gpn && allowed(head, p);
    }

    void end_lease(int pi, int idx) {
        account();
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        bill(p, n.lease_start, engine_.now());
        if (n.state == NodeState::ready) {
            p.by_free[static_cast<std::size_t>(n.free)].erase(idx);
            ready_gpus_ -= p.gpn;
        } else if (n.state == NodeState::provisioning) {
            p.provisioning.erase({n.ready_at, idx});
            if (n.ready_event.valid()) engine_.cancel(n.ready_event);
        }
        if (n.preempt_event.valid()) engine_.cancel(n.preempt_event);
        if (n.release_event.valid()) engine_.cancel(n.release_event);
        n = Node{};
        p.alive--;
        held_ -= p.gpn;
        p.dead.push_back(idx);
    }

    // One lease of [start, end): its billed seconds (increments and minimum), each at the price
    // in force during it. AWS: "You pay the Spot price that's in effect, billed to the nearest
    // second" (AWS whitepaper "Overview of Amazon EC2 Spot Instances", How Spot Instances Work,
    // read 2026-12-02). Billed seconds past the release (the minimum, the rest of an increment)
    // are priced as if the node were still held.
    void bill(PoolState& p, Time start, Time end) {
        const Pool& spec = *p.spec;
        const price::OnDemand od{units::UsdPerSecond{0}, units::seconds(spec.billing_increment_s),
                                 units::seconds(spec.minimum_billed_s), 1};
        const double billed = od.billed(units::seconds(sim::to_seconds(end - start))).value;
        p.billed_s += billed;
        p.priced_s += spec.priced_seconds(sim::to_seconds(start), billed);
    }

    // ---- spot ----------------------------------------------------------------------------
    void preempt(int pi, int idx) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        Node& n = p.nodes[static_cast<std::size_t>(idx)];
        n.preempt_event = {};
        if (n.state != NodeState::ready) return;
        p.result.preemptions++;
        const std::vector<std::uint32_t> victims = n.jobs;
        for (std::uint32_t s : victims) interrupt(s, false);
        end_lease(pi, idx);
        // The pool's floor is kept: a reclaimed node below it is replaced (after its start-up).
        while (p.alive < p.spec->nodes) provision(pi);
        for (std::uint32_t s : victims) {
            if (jobs_[s].preemptions > max_preemptions_per_job) give_up(s, "preempted too often");
            else enqueue(s);
        }
        // The victims' other nodes are free now.
        schedule();
        autoscale();
        maybe_stop();
    }

    // Interrupts running job `s`: by a spot reclaim, or for a higher-priority job.
    void interrupt(std::uint32_t s, bool for_priority) {
        ActiveJob& a = jobs_[s];
        if (a.end_event.valid()) engine_.cancel(a.end_event);
        a.end_event = {};
        const int pi = a.pool;
        vacate(s);
        // Work since the last checkpoint is lost; checkpoints every interval of computing time.
        const double computing = sim::to_seconds(engine_.now() - a.attempt_start - a.overhead);
        if (computing > 0) {
            const double interval = c_.checkpoint_interval_s;
            const double kept = std::floor(computing / interval) * interval;
            const double work = std::min(a.work_s, kept * a.speed);
            useful_gpu_s_ += work / a.speed * a.job.gpus;
            a.work_s -= work;
        }
        ++a.preemptions;
        ++(for_priority ? result_.priority_preemptions : result_.preemptions);
        a.restart = true;
        std::vector<int> nodes = std::move(a.nodes);
        a.nodes.clear();
        for (int idx : nodes) idle_check(pi, idx);
    }

    void give_up(std::uint32_t s, std::string_view reason) {
        ActiveJob& a = jobs_[s];
        ++result_.gave_up;
        waiting_.erase({a.q.submit_s, a.q.order});
        if (sink_) {
            JobRecord r;
            r.job = &a.job;
            r.status = "gave up";
            r.reason = reason;
            if (a.first_start >= 0) {
                r.start_s = sim::to_seconds(a.first_start);
                r.wait_s = sim::to_seconds(a.first_start - a.submit);
            }
            if (a.pool >= 0) {
                r.pool = pools_[static_cast<std::size_t>(a.pool)].spec->name;
                r.gpu = pools_[static_cast<std::size_t>(a.pool)].spec->gpu;
                r.duration_factor = 1.0 / a.speed;
            }
            r.workload_class = class_name(a);
            r.preemptions = a.preemptions;
            r.cost_usd = a.cost;
            sink_(r);
        }
        release_slot(s);
        --in_flight_;
    }

    // A recorded spot trace, replayed in a loop: each removal reclaims each ready node of the
    // pool with probability 1 / the trace's nodes alive before it.
    void schedule_trace(int pi) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        const auto& tr = *p.spec->spot_trace;
        // Skip additions: only removals matter here.
        while (true) {
            if (p.trace_next >= tr.events.size()) {
                p.trace_next = 0;
                p.trace_offset_s += std::max(tr.span.value, 1.0);
            }
            if (!tr.events[p.trace_next].add) break;
            ++p.trace_next;
            if (p.trace_next >= tr.events.size() && tr.removals() == 0) return;
        }
        const double t = p.trace_offset_s + tr.events[p.trace_next].time.value;
        engine_.schedule_at(std::max(engine_.now(), sim::from_seconds(t)), [this, pi] { trace_removal(pi); }, ev_trace,
                            static_cast<std::uint32_t>(pi));
    }

    void trace_removal(int pi) {
        PoolState& p = pools_[static_cast<std::size_t>(pi)];
        const auto& e = p.spec->spot_trace->events[p.trace_next];
        ++p.trace_next;
        const double prob = 1.0 / std::max(1, e.alive_before);
        std::vector<int> hit;
        auto& rng = engine_.rng("spot-trace");
        for (std::size_t i = 0; i < p.nodes.size(); ++i)
            if (p.nodes[i].state == NodeState::ready && rng.uniform() < prob) hit.push_back(static_cast<int>(i));
        for (int idx : hit) preempt(pi, idx);
        if (stuck()) abandon_queue();
        if (!stopped_) schedule_trace(pi);
    }

    // ---- the autoscaler ------------------------------------------------------------------
    void arm_wake(Time t) {
        if (wake_.valid() && wake_at_ <= t) return;
        if (wake_.valid()) engine_.cancel(wake_);
        wake_at_ = t;
        wake_ = engine_.schedule_at(t, [this] {
            wake_ = {};
            autoscale();
        }, ev_wake);
    }

    void autoscale() {
        if (!has_scalable_ || queue_.empty() || stopped_) return;
        const Time now = engine_.now();
        const Time oldest = sim::from_seconds(waiting_.empty() ? now_s() : waiting_.begin()->first);
        const bool by_length = c_.autoscaler.queue_length > 0 &&
                               queue_.size() >= static_cast<std::size_t>(c_.autoscaler.queue_length);
        const bool by_wait = now - oldest >= wait_threshold_;
        if (!by_length && !by_wait) {
            arm_wake(oldest + wait_threshold_);
            return;
        }
        if (now < next_scan_) {
            arm_wake(next_scan_);
            return;
        }
        next_scan_ = now + scan_;
        // Capacity the queued jobs can count on: free GPUs of ready nodes, nodes on their way, and
        // room below max_nodes, per pool, as counts of nodes by free GPUs.
        std::vector<std::vector<int>> hist(pools_.size());
        std::vector<int> room(pools_.size()), add(pools_.size());
        int room_left = 0;  // nodes all pools may still add
        for (std::size_t i = 0; i < pools_.size(); ++i) {
            const PoolState& p = pools_[i];
            hist[i].resize(static_cast<std::size_t>(p.gpn) + 1);
            for (int f = 0; f <= p.gpn; ++f) hist[i][static_cast<std::size_t>(f)] = static_cast<int>(p.by_free[static_cast<std::size_t>(f)].size());
            hist[i][static_cast<std::size_t>(p.gpn)] += static_cast<int>(p.provisioning.size());
            room[i] = p.spec->scalable() ? p.spec->max_nodes - p.alive : 0;
            room_left += std::max(0, room[i]);
        }
        // The scan only decides what to add: once no pool has room left, the rest of it can add
        // nothing, so it stops there (a deep queue on pools at max_nodes would otherwise be walked
        // a thousand jobs deep every scan interval, for nothing).
        int scanned = 0;
        for (const QueueKey& key : queue_) {
            if (room_left == 0 || ++scanned > autoscaler_max_jobs) break;
            const ActiveJob& a = jobs_[key.slot];
            if (!by_length && now - a.submit < wait_threshold_) continue;
            const int g = a.job.gpus;
            bool placed = false;
            for (int pi : order_) {
                const auto i = static_cast<std::size_t>(pi);
                const PoolState& p = pools_[i];
                if (!allowed(a, p)) continue;
                auto& h = hist[i];
                if (g <= p.gpn) {
                    for (int f = g; f <= p.gpn && !placed; ++f)
                        if (h[static_cast<std::size_t>(f)] > 0) {
                            --h[static_cast<std::size_t>(f)];
                            ++h[static_cast<std::size_t>(f - g)];
                            placed = true;
                        }
                    if (!placed && room[i] > 0) {
                        --room[i];
                        --room_left;
                        ++add[i];
                        ++h[static_cast<std::size_t>(p.gpn - g)];
                        placed = true;
                    }
                } else {
                    const int k = (g + p.gpn - 1) / p.gpn;
                    const int have = h[static_cast<std::size_t>(p.gpn)];
                    if (have >= k) {
                        h[static_cast<std::size_t>(p.gpn)] -= k;
                        placed = true;
                    } else if (room[i] >= k - have) {
                        room[i] -= k - have;
                        room_left -= k - have;
                        add[i] += k - have;
                        h[static_cast<std::size_t>(p.gpn)] = 0;
                        placed = true;
                    }
                }
                if (placed) break;
            }
        }
        for (std::size_t i = 0; i < pools_.size(); ++i)
            for (int n = 0; n < add[i]; ++n) provision(static_cast<int>(i));
        if (stuck()) {
            abandon_queue();
            return;
        }
        arm_wake(next_scan_);
    }

    // ---- the end -------------------------------------------------------------------------
    // Nothing runs, nothing is on its way and no job is left to arrive: the queued jobs can
    // never start (a spot-only job whose nodes were all reclaimed, say). Gives them up.
    bool stuck() const {
        if (!reader_done_ || busy_ > 0 || queue_.empty()) return false;
        for (const auto& p : pools_)
            if (!p.provisioning.empty()) return false;
        return true;
    }

    void abandon_queue() {
        std::vector<std::uint32_t> slots;
        for (const QueueKey& k : queue_) slots.push_back(k.slot);
        queue_.clear();
        for (std::uint32_t s : slots) give_up(s, "no pool can start it: nothing runs and no node is coming");
        maybe_stop();
    }

    void maybe_stop() {
        if (reader_done_ && in_flight_ == 0 && !stopped_) {
            stopped_ = true;
            engine_.stop();
        }
    }

    // GPU-seconds held and busy, into the utilisation rows.
    void account() {
        const Time now = engine_.now();
        while (last_ < now) {
            const Time bin_end = (bin_index_ + 1) * bin_;
            const Time upto = std::min(now, bin_end);
            const double dt = sim::to_seconds(upto - last_);
            bin_busy_ += busy_ * dt;
            bin_held_ += held_ * dt;
            total_busy_ += busy_ * dt;
            total_held_ += held_ * dt;
            last_ = upto;
            if (upto == bin_end) emit_row(sim::to_seconds(bin_));
        }
    }

    void emit_row(double width_s) {
        UtilizationRow r;
        r.start_s = sim::to_seconds(bin_index_ * bin_);
        r.held_gpus = bin_held_ / width_s;
        r.busy_gpus = bin_busy_ / width_s;
        result_.utilization.push_back(r);
        ++bin_index_;
        bin_busy_ = bin_held_ = 0;
    }

    ClusterResult finish() {
        const Time end = last_finish_;
        // The run ends at the last finish: account up to it (events after it are bookkeeping).
        if (engine_.now() < end) engine_.run_until(end);
        account();
        if (last_ > bin_index_ * bin_) emit_row(sim::to_seconds(last_ - bin_index_ * bin_));
        result_.makespan_s = sim::to_seconds(end);
        for (std::size_t i = 0; i < pools_.size(); ++i) {
            PoolState& p = pools_[i];
            const Pool& spec = *p.spec;
            if (spec.kind == PoolKind::reserved) {
                p.billed_s = spec.nodes * result_.makespan_s;
                p.priced_s = p.billed_s;
            } else {
                // Nodes still held: billed to their pending release (idle ones), else to now.
                for (std::size_t idx = 0; idx < p.nodes.size(); ++idx) {
                    Node& n = p.nodes[idx];
                    if (n.state == NodeState::gone) continue;
                    const Time until = n.release_at >= 0 ? n.release_at : engine_.now();
                    bill(p, n.lease_start, std::max(until, n.lease_start));
                }
            }
            p.result.billed_node_hours = p.billed_s / 3600.0;
            p.result.cost_usd = p.priced_s / 3600.0 * spec.usd_per_node_hour;
            result_.cost_usd += p.result.cost_usd;
            result_.pools.push_back(p.result);
        }
        result_.wait_s = summary(waits_);
        result_.jct_s = summary(jcts_);
        result_.gpu_utilization = total_held_ > 0 ? total_busy_ / total_held_ : 0.0;
        result_.useful_gpu_hours = useful_gpu_s_ / 3600.0;
        result_.cost_per_useful_gpu_hour = useful_gpu_s_ > 0 ? result_.cost_usd / result_.useful_gpu_hours : 0.0;
        result_.utilization_interval_s = sim::to_seconds(bin_);
        result_.fingerprint = engine_.fingerprint();
        assumptions();
        return std::move(result_);
    }

    static Summary summary(const QuantileSketch& q) {
        return {q.mean(), q.quantile(0.50), q.quantile(0.95), q.quantile(0.99), q.max()};
    }

    void assumptions() {
        auto& a = result_.assumptions;
        if (classes_.enabled()) {
            a.push_back("durations by workload class: recorded duration x step time of the class on the pool's "
                        "instance / on the recorded GPU, at the job's GPU count (rentsim's step model, as `rentsim run`)");
            for (const auto& [key, count] : class_counts_)
                a.push_back(fmt::format("{} job{}: {}", count, count == 1 ? "" : "s", key));
        }
        if (c_.trace_gpu.empty() && c_.gpu_type_map.empty())
            a.push_back("durations as recorded on every pool (no trace_gpu: the recorded GPU is unknown)");
        else
            a.push_back(fmt::format("durations recorded on {} (or the job's recorded GPU type), rescaled on other GPUs by "
                                    "the ratio of their dense 16-bit tensor peaks (GPU catalog){}",
                                    c_.trace_gpu.empty() ? "the job's recorded GPU type" : c_.trace_gpu,
                                    classes_.enabled() ? " for jobs of no class" : "; the job's workload class is not used"));
        a.push_back(fmt::format("a preempted job loses the work since its last checkpoint (every {:g} s of computing) and "
                                "restarts after {:g} s", c_.checkpoint_interval_s, c_.restart_s));
        a.push_back("reserved pools are billed for every node over the whole replay (to the last finish)");
        for (const auto& p : c_.pools) {
            const SpotPrice& sp = p.spot_price;
            if (!sp.series) continue;
            const std::string at = fmt::format("the replay's time 0 (the trace's first submission) is {} of the history{}",
                                               sp.history->start,
                                               sp.offset_s > 0 ? fmt::format(" plus {:g} s", sp.offset_s) : "");
            if (sp.relative)
                a.push_back(fmt::format("spot pool '{}' pays its catalog price ({:.4f} USD/node-hour) times the {} {} spot "
                                        "price over its mean ({:.4f} USD/h) in force each billed second; {}; the last "
                                        "price holds after the history's end",
                                        p.name, p.usd_per_node_hour, sp.history->instance, sp.series->zone,
                                        sp.mean_usd_per_hour, at));
            else
                a.push_back(fmt::format("spot pool '{}' pays the recorded {} {} spot price in force each billed second "
                                        "(history {}, mean {:.4f} USD/h); {}; the last price holds after the history's end",
                                        p.name, sp.history->instance, sp.series->zone, sp.history->name,
                                        sp.mean_usd_per_hour, at));
        }
        a.push_back("a job's cost share is its GPUs' held time at its pool's price; idle capacity is in the pools' cost only");
        a.push_back(fmt::format("scheduler estimates: {}", c_.estimate == DurationEstimate::recorded
                                                               ? "the recorded durations (an oracle)"
                                                               : "the mean recorded duration of the user's finished jobs"));
    }

    const ClusterConfig& c_;
    jobs::JobReader& reader_;
    const JobSink& sink_;
    const Policy* policy_;
    sim::Engine engine_;
    std::vector<PoolState> pools_;
    std::vector<int> order_;
    std::vector<ActiveJob> jobs_;
    std::vector<std::uint32_t> free_slots_;
    std::set<QueueKey, Cmp> queue_;
    std::set<std::pair<double, std::uint64_t>> waiting_;  // (submit_s, order) of queued jobs
    std::optional<jobs::Job> pending_;
    std::unordered_map<std::string, std::string> label_gpu_;
    ClassDurations classes_;
    std::map<std::string, std::int64_t> class_counts_;  // jobs by class and source, for the assumptions
    std::unordered_map<std::string, std::pair<double, std::int64_t>> users_;
    double done_sum_ = 0;
    std::int64_t done_count_ = 0;
    bool has_scalable_ = false, reader_done_ = false, stopped_ = false;
    std::uint64_t next_order_ = 0;
    std::int64_t in_flight_ = 0;
    int busy_ = 0, held_ = 0, ready_gpus_ = 0;
    Time wait_threshold_ = 0, scan_ = 0, next_scan_ = 0, wake_at_ = 0, last_finish_ = 0;
    sim::EventId wake_;
    Time bin_ = 0, last_ = 0;
    std::int64_t bin_index_ = 0;
    double bin_busy_ = 0, bin_held_ = 0, total_busy_ = 0, total_held_ = 0;
    double useful_gpu_s_ = 0;
    QuantileSketch waits_, jcts_;
    ClusterResult result_;
};

}  // namespace

ClusterResult simulate_cluster(const ClusterConfig& config, jobs::JobReader& reader, const JobSink& sink) {
    Simulation sim(config, reader, sink);
    return sim.run();
}

}  // namespace rentsim::capacity
