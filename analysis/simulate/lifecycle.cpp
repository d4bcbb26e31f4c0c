#include "analysis/simulate/lifecycle.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/engine.hpp"

namespace rentsim::analysis {

namespace {

enum class State { starting, working, checkpointing, restarting, waiting, done };

// Event kinds, for the engine's fingerprint.
enum Kind : std::uint32_t { k_start = 1, k_finish, k_ckpt_due, k_ckpt_done, k_restart_done, k_wait_done,
                            k_preempt, k_failure, k_trace, k_resize, k_alert, k_stop };

sim::Time draw(sim::RandomStream& rng, double mean_s) {
    return std::max<sim::Time>(1, sim::ceil_seconds(rng.exponential(mean_s)));
}

class Lifecycle {
public:
    Lifecycle(const LifecyclePlan& p, std::uint64_t seed) : p_(p), eng_(seed) {
        for (const auto& ph : p_.phases) max_instances_ = std::max(max_instances_, p_.bill.instances(ph.gpus));
        out_.max_instances = max_instances_;
    }

    LifecycleOutcome run() {
        target_ = p_.bill.instances(p_.phases[0].gpus);
        open_leases(target_);
        state_ = State::starting;
        state_ev_ = eng_.schedule_in(p_.provisioning + p_.staging, [this] { start_working(); }, k_start);
        schedule_interruptions();
        schedule_resize(0);
        if (p_.trace && p_.trace->removals() > 0) start_trace();
        schedule_budget();
        if (p_.window > 0)
            eng_.schedule_at(p_.window, [this] {
                leave_current_state();
                finish_run();
            }, k_stop);
        // The give-up horizon, within the clock's span so that a run that cannot finish
        // always ends.
        const double horizon = std::min(4e18, std::max(1.0, p_.horizon_factor) *
                                                  static_cast<double>(p_.work + p_.provisioning + p_.staging));
        if (horizon < 9e18)
            eng_.schedule_at(static_cast<sim::Time>(horizon) + 1, [this] {
                leave_current_state();
                out_.finished = false;
                out_.gave_up = true;
                finish_run();
            }, k_stop);
        eng_.run();
        accrue();
        close_all_leases();
        out_.time = end_;
        out_.trained_fraction = out_.finished || p_.work <= 0 || p_.window > 0 ? 1.0 : std::min(1.0, done_ / static_cast<double>(p_.work));
        out_.work_done = done_;
        out_.deadline_met = out_.finished && (p_.deadline == 0 || end_ <= p_.deadline);
        switch (p_.billing) {
        case Billing::on_demand: break;  // summed per lease
        case Billing::committed:
            out_.compute_usd = p_.bill.per_instance().value * sim::to_seconds(end_) * max_instances_;
            break;
        case Billing::owned:
            out_.compute_usd = p_.owned.cost(units::seconds(sim::to_seconds(end_)) * max_instances_,
                                             units::seconds(out_.instance_s)).value;
            break;
        }
        out_.events = eng_.events_executed();
        out_.fingerprint = eng_.fingerprint();
        return out_;
    }

private:
    const ElasticPhase& phase() const { return p_.phases[phase_]; }
    int held() const { return target_ - missing_; }

    // Leases: the instances held, grouped by the moment they were opened (all of one
    // instance type), so that holding 262,144 GPUs costs one group, not 262,144 leases.
    // Each instance is still billed with its own increments and minimum: a group of n
    // bills n x billed(its duration). Groups are opened in time order, so the vector stays
    // sorted by start and the last group is the most recently opened; a preemption closes
    // one instance of it.
    void open_leases(int n) {
        if (n <= 0) return;
        if (!leases_.empty() && leases_.back().start == eng_.now()) leases_.back().count += n;
        else leases_.push_back({eng_.now(), n});
    }
    // Closes the `n` most recently opened instances (a preemption closes one, a shrinking
    // resize several), billing each group's share as one line.
    void close_leases(int n) {
        while (n > 0 && !leases_.empty()) {
            LeaseGroup& last = leases_.back();
            const int k = std::min(n, last.count);
            bill_lease(eng_.now() - last.start, k);
            n -= k;
            if ((last.count -= k) == 0) leases_.pop_back();
        }
    }
    void close_all_leases() {
        // Leases opened together are billed together, oldest first: n x billed(d), as one
        // line of an invoice.
        for (const LeaseGroup& g : leases_) bill_lease(end_ - g.start, g.count);
        leases_.clear();
    }
    void bill_lease(sim::Time d, int n) {
        const units::Seconds used = units::seconds(sim::to_seconds(d));
        const double billed = p_.bill.billed(used).value;
        out_.billed_instance_s += billed * n;
        if (p_.billing == Billing::on_demand)
            out_.compute_usd += (p_.bill.per_gpu * p_.bill.billed(used) * static_cast<double>(n * p_.bill.gpus_per_instance)).value;
    }

