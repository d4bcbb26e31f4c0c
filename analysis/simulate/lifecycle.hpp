// The run-level lifecycle of a training job on rented instances, simulated in the engine.
//
// The job is a sequence of work segments at the steady step rate found by the trainer,
// interrupted by events: checkpoints, spot preemptions (exponential or replayed from a
// trace), GPU failures (exponential, per GPU), elastic resizes, and budget alerts and stops.
// Between two events progress is linear, so jumping from event to event is exact. Random
// draws come from named streams of the engine ("spot.preempt", "spot.capacity",
// "spot.trace", "failures"), so a replication depends only on its seed.
//
//   provision+stage -> [work --checkpoint--> work ...] --preempt--> wait capacity -> restart
//                                                     --failure--> restart
//                                                     --resize---> checkpoint -> restart
//   work lost on an interruption: everything since the last completed checkpoint
//   (with a spot notice long enough to write one, only the notice period).
#pragma once

#include <cstdint>
#include <vector>

#include "models/pricing/billing.hpp"
#include "models/pricing/spot_trace.hpp"
#include "sim/time.hpp"

namespace rentsim::analysis {

// One step of an elastic schedule: from `from` on, `gpus` GPUs train at `speed` times the
// reference rate (the rate at which `LifecyclePlan::work` takes `work` seconds).
struct ElasticPhase {
    sim::Time from = 0;
    int gpus = 1;
    double speed = 1.0;
};

enum class Billing { on_demand, committed, owned };

struct LifecyclePlan {
    sim::Time work = 0;                     // training time without interruptions, at speed 1
    std::vector<ElasticPhase> phases;       // at least one; the first from 0, ascending
    sim::Time repeat = 0;                   // period of the schedule; 0: the last phase holds
    // Money.
    Billing billing = Billing::on_demand;
    price::OnDemand bill;                   // per-instance increments and minimum (on-demand, spot)
    price::Ownership owned;                 // Billing::owned
    // Start and restarts.
    sim::Time provisioning = 0;             // instances booting before the first step (billed)
    sim::Time staging = 0;                  // dataset staged before the first step (billed)
    sim::Time restart = 0;                  // boot, container, NCCL init, checkpoint load
    sim::Time resize_extra = 0;             // re-sharding on an elastic resize, on top of restart
    // Checkpoints: every `checkpoint_interval` of work, taking `checkpoint_write` (blocking).
    sim::Time checkpoint_interval = 0;      // 0: no periodic checkpoints
    sim::Time checkpoint_write = 0;
    // Spot preemptions.
    double preempt_mean_s = 0;              // mean time between preemptions of one instance; 0: none
    const price::SpotTrace* trace = nullptr;  // or replayed removals (thinned to this job's share)
    sim::Time notice = 0;                   // warning before reclaim
    bool checkpoint_on_notice = true;       // write a checkpoint in the notice period if it fits
    double capacity_wait_mean_s = 0;        // mean wait for capacity after a preemption (exponential)
    // Failures.
    double gpu_mtbf_s = 0;                  // mean time between failures of one GPU; 0: none
    // Guards.
    double budget_usd = 0;                  // 0: no budget
    double alert_fraction = 0.8;            // alert when this share of the budget is spent
    sim::Time deadline = 0;                 // 0: none
    // > 0: a calendar window. The run ends at `window` whatever the work done (`work` should
    // then exceed what the window can hold); the outcome reports the work done in it.
    sim::Time window = 0;
    // A run that has not finished after this many times its work is given up (it never would
    // finish if interruptions come faster than checkpoints save work).
    double horizon_factor = 100.0;
};

struct LifecycleOutcome {
    sim::Time time = 0;                     // start to the end of the last step (or the budget stop)
    bool finished = true;                   // false: stopped at the budget or given up
    bool gave_up = false;                   // stopped at the horizon (horizon_factor x work)
    bool deadline_met = true;
    sim::Time budget_alert = -1;            // when the alert fraction was reached; -1: never
    double instance_s = 0;                  // instance-seconds held
    double billed_instance_s = 0;           // after increments and minimums, summed over leases
    double compute_usd = 0;                 // instances (on-demand, spot, committed or owned)
    int max_instances = 0;
    int preemptions = 0, failures = 0, checkpoints = 0, resizes = 0, restarts = 0;
    double lost_work_s = 0;                 // work redone, seconds at speed 1
    double trained_fraction = 1;            // of the work, done when the run ended (1: finished)
    double work_done = 0;                   // ns of work at speed 1 done by the end
    double checkpoint_s = 0, restart_s = 0, capacity_wait_s = 0;
    std::uint64_t events = 0;
    std::uint64_t fingerprint = 0;
};

// Throws std::invalid_argument on an inconsistent plan.
LifecycleOutcome simulate_lifecycle(const LifecyclePlan& plan, std::uint64_t seed);

// Young/Daly first-order optimum checkpoint interval sqrt(2 x write time x MTBF), seconds.
double young_daly_interval_s(double checkpoint_write_s, double mtbf_s);

}  // namespace rentsim::analysis
