#include "sim/resource.hpp"

#include <stdexcept>
#include <utility>

namespace rentsim::sim {

FifoResource::FifoResource(Engine& engine, std::uint32_t capacity)
    : engine_(engine), capacity_(capacity), ring_(16), last_change_(engine.now()) {
    if (capacity == 0) throw std::invalid_argument("FifoResource: capacity must be at least 1");
}

void FifoResource::account() {
    const Time now = engine_.now();
    busy_ += static_cast<double>(in_use_) * static_cast<double>(now - last_change_);
    last_change_ = now;
}

double FifoResource::busy_time() const {
    return busy_ + static_cast<double>(in_use_) * static_cast<double>(engine_.now() - last_change_);
}

FifoResource::Ticket FifoResource::request(Callback on_granted) {
    if (!on_granted) throw std::invalid_argument("FifoResource::request: empty callback");
    const Ticket t = next_ticket_++;
    if (in_use_ < capacity_) {
        account();
        ++in_use_;
        ++grants_;
        on_granted();
        return t;
    }
    push_waiter(t, std::move(on_granted));
    ++queued_;
    if (queued_ > max_queue_) max_queue_ = queued_;
    return t;
}

void FifoResource::push_waiter(Ticket t, Callback cb) {
    if (count_ == ring_.size()) {
        std::vector<Waiter> bigger(2 * ring_.size());
        for (std::size_t i = 0; i < count_; ++i) bigger[i] = std::move(ring_[(head_ + i) % ring_.size()]);
        ring_ = std::move(bigger);
        head_ = 0;
    }
    Waiter& w = ring_[(head_ + count_) % ring_.size()];
    w.ticket = t;
    w.on_granted = std::move(cb);
    ++count_;
}

bool FifoResource::cancel_request(Ticket t) {
    for (std::size_t i = 0; i < count_; ++i) {
        Waiter& w = ring_[(head_ + i) % ring_.size()];
        if (w.ticket == t) {
            w.ticket = 0;
            w.on_granted.reset();
            --queued_;
            return true;
        }
    }
    return false;
}

void FifoResource::release() {
    if (in_use_ == 0) throw std::logic_error("FifoResource::release: no unit is in use");
    while (count_ > 0) {
        Waiter& w = ring_[head_];
        const Ticket t = w.ticket;
        Callback cb = std::move(w.on_granted);
        w.ticket = 0;
        head_ = (head_ + 1) % ring_.size();
        --count_;
        if (t == 0) continue;  // cancelled while queued
        // The unit passes straight to the waiter: in_use_ does not change. The queue is
        // consistent before the callback runs, since it may request or release again.
        --queued_;
        ++grants_;
        cb();
        return;
    }
    account();
    --in_use_;
}

}  // namespace rentsim::sim
