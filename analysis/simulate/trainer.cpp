#include "analysis/simulate/trainer.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/activity.hpp"
#include "sim/link.hpp"
#include "sim/resource.hpp"

namespace rentsim::analysis {

namespace {

// Event kinds in the fingerprint.
enum Kind : std::uint32_t { k_batch_built = 1, k_micro_step = 2, k_step_done = 3, k_flow = 4 };

// Beyond this many simulated steps without an exact repeat, the last window is taken as
// the period (reported: Timeline::period_exact).
constexpr std::int64_t max_simulated_steps = 20000;

// Stages of a worker's batch with storage stages enabled.
enum class Stage : std::int64_t { idle, slot_wait, fetch, cpu_wait, decode, h2d };

class TrainingSim {
public:
    TrainingSim(const TrainingPlan& plan, std::uint64_t seed, sim::Observer* obs, StepRecording* rec)
        : plan_(plan), rec_(rec), engine_(seed), comm_(engine_, 1), graph_(engine_),
          slots_(engine_, static_cast<std::uint32_t>(std::max(1, plan.stages.source_slots))),
          cores_(engine_, static_cast<std::uint32_t>(std::max(1, plan.stages.cpu_cores))),
          net_(engine_, k_flow) {
        if (obs) engine_.add_observer(*obs);
        const auto w = static_cast<std::size_t>(plan.workers);
        ready_.assign(w, 0);
        busy_.assign(w, false);
        finish_.assign(w, 0);
        workers_.assign(w, WorkerState{});
        if (rec_) {
            rec_started_.assign(w, 0);
            rec_build_batch_.assign(w, -1);
            rec_build_start_.assign(w, 0);
            rec_stage_start_.assign(w, 0);
        }
        if (plan_.stages.enabled) {
            const auto& st = plan_.stages;
            if (st.source_bytes_per_s <= 0 || (st.h2d_bytes > 0 && st.h2d_bytes_per_s <= 0))
                throw std::invalid_argument("storage stages need positive bandwidths");
            fetch_path_.push_back(net_.add_link(st.source_bytes_per_s));
            if (st.ingress_bytes_per_s > 0) fetch_path_.push_back(net_.add_link(st.ingress_bytes_per_s));
            if (st.h2d_bytes > 0) pcie_path_.push_back(net_.add_link(st.h2d_bytes_per_s));
        }
        single_regime_ = !plan_.stages.enabled || plan_.epoch_batches <= 0 ||
                         (plan_.stages.cold_bytes == plan_.stages.warm_bytes &&
                          plan_.stages.cold_latency == plan_.stages.warm_latency) ||
                         plan_.iterations * plan_.micro_steps <= plan_.epoch_batches;
        if (plan_.epoch_batches > 0) {
            const std::int64_t batches = plan_.iterations * plan_.micro_steps;
            epoch_count_ = (batches + plan_.epoch_batches - 1) / plan_.epoch_batches;
            if (epoch_count_ > max_reported_epochs) epoch_count_ = 0;
        }
        build_graph();
    }

    Timeline run() {
        for (int w = 0; w < plan_.workers; ++w) start_build(w);
        start_step();
        engine_.run();
        return finish();
    }

private:
    static constexpr std::int64_t max_reported_epochs = 10000;

    struct WorkerState {
        Stage stage = Stage::idle;
        std::int64_t started = 0;     // batches this worker has started
        std::int64_t batch = -1;      // index of the batch in progress
        sim::Time until = 0;          // end of the decode, or join time of the fetch flow
        std::uint64_t ticket = 0;     // order of its wait for a slot or a core
        std::uint64_t flow_order = 0; // start order of its flow
        sim::FlowId flow;
    };

    void build_graph() {
        if (plan_.bucket_bwd.empty() || plan_.bucket_bwd.size() != plan_.bucket_comm.size())
            throw std::invalid_argument("training plan needs one all-reduce per gradient bucket");
        auto prev = graph_.add_delay("forward", plan_.last_fwd);
        forward_ = prev;
        if (plan_.pipeline_bubble > 0) {
            auto bubble = graph_.add_delay("pipeline-bubble", plan_.pipeline_bubble);
            graph_.precede(bubble, prev);
            bubble_ = bubble;
        }
        std::vector<sim::ActivityGraph::Handle> comms;
        for (std::size_t b = 0; b < plan_.bucket_bwd.size(); ++b) {
            auto bwd = graph_.add_delay("backward." + std::to_string(b), plan_.bucket_bwd[b]);
            graph_.precede(prev, bwd);
            auto ar = graph_.add_resource_use("all-reduce." + std::to_string(b), comm_, plan_.bucket_comm[b]);
            graph_.precede(bwd, ar);
            comms.push_back(ar);
            backwards_.push_back(bwd);
            prev = bwd;
        }
        auto opt = graph_.add_delay("optimizer", plan_.optimizer + plan_.step_overhead + plan_.rollout);
        graph_.precede(prev, opt);
        for (auto c : comms) graph_.precede(c, opt);
        comms_ = comms;
        optimizer_ = opt;
    }

