#include "sim/engine.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace rentsim::sim {

namespace {

constexpr std::uint64_t fingerprint_basis = 0xcbf29ce484222325ULL;
constexpr std::size_t initial_capacity = 1024;

// Clears the running flag however the loop exits, including by an exception from a
// callback, so that the engine stays usable.
class RunningGuard {
public:
    RunningGuard(bool& running, bool& stop) : running_(running), stop_(stop) {
        if (running_) throw std::logic_error("Engine: run() or run_until() called from inside a run");
        running_ = true;
        stop_ = false;
    }
    RunningGuard(const RunningGuard&) = delete;
    RunningGuard& operator=(const RunningGuard&) = delete;
    ~RunningGuard() {
        running_ = false;
        stop_ = false;
    }

private:
    bool& running_;
    bool& stop_;
};

}  // namespace

Engine::Engine(std::uint64_t seed, EventSetKind set)
    : set_(make_event_set(set)), seed_(seed), fingerprint_(fingerprint_basis) {
    set_->reserve(initial_capacity);
    slots_.reserve(initial_capacity);
    free_slots_.reserve(initial_capacity);
}

Engine::~Engine() = default;

EventId Engine::schedule_at(Time t, Callback cb, std::uint32_t kind, std::uint32_t entity) {
    if (t < now_) {
        throw std::logic_error("Engine::schedule_at: time " + std::to_string(t) + " ns is before now() = " +
                               std::to_string(now_) + " ns");
    }
    if (!cb) throw std::invalid_argument("Engine::schedule_at: empty callback");
    std::uint32_t slot = 0;
    if (!free_slots_.empty()) {
        slot = free_slots_.back();
        free_slots_.pop_back();
    } else {
        if (slots_.size() >= std::numeric_limits<std::uint32_t>::max()) {
            throw std::length_error("Engine: too many pending events");
        }
        slot = static_cast<std::uint32_t>(slots_.size());
        slots_.emplace_back();
        // The free list never holds more than slots_.size() entries; sizing it with the
        // slots keeps cancel() and execute() from ever allocating.
        free_slots_.reserve(slots_.capacity());
    }
    Slot& s = slots_[slot];
    s.callback = std::move(cb);
    s.seq = next_seq_++;
    s.kind = kind;
    s.entity = entity;
    set_->push(EventEntry{t, s.seq, slot});
    ++live_;
    return EventId{s.seq, slot};
}

EventId Engine::schedule_in(Time delay, Callback cb, std::uint32_t kind, std::uint32_t entity) {
    if (delay < 0) throw std::logic_error("Engine::schedule_in: negative delay " + std::to_string(delay) + " ns");
    if (delay > time_max - now_) throw std::logic_error("Engine::schedule_in: now() + delay overflows Time");
    return schedule_at(now_ + delay, std::move(cb), kind, entity);
}

bool Engine::cancel(EventId id) {
    if (!id.valid() || id.slot >= slots_.size() || slots_[id.slot].seq != id.seq) return false;
    // Lazy removal: the set keeps the entry, which no longer matches its slot's sequence
    // number and is skipped when it reaches the top.
    release_slot(id.slot);
    compact_if_mostly_dead();
    return true;
}

void Engine::release_slot(std::uint32_t slot) {
    Slot& s = slots_[slot];
    s.callback.reset();
    s.seq = 0;
    free_slots_.push_back(slot);
    --live_;
}

void Engine::compact_if_mostly_dead() {
    // Cancel-heavy models (a flow rescheduled on every rate change) would otherwise fill
    // the set with dead entries. Purging when they outnumber the live ones bounds memory
    // to twice the live events at an amortised O(log n) per cancel.
    const std::size_t dead = set_->size() - live_;
    if (dead <= 4096 || dead <= live_) return;
    scratch_.clear();
    while (!set_->empty()) {
        const EventEntry e = set_->pop();
        if (slots_[e.payload].seq == e.seq) scratch_.push_back(e);
    }
    for (const EventEntry& e : scratch_) set_->push(e);
}

bool Engine::next_due(Time limit, EventEntry& out) {
    while (!set_->empty()) {
        const EventEntry& top = set_->top();
        if (slots_[top.payload].seq != top.seq) {  // cancelled
            set_->pop();
            continue;
        }
        if (top.time > limit) return false;
        out = set_->pop();
        return true;
    }
    return false;
}

void Engine::execute(const EventEntry& e) {
    Slot& s = slots_[e.payload];
    const EventInfo info{e.time, e.seq, s.kind, s.entity};
    // Move the callback out and free the slot first: the callback may schedule events,
    // which may reuse this slot or grow the slot vector.
    Callback cb = std::move(s.callback);
    s.seq = 0;
    free_slots_.push_back(e.payload);
    --live_;

    now_ = e.time;
    ++executed_;
    fingerprint_ = mix64(fingerprint_ ^ static_cast<std::uint64_t>(e.time));
    fingerprint_ = mix64(fingerprint_ ^ ((static_cast<std::uint64_t>(info.kind) << 32) | info.entity));
    for (std::size_t i = 0; i < observers_.size(); ++i) observers_[i]->on_event(info);
    cb();
}

void Engine::loop(Time limit, bool advance_clock) {
    RunningGuard guard(running_, stop_requested_);
    EventEntry e;
    while (!stop_requested_ && next_due(limit, e)) execute(e);
    if (advance_clock && !stop_requested_) now_ = limit;
    for (std::size_t i = 0; i < observers_.size(); ++i) observers_[i]->on_run_end(now_);
}

void Engine::run() { loop(time_max, false); }

void Engine::run_until(Time t) {
    if (t < now_) {
        throw std::logic_error("Engine::run_until: time " + std::to_string(t) + " ns is before now() = " +
                               std::to_string(now_) + " ns");
    }
    loop(t, true);
}

void Engine::add_observer(Observer& o) { observers_.push_back(&o); }

bool Engine::remove_observer(Observer& o) {
    const auto it = std::find(observers_.begin(), observers_.end(), &o);
    if (it == observers_.end()) return false;
    observers_.erase(it);
    return true;
}

RandomStream& Engine::rng(std::string_view name) {
    auto it = streams_.find(name);
    if (it == streams_.end()) it = streams_.emplace(std::string(name), RandomStream(seed_, name)).first;
    return it->second;
}

void Engine::reset() {
    if (running_) throw std::logic_error("Engine::reset: called from inside a run");
    set_->clear();
    slots_.clear();
    free_slots_.clear();
    now_ = 0;
    next_seq_ = 1;
    live_ = 0;
    executed_ = 0;
    fingerprint_ = fingerprint_basis;
    stop_requested_ = false;
    for (auto& [name, stream] : streams_) stream = RandomStream(seed_, name);
}

void Engine::reset(std::uint64_t new_seed) {
    if (running_) throw std::logic_error("Engine::reset: called from inside a run");
    seed_ = new_seed;
    reset();
}

}  // namespace rentsim::sim