    // Spend so far, accrued continuously (increments and minimums are applied at the end).
    double spend_rate() const {
        const double per = p_.bill.per_instance().value;
        switch (p_.billing) {
        case Billing::on_demand: return per * held();
        case Billing::committed: return per * max_instances_;
        case Billing::owned: return p_.owned.fixed_rate().value * max_instances_ + p_.owned.running_rate().value * held();
        }
        return 0;
    }
    void accrue() {
        const double dt = sim::to_seconds(eng_.now() - accrued_at_);
        spent_ += spend_rate_ * dt;
        out_.instance_s += held_at_accrual_ * dt;
        accrued_at_ = eng_.now();
        spend_rate_ = spend_rate();
        held_at_accrual_ = held();
    }
    void schedule_budget() {
        accrue();
        eng_.cancel(alert_ev_);
        eng_.cancel(stop_ev_);
        if (p_.budget_usd <= 0 || spend_rate_ <= 0 || state_ == State::done) return;
        const auto at = [&](double usd) { return sim::ceil_seconds(std::max(0.0, usd - spent_) / spend_rate_); };
        if (out_.budget_alert < 0)
            alert_ev_ = eng_.schedule_in(at(p_.budget_usd * p_.alert_fraction), [this] { out_.budget_alert = eng_.now(); }, k_alert);
        stop_ev_ = eng_.schedule_in(at(p_.budget_usd), [this] {
            leave_current_state();
            out_.finished = false;
            finish_run();
        }, k_stop);
    }

    void start_working() {
        state_ = State::working;
        seg_start_ = eng_.now();
        const double speed = phase().speed;
        // Beyond the clock's span (a window's unbounded work at a slow phase) the segment
        // never ends by itself: another event (the window, the horizon) ends it first.
        const double left_ns = std::ceil(std::max(0.0, static_cast<double>(p_.work) - done_) / speed);
        const auto finish = eng_.now() + static_cast<sim::Time>(std::min(left_ns, 4e18 - static_cast<double>(eng_.now())));
        sim::Time next = finish;
        bool ckpt = false;
        if (p_.checkpoint_interval > 0) {
            const auto due = eng_.now() + static_cast<sim::Time>(std::ceil(
                                 std::max(0.0, static_cast<double>(p_.checkpoint_interval) - since_ckpt_) / speed));
            if (due < finish) {
                next = due;
                ckpt = true;
            }
        }
        if (ckpt) {
            state_ev_ = eng_.schedule_at(next, [this] { begin_checkpoint(false); }, k_ckpt_due);
        } else {
            state_ev_ = eng_.schedule_at(next, [this] {
                leave_current_state();
                done_ = static_cast<double>(p_.work);
                finish_run();
            }, k_finish);
        }
    }

    // Progress of the current work segment is banked when leaving it.
    void leave_current_state() {
        eng_.cancel(state_ev_);
        if (state_ == State::working) {
            const double progress = static_cast<double>(eng_.now() - seg_start_) * phase().speed;
            done_ = std::min(static_cast<double>(p_.work), done_ + progress);
            since_ckpt_ += progress;
        } else if (state_ == State::checkpointing) {
            out_.checkpoint_s += sim::to_seconds(eng_.now() - state_since_);
        } else if (state_ == State::restarting) {
            out_.restart_s += sim::to_seconds(eng_.now() - state_since_);
        } else if (state_ == State::waiting) {
            out_.capacity_wait_s += sim::to_seconds(eng_.now() - state_since_);
        }
        state_since_ = eng_.now();
    }

    void finish_run() {
        state_ = State::done;
        end_ = eng_.now();
        eng_.stop();
    }

    void begin_checkpoint(bool then_resize) {
        leave_current_state();
        if (then_resize) resize_pending_ = true;
        state_ = State::checkpointing;
        state_ev_ = eng_.schedule_in(p_.checkpoint_write, [this, then_resize] {
            leave_current_state();
            saved_ = done_;
            since_ckpt_ = 0;
            ++out_.checkpoints;
            if (then_resize) apply_resize_and_restart();
            else start_working();
        }, k_ckpt_done);
    }