    // ---- input pipeline -------------------------------------------------------------
    void start_build(int w) {
        const auto i = static_cast<std::size_t>(w);
        busy_[i] = true;
        if (rec_) {
            rec_build_start_[i] = engine_.now();
            rec_build_batch_[i] = rec_started_[i]++ * plan_.workers + w;
        }
        if (plan_.stages.enabled) return start_fetch(w);
        finish_[i] = engine_.now() + plan_.batch_build;
        engine_.schedule_in(plan_.batch_build, [this, w] { on_built(w); }, k_batch_built, static_cast<std::uint32_t>(w));
    }

    bool warm(std::int64_t batch) const { return plan_.epoch_batches > 0 && batch >= plan_.epoch_batches; }

    // Storage stages: fetch -> decode -> host-to-device copy -> built.
    void start_fetch(int w) {
        auto& s = workers_[static_cast<std::size_t>(w)];
        s.batch = s.started * plan_.workers + w;
        ++s.started;
        const bool hot = warm(s.batch);
        const double bytes = hot ? plan_.stages.warm_bytes : plan_.stages.cold_bytes;
        const sim::Time latency = hot ? plan_.stages.warm_latency : plan_.stages.cold_latency;
        if (bytes <= 0 && latency <= 0) return start_decode(w);
        s.stage = Stage::slot_wait;
        s.ticket = ++tickets_;
        slots_.request([this, w, bytes, latency] {
            auto& st = workers_[static_cast<std::size_t>(w)];
            st.stage = Stage::fetch;
            st.until = engine_.now() + latency;
            if (rec_) rec_stage_start_[static_cast<std::size_t>(w)] = engine_.now();
            st.flow_order = ++flow_orders_;
            st.flow = net_.start_flow(fetch_path_, bytes, [this, w] {
                if (rec_) record_loader(StepActivity::fetch, w);
                slots_.release();
                start_decode(w);
            }, latency);
        });
    }

    void start_decode(int w) {
        auto& s = workers_[static_cast<std::size_t>(w)];
        s.stage = Stage::cpu_wait;
        s.ticket = ++tickets_;
        cores_.request([this, w] {
            auto& st = workers_[static_cast<std::size_t>(w)];
            st.stage = Stage::decode;
            st.until = engine_.now() + plan_.batch_build;
            if (rec_) rec_stage_start_[static_cast<std::size_t>(w)] = engine_.now();
            engine_.schedule_in(plan_.batch_build, [this, w] {
                if (rec_) record_loader(StepActivity::decode, w);
                cores_.release();
                start_h2d(w);
            }, k_batch_built, static_cast<std::uint32_t>(w));
        });
    }

    void start_h2d(int w) {
        auto& s = workers_[static_cast<std::size_t>(w)];
        if (pcie_path_.empty()) {
            s.stage = Stage::idle;
            return on_built(w);
        }
        s.stage = Stage::h2d;
        s.flow_order = ++flow_orders_;
        if (rec_) rec_stage_start_[static_cast<std::size_t>(w)] = engine_.now();
        s.flow = net_.start_flow(pcie_path_, plan_.stages.h2d_bytes, [this, w] {
            if (rec_) record_loader(StepActivity::copy, w);
            workers_[static_cast<std::size_t>(w)].stage = Stage::idle;
            on_built(w);
        });
    }

    void on_built(int w) {
        const auto i = static_cast<std::size_t>(w);
        if (rec_) record({StepActivity::batch, w, -1, rec_build_batch_[i], rec_build_start_[i], engine_.now()}, -1);
        busy_[i] = false;
        ++ready_[i];
        if (ready_[i] < plan_.prefetch_factor) start_build(w);
        if (waiting_ && next_worker() == w) {
            waiting_ = false;
            stall_ += engine_.now() - wait_start_;
            take(w);
            if (rec_) record({StepActivity::input_wait, -1, -1, rec_consumed_, wait_start_, engine_.now()}, step_);
            on_batch();
        }
    }

