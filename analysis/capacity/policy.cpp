#include "analysis/capacity/policy.hpp"

namespace rentsim::capacity {
namespace {

// Higher priority first in every policy; the traces' priorities are rare and coarse.
class Fifo : public Policy {
public:
    bool before(const QueuedJob& a, const QueuedJob& b) const override {
        if (a.priority != b.priority) return a.priority > b.priority;
        return a.order < b.order;
    }
};

class ShortestFirst : public Policy {
public:
    bool before(const QueuedJob& a, const QueuedJob& b) const override {
        if (a.priority != b.priority) return a.priority > b.priority;
        // GPU-seconds, so that a short job on many GPUs does not pass for a small one.
        const double wa = a.estimate_s * a.gpus, wb = b.estimate_s * b.gpus;
        if (wa != wb) return wa < wb;
        return a.order < b.order;
    }
};

class EasyBackfill : public Fifo {
public:
    bool backfill() const override { return true; }
};

}  // namespace

const Registry<const Policy*>& policy_registry() {
    static const Fifo fifo;
    static const ShortestFirst sjf;
    static const EasyBackfill backfill;
    static const Registry<const Policy*> r{
        "scheduler",
        {{"fifo", &fifo, "first come, first served; a blocked head blocks the queue"},
         {"sjf", &sjf, "smallest estimated GPU-seconds first; a blocked head blocks the queue"},
         {"backfill", &backfill, "FIFO with EASY backfill: later jobs start if they do not delay the head"}}};
    return r;
}

}  // namespace rentsim::capacity