    void begin_restart(sim::Time extra) {
        state_ = State::restarting;
        state_since_ = eng_.now();
        state_ev_ = eng_.schedule_in(p_.restart + extra, [this] {
            leave_current_state();
            ++out_.restarts;
            start_working();
        }, k_restart_done);
    }

    // Work since the last checkpoint is lost; `kept` of it survives (written in a notice).
    void lose_unsaved(double kept) {
        const double unsaved = std::max(0.0, done_ - saved_);
        const double lost = std::max(0.0, unsaved - kept);
        out_.lost_work_s += lost * 1e-9;
        done_ -= lost;
        saved_ = done_;
        since_ckpt_ = 0;
    }

    void on_preemption() {
        if (state_ == State::waiting || state_ == State::done) return;
        ++out_.preemptions;
        double kept = 0;
        const bool was_working = state_ == State::working;
        const sim::Time worked = was_working ? eng_.now() - seg_start_ : 0;
        leave_current_state();
        if (was_working && p_.checkpoint_on_notice && p_.checkpoint_write > 0 && p_.checkpoint_write <= p_.notice) {
            // Checkpoint written during the notice: only the work of the notice period is lost.
            const double in_notice = static_cast<double>(std::min(worked, p_.notice)) * phase().speed;
            kept = std::max(0.0, done_ - saved_ - in_notice);
            ++out_.checkpoints;
        }
        lose_unsaved(kept);
        accrue();
        close_leases(1);
        ++missing_;
        state_ = State::waiting;
        state_since_ = eng_.now();
        const sim::Time wait = p_.capacity_wait_mean_s > 0 ? draw(eng_.rng("spot.capacity"), p_.capacity_wait_mean_s) : 0;
        state_ev_ = eng_.schedule_in(wait, [this] {
            leave_current_state();
            accrue();
            open_leases(missing_);
            missing_ = 0;
            if (resize_pending_) {
                apply_resize_and_restart();
                return;
            }
            begin_restart(0);
            schedule_interruptions();
            schedule_budget();
        }, k_wait_done);
        schedule_interruptions();
        schedule_budget();
    }

    void on_failure() {
        if (state_ == State::waiting || state_ == State::done) return;
        ++out_.failures;
        leave_current_state();
        lose_unsaved(0);
        if (resize_pending_) apply_resize_and_restart();  // the resize's checkpoint was cut short
        else begin_restart(0);
        schedule_failure();
    }

    void schedule_interruptions() {
        eng_.cancel(preempt_ev_);
        if (p_.preempt_mean_s > 0 && held() > 0 && state_ != State::waiting)
            preempt_ev_ = eng_.schedule_in(draw(eng_.rng("spot.preempt"), p_.preempt_mean_s / held()),
                                           [this] { on_preemption(); }, k_preempt);
        schedule_failure();
    }
    void schedule_failure() {
        eng_.cancel(failure_ev_);
        if (p_.gpu_mtbf_s > 0 && state_ != State::waiting)
            failure_ev_ = eng_.schedule_in(draw(eng_.rng("failures"), p_.gpu_mtbf_s / phase().gpus),
                                           [this] { on_failure(); }, k_failure);
    }

    // Trace replay: each recorded removal hits one of this job's instances with probability
    // (instances held) / (nodes alive in the trace). Each replication starts at a random point
    // of the trace, which repeats after its span.
    void start_trace() {
        const sim::Time span = trace_span();
        trace_offset_ = static_cast<sim::Time>(eng_.rng("spot.trace").uniform() * static_cast<double>(span));
        std::size_t first = 0;
        while (first < p_.trace->events.size() && sim::ceil_seconds(p_.trace->events[first].time.value) < trace_offset_) ++first;
        schedule_trace(first);
    }
    sim::Time trace_span() const { return sim::ceil_seconds(p_.trace->span.value) + sim::ceil_seconds(60.0); }

    void schedule_trace(std::size_t next) {
        const auto& ev = p_.trace->events;
        while (true) {
            if (next >= ev.size()) {
                next = 0;
                ++trace_cycle_;
            }
            if (!ev[next].add && ev[next].alive_before > 0) break;
            ++next;
        }
        const sim::Time t = trace_cycle_ * trace_span() + sim::ceil_seconds(ev[next].time.value) - trace_offset_;
        trace_ev_ = eng_.schedule_at(std::max(t, eng_.now()), [this, next] {
            const auto& e = p_.trace->events[next];
            const double share = static_cast<double>(held()) / static_cast<double>(e.alive_before);
            if (eng_.rng("spot.trace").uniform() < share) on_preemption();
            schedule_trace(next + 1);
        }, k_trace);
    }