    int next_worker() const { return static_cast<int>(next_batch_ % plan_.workers); }

    void take(int w) {
        const auto i = static_cast<std::size_t>(w);
        --ready_[i];
        if (rec_) rec_consumed_ = next_batch_;
        ++next_batch_;
        if (!busy_[i]) start_build(w);  // the consumed slot is handed a new batch index
    }

    void request_batch() {
        if (plan_.workers == 0) return on_batch();
        const int w = next_worker();
        if (ready_[static_cast<std::size_t>(w)] > 0) {
            take(w);
            on_batch();
        } else {
            waiting_ = true;
            wait_start_ = engine_.now();
        }
    }

    // ---- steps ------------------------------------------------------------------------
    void on_batch() {
        if (micro_ + 1 < plan_.micro_steps) {
            if (rec_)
                record({StepActivity::micro_batch, -1, micro_, rec_consumed_, engine_.now(), engine_.now() + plan_.micro_fwd_bwd},
                       step_);
            engine_.schedule_in(plan_.micro_fwd_bwd, [this] {
                ++micro_;
                request_batch();
            }, k_micro_step);
        } else {
            rec_last_batch_ = rec_consumed_;
            graph_.start([this](sim::Time) { on_step_done(); });
        }
    }

    void on_step_done() {
        if (rec_) record_graph();
        ++step_;
        engine_.schedule_in(0, [this] { start_step(); }, k_step_done);
    }

    std::vector<std::int64_t> signature() const {
        std::vector<std::int64_t> sig;
        const int w0 = plan_.workers ? next_worker() : 0;
        std::uint64_t min_ticket = ~std::uint64_t{0}, min_flow = ~std::uint64_t{0};
        for (const auto& s : workers_) {
            if (s.stage == Stage::slot_wait || s.stage == Stage::cpu_wait) min_ticket = std::min(min_ticket, s.ticket);
            if (s.stage == Stage::fetch || s.stage == Stage::h2d) min_flow = std::min(min_flow, s.flow_order);
        }
        for (int k = 0; k < plan_.workers; ++k) {
            const auto i = static_cast<std::size_t>((w0 + k) % plan_.workers);
            sig.push_back(ready_[i]);
            if (!plan_.stages.enabled) {
                sig.push_back(busy_[i] ? finish_[i] - engine_.now() : -1);
                continue;
            }
            const auto& s = workers_[i];
            sig.push_back(static_cast<std::int64_t>(s.stage));
            switch (s.stage) {
                case Stage::idle: break;
                case Stage::slot_wait:
                case Stage::cpu_wait: sig.push_back(static_cast<std::int64_t>(s.ticket - min_ticket)); break;
                case Stage::decode: sig.push_back(s.until - engine_.now()); break;
                case Stage::fetch:
                case Stage::h2d:
                    sig.push_back(static_cast<std::int64_t>(s.flow_order - min_flow));
                    if (s.stage == Stage::fetch && s.until > engine_.now()) sig.push_back(s.until - engine_.now());
                    else sig.push_back(std::bit_cast<std::int64_t>(net_.remaining(s.flow)));
                    break;
            }
        }
        return sig;
    }

    // The regime of the pipeline at a step boundary: 0 cold, 1 warm, -1 mixed (a batch of
    // each kind in progress or next), when the periodic state cannot be trusted.
    int regime() const {
        int r = -2;
        for (std::size_t w = 0; w < workers_.size(); ++w) {
            const auto& s = workers_[w];
            const std::int64_t next = s.started * plan_.workers + static_cast<std::int64_t>(w);
            for (std::int64_t b : {s.stage == Stage::idle ? next : s.batch, next}) {
                const int c = warm(b) ? 1 : 0;
                if (r == -2) r = c;
                else if (r != c) return -1;
            }
        }
        return r < 0 ? 0 : r;
    }

    sim::Time vnow() const { return engine_.now() + time_offset_; }

