#include "sim/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rentsim::sim {

namespace {

constexpr std::uint64_t fingerprint_basis = 0xcbf29ce484222325ULL;
constexpr std::size_t initial_capacity = 1024;  // entries of the event set

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

template <class Set>
Set reserved_set() {
    Set s;
    s.reserve(initial_capacity);
    return s;
}

}  // namespace

Engine::Engine(std::uint64_t seed, EventSetKind set) : seed_(seed), fingerprint_(fingerprint_basis) {
    switch (set) {
    case EventSetKind::four_ary_heap: set_.emplace<FourAryHeapEventSet>(reserved_set<FourAryHeapEventSet>()); break;
    case EventSetKind::binary_heap: set_.emplace<BinaryHeapEventSet>(reserved_set<BinaryHeapEventSet>()); break;
    case EventSetKind::calendar: set_.emplace<CalendarEventSet>(reserved_set<CalendarEventSet>()); break;
    default: throw std::invalid_argument("Engine: unknown EventSetKind");
    }
    blocks_.push_back(std::make_unique<SlotBlock>());
}

Engine::~Engine() = default;

EventSetKind Engine::event_set_kind() const {
    return std::visit([](const auto& s) { return std::remove_cvref_t<decltype(s)>::kind; }, set_);
}

std::uint32_t Engine::acquire_slot() {
    if (free_head_ != no_slot) {
        const std::uint32_t i = free_head_;
        free_head_ = slot(i).entity;
        return i;
    }
    if (slot_count_ == no_slot) throw std::length_error("Engine: too many pending events");
    if (slot_count_ == blocks_.size() * slots_per_block) blocks_.push_back(std::make_unique<SlotBlock>());
    return slot_count_++;
}

void Engine::free_slot(std::uint32_t i) {
    slot(i).entity = free_head_;
    free_head_ = i;
}

EventId Engine::schedule_at(Time t, Callback&& cb, std::uint32_t kind, std::uint32_t entity) {
    if (t < now_) {
        throw std::logic_error("Engine::schedule_at: time " + std::to_string(t) + " ns is before now() = " +
                               std::to_string(now_) + " ns");
    }
    if (!cb) throw std::invalid_argument("Engine::schedule_at: empty callback");
    const std::uint32_t i = acquire_slot();
    Slot& s = slot(i);
    s.callback = std::move(cb);
    s.kind = kind;
    s.entity = entity;
    const std::uint64_t seq = next_seq_++;
    slot_seq(i) = seq;
    std::visit([&](auto& set) { set.push(EventEntry{t, seq, i}); }, set_);
    ++live_;
    return EventId{seq, i};
}

EventId Engine::schedule_in(Time delay, Callback&& cb, std::uint32_t kind, std::uint32_t entity) {
    if (delay < 0) throw std::logic_error("Engine::schedule_in: negative delay " + std::to_string(delay) + " ns");
    if (delay > time_max - now_) throw std::logic_error("Engine::schedule_in: now() + delay overflows Time");
    return schedule_at(now_ + delay, std::move(cb), kind, entity);
}

bool Engine::cancel(EventId id) {
    if (!id.valid() || id.slot >= slot_count_ || slot_seq(id.slot) != id.seq) return false;
    // Lazy removal: the entry stays in the set and the slot stays taken until the entry
    // reaches the top (or a purge), so that an empty callback marks it as cancelled.
    slot(id.slot).callback.reset();
    slot_seq(id.slot) = 0;
    --live_;
    ++cancelled_;
    compact_if_mostly_dead();
    return true;
}

void Engine::compact_if_mostly_dead() {
    // Cancel-heavy models (a flow rescheduled on every rate change) would otherwise fill
    // the set with dead entries. Purging when they outnumber the live ones bounds memory
    // to twice the live events at an amortised O(1) per cancel.
    if (cancelled_ <= 4096 || cancelled_ <= live_) return;
    std::visit(
        [this](auto& set) {
            set.remove_if([this](const EventEntry& e) {
                if (slot(e.payload).callback) return false;
                free_slot(e.payload);
                return true;
            });
        },
        set_);
    cancelled_ = 0;
}

void Engine::execute(const EventEntry& e) {
    Slot& s = slot(e.payload);
    const EventInfo info{e.time, e.seq, s.kind, s.entity};
    // The callback runs in place: the slot is neither free nor cancellable while it runs
    // (seq 0), and blocks never move, so the events it schedules cannot disturb it. The
    // slot is freed when it returns, or throws.
    slot_seq(e.payload) = 0;
    --live_;
    struct Release {
        Engine& engine;
        std::uint32_t i;
        Release(Engine& owner, std::uint32_t slot_index) : engine(owner), i(slot_index) {}
        Release(const Release&) = delete;
        Release& operator=(const Release&) = delete;
        ~Release() {
            engine.slot(i).callback.reset();
            engine.free_slot(i);
        }
    } release(*this, e.payload);

    now_ = e.time;
    ++executed_;
    fingerprint_ = mix64(fingerprint_ ^ static_cast<std::uint64_t>(e.time));
    fingerprint_ = mix64(fingerprint_ ^ ((static_cast<std::uint64_t>(info.kind) << 32) | info.entity));
    for (std::size_t i = 0; i < observers_.size(); ++i) observers_[i]->on_event(info);
    s.callback();
}

// The loop for one concrete set: a run dispatches on the set's type once, not per event.
template <class Set>
void Engine::run_events(Set& set, Time limit) {
    while (!stop_requested_ && !set.empty()) {
        const EventEntry top = set.top();
        if (!slot(top.payload).callback) {  // cancelled: its slot can be reused now
            set.pop();
            free_slot(top.payload);
            --cancelled_;
            continue;
        }
        if (top.time > limit) return;
        const EventEntry e = set.pop();
        // The next event's slot is a cache miss in a large population (its event was
        // scheduled long ago); start loading it while this event runs.
        if (!set.empty()) __builtin_prefetch(&slot(set.top().payload));
        execute(e);
    }
}

void Engine::loop(Time limit, bool advance_clock) {
    RunningGuard guard(running_, stop_requested_);
    std::visit([&](auto& set) { run_events(set, limit); }, set_);
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
    std::visit([](auto& set) { set.clear(); }, set_);
    // The blocks stay allocated, so that a reused engine does not allocate again.
    for (std::uint32_t i = 0; i < slot_count_; ++i) {
        slot(i).callback.reset();
        slot_seq(i) = 0;
    }
    slot_count_ = 0;
    free_head_ = no_slot;
    cancelled_ = 0;
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