    // Elastic schedule: resize at each phase boundary (cycling with `repeat`).
    void schedule_resize(std::size_t current) {
        if (p_.phases.size() < 2) return;
        std::size_t next = current + 1;
        sim::Time base = cycle_start_;
        if (next >= p_.phases.size()) {
            if (p_.repeat <= 0) return;
            next = 0;
            base += p_.repeat;
        }
        resize_ev_ = eng_.schedule_at(base + p_.phases[next].from, [this, next, base] {
            cycle_start_ = base;
            pending_phase_ = next;
            ++out_.resizes;
            if (state_ == State::working) {
                begin_checkpoint(true);
            } else {
                // Not training (starting, checkpointing, restarting, waiting): switch now and
                // restart from the last checkpoint.
                lose_unsaved(0);
                apply_resize_and_restart();
            }
            schedule_resize(next);
        }, k_resize);
    }

    void apply_resize_and_restart() {
        resize_pending_ = false;
        accrue();
        const int new_target = p_.bill.instances(p_.phases[pending_phase_].gpus);
        if (target_ < new_target) {
            open_leases(new_target - target_);
            target_ = new_target;
        }
        if (target_ > new_target) {
            // Instances still missing after a preemption are dropped first.
            const int dropped = std::min(missing_, target_ - new_target);
            missing_ -= dropped;
            close_leases(target_ - new_target - dropped);
            target_ = new_target;
        }
        phase_ = pending_phase_;
        schedule_interruptions();
        schedule_budget();
        if (state_ == State::waiting && missing_ > 0) return;  // the wait's end restarts
        leave_current_state();
        begin_restart(p_.resize_extra);
    }

    const LifecyclePlan& p_;
    sim::Engine eng_;
    LifecycleOutcome out_;
    State state_ = State::starting;
    sim::EventId state_ev_, preempt_ev_, failure_ev_, trace_ev_, resize_ev_, alert_ev_, stop_ev_;
    struct LeaseGroup {
        sim::Time start = 0;  // when its instances were opened
        int count = 0;        // instances, >= 1
    };
    std::vector<LeaseGroup> leases_;  // ascending start, no two alike
    std::size_t phase_ = 0, pending_phase_ = 0;
    sim::Time cycle_start_ = 0;
    std::int64_t trace_cycle_ = 0;
    sim::Time trace_offset_ = 0;
    bool resize_pending_ = false;  // a resize waits for its checkpoint
    int target_ = 0, missing_ = 0, max_instances_ = 0;
    double done_ = 0, saved_ = 0, since_ckpt_ = 0;  // work, ns at speed 1
    sim::Time seg_start_ = 0, state_since_ = 0, end_ = 0;
    double spent_ = 0, spend_rate_ = 0;
    int held_at_accrual_ = 0;
    sim::Time accrued_at_ = 0;
};

}  // namespace

LifecycleOutcome simulate_lifecycle(const LifecyclePlan& plan, std::uint64_t seed) {
    if (plan.phases.empty()) throw std::invalid_argument("lifecycle: no phases");
    if (plan.phases.front().from != 0) throw std::invalid_argument("lifecycle: the first phase must start at 0");
    for (std::size_t i = 0; i < plan.phases.size(); ++i) {
        if (plan.phases[i].gpus < 1 || !(plan.phases[i].speed > 0))
            throw std::invalid_argument("lifecycle: every phase needs GPUs and a positive speed");
        if (i && plan.phases[i].from <= plan.phases[i - 1].from)
            throw std::invalid_argument("lifecycle: phases must start in increasing order");
    }
    if (plan.repeat && plan.repeat <= plan.phases.back().from)
        throw std::invalid_argument("lifecycle: the schedule repeats before its last phase starts");
    if (plan.work < 0 || plan.restart < 0 || plan.checkpoint_write < 0 || plan.checkpoint_interval < 0)
        throw std::invalid_argument("lifecycle: negative duration");
    Lifecycle l(plan, seed);
    return l.run();
}

double young_daly_interval_s(double checkpoint_write_s, double mtbf_s) {
    return std::sqrt(2.0 * checkpoint_write_s * mtbf_s);
}

}  // namespace rentsim::analysis