    void start_step() {
        if (rec_) next_recorded_step();
        const sim::Time now = vnow(), stall = stall_ + stall_offset_;
        starts_.push_back(now);
        stalls_.push_back(stall);
        while (next_epoch_ < epoch_count_ && step_ >= epoch_start_step(next_epoch_)) {
            marks_.push_back({now, stall});
            ++next_epoch_;
        }
        if (step_ == plan_.iterations) return engine_.stop();
        if (plan_.fast_forward && single_regime_) {
            if (detect_final()) return;
        } else if (plan_.fast_forward) {
            const int r = regime();
            if (r == 1) {
                if (!warm_started_) {
                    // The warm regime's window starts here: periods never span the cold epoch.
                    warm_started_ = true;
                    seen_.clear();
                    base_step_ = step_;
                    starts_.assign(1, now);
                    stalls_.assign(1, stall);
                }
                if (detect_final()) return;
            } else if (r == 0 && !cold_done_) {
                auto [it, fresh] = seen_.try_emplace(signature(), step_);
                if (!fresh) {
                    skip_cold(it->second);
                } else if (step_ - base_step_ >= max_simulated_steps) {
                    exact_ = false;
                    skip_cold(step_ - 1000);
                }
            }
        }
        micro_ = 0;
        request_batch();
    }

    // The last regime: on a repeat, stop and let finish() extrapolate to the end.
    bool detect_final() {
        auto [it, fresh] = seen_.try_emplace(signature(), step_);
        if (!fresh) {
            period_start_ = it->second;
            engine_.stop();
            return true;
        }
        if (step_ - base_step_ >= max_simulated_steps) {
            period_start_ = step_ - 1000;
            exact_ = false;
            engine_.stop();
            return true;
        }
        return false;
    }

    // The cold epoch repeats from step j: skip whole periods in place, as long as every
    // batch built meanwhile stays in the first epoch and workers keep their roles.
    void skip_cold(std::int64_t j) {
        cold_done_ = true;
        const std::int64_t p = step_ - j;
        const std::int64_t per_period = p * plan_.micro_steps;
        const std::int64_t unit = plan_.workers / std::gcd(per_period, static_cast<std::int64_t>(plan_.workers));
        std::int64_t max_next = 0;
        for (std::size_t w = 0; w < workers_.size(); ++w)
            max_next = std::max(max_next, workers_[w].started * plan_.workers + static_cast<std::int64_t>(w));
        std::int64_t n = (plan_.epoch_batches - max_next) / per_period;
        n = std::min(n, (plan_.iterations - step_ - 1) / p);
        n -= n % unit;
        if (n < 1) return;
        const auto at = [this](std::int64_t i) { return starts_[static_cast<std::size_t>(i - base_step_)]; };
        const auto stall_at = [this](std::int64_t i) { return stalls_[static_cast<std::size_t>(i - base_step_)]; };
        time_offset_ += n * (at(step_) - at(j));
        stall_offset_ += n * (stall_at(step_) - stall_at(j));
        step_ += n * p;
        next_batch_ += n * per_period;
        for (auto& s : workers_) {
            s.started += n * per_period / plan_.workers;
            if (s.stage != Stage::idle) s.batch += n * per_period;
        }
        base_step_ = step_;
        starts_.assign(1, vnow());
        stalls_.assign(1, stall_ + stall_offset_);
        skipped_steps_ += n * p;
        if (rec_) {
            // Batch indices moved on by the skipped periods: those built and not yet consumed,
            // those in progress, and each worker's next.
            const std::int64_t shift = n * per_period;
            for (auto& sp : rec_spans_)
                if (sp.step < 0 && sp.span.batch >= next_batch_ - shift) sp.span.batch += shift;
            rec_prev_first_batch_ += shift;
            rec_cur_first_batch_ += shift;
            for (std::size_t w = 0; w < rec_started_.size(); ++w) {
                rec_started_[w] += shift / plan_.workers;
                if (busy_[w]) rec_build_batch_[w] += shift;
            }
        }
    }

    std::int64_t epoch_start_step(std::int64_t e) const {
        return (e * plan_.epoch_batches + plan_.micro_steps - 1) / plan_.micro_steps;
    }

