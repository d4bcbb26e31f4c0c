// FifoResource: `capacity` identical units (GPUs, DMA engines, loader workers) granted in
// request order. A grant runs its callback synchronously, inside request() when a unit is
// free or inside the release() that frees one. Statistics: busy_time() in unit-ns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/callback.hpp"
#include "sim/engine.hpp"
#include "sim/time.hpp"

namespace rentsim::sim {

class FifoResource {
public:
    // Names one request, for cancel_request(); never 0.
    using Ticket = std::uint64_t;

    // Throws std::invalid_argument if capacity == 0. The engine must outlive the resource.
    FifoResource(Engine& engine, std::uint32_t capacity);

    // Grants a unit to `on_granted` now if one is free, else queues it behind earlier
    // requests. Throws std::invalid_argument if on_granted is empty.
    Ticket request(Callback on_granted);
    // Withdraws a queued request; false if it was already granted, cancelled or unknown.
    bool cancel_request(Ticket t);
    // Returns one unit; the oldest queued request, if any, takes it at once.
    // Throws std::logic_error if no unit is in use.
    void release();

    std::uint32_t capacity() const { return capacity_; }
    std::uint32_t in_use() const { return in_use_; }
    std::size_t queue_length() const { return queued_; }

    // Integral of units in use over simulated time, in unit-nanoseconds, up to now().
    // A double, because units x ns overflows int64 for large clusters over months.
    double busy_time() const;
    // The longest the queue has been (cancelled requests not counted).
    std::size_t max_queue() const { return max_queue_; }
    // Number of units granted so far.
    std::uint64_t grants() const { return grants_; }

private:
    struct Waiter {
        Ticket ticket = 0;  // 0 marks a cancelled request
        Callback on_granted;
    };

    void account();
    void push_waiter(Ticket t, Callback cb);

    Engine& engine_;
    std::uint32_t capacity_;
    std::uint32_t in_use_ = 0;
    // A ring buffer rather than a deque: a deque frees and reallocates blocks as it
    // scrolls, which would allocate in steady state.
    std::vector<Waiter> ring_;
    std::size_t head_ = 0;
    std::size_t count_ = 0;   // entries in the ring, cancelled ones included
    std::size_t queued_ = 0;  // live requests in the ring
    Ticket next_ticket_ = 1;
    double busy_ = 0.0;
    Time last_change_ = 0;
    std::size_t max_queue_ = 0;
    std::uint64_t grants_ = 0;
};

}  // namespace rentsim::sim
