// Scheduling policies: the order of the queue, and whether later jobs may start ahead of a
// blocked head (EASY backfill). A new policy is one class and one registry line in policy.cpp.
#pragma once

#include <cstdint>

#include "models/registry.hpp"

namespace rentsim::capacity {

// What a policy sees of a waiting job. `estimate_s` is the scheduler's estimate of its run time
// on the trace's GPU (config.hpp, DurationEstimate), never the recorded duration unless the pools
// file asks for that oracle.
struct QueuedJob {
    std::uint64_t order = 0;  // arrival order, from 0: unique
    double submit_s = 0;
    int gpus = 1;
    int priority = 0;
    double estimate_s = 0;
};

class Policy {
public:
    virtual ~Policy() = default;
    // A strict weak order: true when `a` runs before `b`. Ties fall to arrival order.
    virtual bool before(const QueuedJob& a, const QueuedJob& b) const = 0;
    // EASY backfill (Lifka 1995): when the head cannot start, it gets a reservation at the
    // earliest time the estimates free enough GPUs, and later jobs start now if they do not delay it.
    virtual bool backfill() const { return false; }
};

const Registry<const Policy*>& policy_registry();

}  // namespace rentsim::capacity