    Timeline finish() {
        if (rec_) finish_recording();
        Timeline t;
        t.events = engine_.events_executed();
        t.fingerprint = engine_.fingerprint();
        t.simulated_iterations = step_ - skipped_steps_;
        const sim::Time compute = static_cast<sim::Time>(plan_.micro_steps - 1) * plan_.micro_fwd_bwd +
                                  plan_.last_fwd + sum(plan_.bucket_bwd) + plan_.optimizer + plan_.step_overhead -
                                  static_cast<sim::Time>(plan_.micro_steps) * plan_.micro_comm;
        const auto at = [this](std::int64_t i) { return starts_[static_cast<std::size_t>(i - base_step_)]; };
        const auto stall_at = [this](std::int64_t i) { return stalls_[static_cast<std::size_t>(i - base_step_)]; };
        std::int64_t j, p;
        // Start time (or cumulative stall) of step k >= step_, by periodicity from [j, step_).
        auto extrapolate = [&](std::int64_t k, bool stall) {
            const auto& v = stall ? stalls_ : starts_;
            const auto f = [&](std::int64_t i) { return v[static_cast<std::size_t>(i - base_step_)]; };
            if (k <= step_) return f(k);
            const std::int64_t n = (k - step_) / p, r = (k - step_) % p;
            return f(step_) + n * (f(step_) - f(j)) + (f(j + r) - f(j));
        };
        if (period_start_ >= 0) {
            j = period_start_;
            p = step_ - j;
            t.total = extrapolate(plan_.iterations, false);
            t.total_input_stall = extrapolate(plan_.iterations, true);
            t.period = p;
        } else {
            // Ran to the end without a repeat: the steady state is the mean over the later
            // half of the last simulated window (one step when the window is one step).
            p = std::max<std::int64_t>(1, (step_ - base_step_) / 2);
            j = step_ - p;
            t.period = p;
            t.total = at(step_);
            t.total_input_stall = stall_at(step_);
        }
        t.period_exact = exact_ && period_start_ >= 0;
        t.period_time = at(j + p) - at(j);
        t.iteration = t.period_time / p;
        t.compute = compute;
        t.input_stall = (stall_at(j + p) - stall_at(j)) / p;
        t.pipeline_bubble = plan_.pipeline_bubble;
        t.rollout = plan_.rollout;
        t.exposed_comm = std::max<sim::Time>(0, t.iteration - compute - t.input_stall - t.pipeline_bubble - t.rollout);
        if (epoch_count_ > 0) {
            std::vector<std::pair<sim::Time, sim::Time>> bounds = marks_;
            for (std::int64_t e = static_cast<std::int64_t>(bounds.size()); e < epoch_count_; ++e) {
                const std::int64_t k = epoch_start_step(e);
                bounds.push_back({extrapolate(k, false), extrapolate(k, true)});
            }
            bounds.push_back({t.total, t.total_input_stall});
            for (std::size_t e = 0; e + 1 < bounds.size(); ++e)
                t.epochs.push_back({bounds[e + 1].first - bounds[e].first, bounds[e + 1].second - bounds[e].second});
        }
        return t;
    }

    // ---- recording (only with a StepRecording) ----------------------------------------
    struct Recorded {
        StepSpan span;
        std::int64_t step;  // the step the span belongs to; -1 for loader spans
    };

    void record(const StepSpan& span, std::int64_t step) { rec_spans_.push_back({span, step}); }

    void record_loader(StepActivity kind, int w) {
        const auto i = static_cast<std::size_t>(w);
        record({kind, w, -1, rec_build_batch_[i], rec_stage_start_[i], engine_.now()}, -1);
    }

    // The last micro-batch's activity graph, from its start and finish times.
    void record_graph() {
        const std::int64_t b = plan_.workers ? rec_last_batch_ : -1;
        if (bubble_) record({StepActivity::pipeline_bubble, -1, -1, -1, graph_.started_at(*bubble_), graph_.finished_at(*bubble_)}, step_);
        record({StepActivity::forward, -1, plan_.micro_steps - 1, b, graph_.started_at(forward_), graph_.finished_at(forward_)}, step_);
        for (std::size_t k = 0; k < backwards_.size(); ++k) {
            const int index = static_cast<int>(k);
            record({StepActivity::backward, -1, index, -1, graph_.started_at(backwards_[k]), graph_.finished_at(backwards_[k])}, step_);
            // A reduction holds the stream from its grant, once the ones before it are done.
            const sim::Time end = graph_.finished_at(comms_[k]);
            record({StepActivity::gradient_comm, -1, index, -1, end - plan_.bucket_comm[k], end}, step_);
        }
        const sim::Time opt = graph_.started_at(optimizer_);
        record({StepActivity::optimizer, -1, -1, -1, opt, opt + plan_.optimizer}, step_);
        const sim::Time end = graph_.finished_at(optimizer_);
        record({StepActivity::step_overhead, -1, -1, -1, opt + plan_.optimizer, end - plan_.rollout}, step_);
        if (plan_.rollout > 0) record({StepActivity::rollout, -1, -1, -1, end - plan_.rollout, end}, step_);
    }

    // A step starts: keep only what the step that just ended, or a later one, may show.
    void next_recorded_step() {
        rec_prev_start_ = rec_cur_start_;
        rec_cur_start_ = engine_.now();
        rec_prev_first_batch_ = rec_cur_first_batch_;
        rec_cur_first_batch_ = next_batch_;
        std::erase_if(rec_spans_, [this](const Recorded& r) {
            if (r.step >= 0) return r.step < step_ - 1;
            // Ended before the step that just ended, and consumed before it started.
            return r.span.end < rec_prev_start_ && r.span.batch < rec_prev_first_batch_;
        });
    }

    void finish_recording() {
        StepRecording& out = *rec_;
        out = {};
        out.start = rec_prev_start_;
        out.end = rec_cur_start_;
        out.step = step_ - 1;
        std::vector<std::int64_t> consumed;
        for (const auto& r : rec_spans_)
            if (r.step == out.step && r.span.batch >= 0) consumed.push_back(r.span.batch);
        for (const auto& r : rec_spans_) {
            const auto& sp = r.span;
            const bool mine = r.step == out.step;
            const bool loader = r.step < 0 && ((sp.end > out.start && sp.start < out.end) ||
                                               std::find(consumed.begin(), consumed.end(), sp.batch) != consumed.end());
            if (mine || loader) out.spans.push_back(sp);
        }
    }

    static sim::Time sum(const std::vector<sim::Time>& v) {
        sim::Time s = 0;
        for (auto x : v) s += x;
        return s;
    }

    const TrainingPlan& plan_;
    StepRecording* rec_;
    sim::Engine engine_;
    sim::FifoResource comm_;
    sim::ActivityGraph graph_;
    sim::FifoResource slots_;   // the source's concurrent requests (this GPU's share)
    sim::FifoResource cores_;   // CPU cores (this GPU's share)
    sim::FlowNetwork net_;      // source, ingress and PCIe links
    std::vector<sim::LinkId> fetch_path_, pcie_path_;

    std::vector<int> ready_;
    std::vector<bool> busy_;
    std::vector<sim::Time> finish_;
    std::vector<WorkerState> workers_;
    std::uint64_t tickets_ = 0, flow_orders_ = 0;
    std::int64_t next_batch_ = 0;
    bool waiting_ = false;
    sim::Time wait_start_ = 0;
    sim::Time stall_ = 0;

    int micro_ = 0;
    std::int64_t step_ = 0;
    std::vector<sim::Time> starts_, stalls_;  // virtual times from base_step_ on
    std::map<std::vector<std::int64_t>, std::int64_t> seen_;
    std::int64_t period_start_ = -1;
    bool exact_ = true;

    // Regimes and in-place fast-forward of the cold epoch.
    bool single_regime_ = true;
    bool cold_done_ = false;
    bool warm_started_ = false;
    sim::Time time_offset_ = 0, stall_offset_ = 0;
    std::int64_t base_step_ = 0, skipped_steps_ = 0;
    std::int64_t epoch_count_ = 0, next_epoch_ = 0;
    std::vector<std::pair<sim::Time, sim::Time>> marks_;  // (start, cumulative stall) of each epoch

    // The activity graph's handles, for recording.
    sim::ActivityGraph::Handle forward_ = 0, optimizer_ = 0;
    std::optional<sim::ActivityGraph::Handle> bubble_;
    std::vector<sim::ActivityGraph::Handle> backwards_, comms_;

    // Recording: spans of the last two steps and the loaders' unconsumed batches.
    std::vector<Recorded> rec_spans_;
    std::vector<std::int64_t> rec_started_, rec_build_batch_;  // per worker: builds started, batch in progress
    std::vector<sim::Time> rec_build_start_, rec_stage_start_;
    std::int64_t rec_consumed_ = -1, rec_last_batch_ = -1;
    std::int64_t rec_prev_first_batch_ = 0, rec_cur_first_batch_ = 0;  // next_batch_ at the last two step starts
    sim::Time rec_prev_start_ = 0, rec_cur_start_ = 0;
};

}  // namespace

Timeline simulate_training(const TrainingPlan& plan, std::uint64_t seed, sim::Observer* observer, StepRecording* record) {
    if (plan.iterations < 1) throw std::invalid_argument("training plan needs at least one step");
    if (plan.micro_steps < 1) throw std::invalid_argument("training plan needs at least one micro-step");
    TrainingSim s(plan, seed, observer, record);
    return s.run();
}

}  // namespace rentsim::analysis
