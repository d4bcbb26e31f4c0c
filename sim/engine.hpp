// The discrete-event engine: a clock, a set of pending events and the loop that runs them.
//
// An Engine is an ordinary object (construct as many as you like, one per thread); it
// holds no global state and never prints. Events run in (time, seq) order, so events at
// the same time run in the order they were scheduled. Scheduling, cancelling and running
// do not allocate once the engine has seen its peak number of pending events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/callback.hpp"
#include "sim/event_set.hpp"
#include "sim/random.hpp"
#include "sim/time.hpp"

namespace rentsim::sim {

// Names one scheduled event. `seq` is its global sequence number (from 1); `slot` lets
// cancel() find it in O(1). A default-constructed id names no event.
struct EventId {
    std::uint64_t seq = 0;
    std::uint32_t slot = 0;

    constexpr bool valid() const { return seq != 0; }
    friend constexpr bool operator==(const EventId&, const EventId&) = default;
};

// What observers see of an executed event. `kind` and `entity` are free labels chosen by
// whoever scheduled the event (e.g. a model's event type and the index of its object).
struct EventInfo {
    Time time;
    std::uint64_t seq;
    std::uint32_t kind;
    std::uint32_t entity;
};

// Hooks for statistics, traces and progress without the engine knowing them. on_event runs
// just before the event's callback, with now() already at the event's time.
class Observer {
public:
    virtual ~Observer() = default;
    virtual void on_event(const EventInfo&) {}
    virtual void on_run_end(Time) {}
};

class Engine {
public:
    explicit Engine(std::uint64_t seed = 0, EventSetKind set = default_event_set);
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;
    ~Engine();

    Time now() const { return now_; }

    // Runs `cb` at time t. Throws std::logic_error if t < now(), std::invalid_argument if
    // cb is empty. Taken by reference, so that a callable moves once, into its slot.
    EventId schedule_at(Time t, Callback&& cb, std::uint32_t kind = 0, std::uint32_t entity = 0);
    // Runs `cb` at now() + delay. Throws std::logic_error if delay < 0 or the sum overflows.
    EventId schedule_in(Time delay, Callback&& cb, std::uint32_t kind = 0, std::uint32_t entity = 0);
    // True if the event was pending (it will now never run); false if it already ran, was
    // cancelled, is running now, or the id is invalid. Ids from before reset() are invalid.
    bool cancel(EventId id);

    // Runs events until none is left or a callback calls stop(). Not reentrant.
    void run();
    // Runs events with time <= t, then sets now() to t unless stop() was called.
    // Throws std::logic_error if t < now().
    void run_until(Time t);
    // From a callback or observer: return from run()/run_until() after the current event.
    void stop() { stop_requested_ = true; }

    // Pending events that will run (cancelled ones are not counted).
    std::size_t pending() const { return live_; }
    std::uint64_t events_executed() const { return executed_; }
    EventSetKind event_set_kind() const;

    // Observers are not owned and must outlive their registration; called in order added.
    void add_observer(Observer& o);
    // Returns false if `o` was not registered.
    bool remove_observer(Observer& o);

    // A 64-bit fold of (time, kind, entity) of every executed event, in order. Identical
    // across platforms for identical event sequences; use it to pin a run in a test.
    std::uint64_t fingerprint() const { return fingerprint_; }

    // The named random stream of this engine, created on first use; see random.hpp. The
    // reference stays valid for the engine's lifetime (reset() reseeds it in place).
    RandomStream& rng(std::string_view name);
    std::uint64_t seed() const { return seed_; }

    // Back to time 0 with no pending events, zero counters and fingerprint, sequence
    // numbers from 1 again, every stream reseeded; observers are kept. Destroys pending
    // callbacks. Throws std::logic_error when called from inside run(). Resources, flow
    // networks and activity graphs remember engine times and events: build them anew.
    void reset();
    // As reset(), with a new seed (e.g. derive_seed(seed, replication)).
    void reset(std::uint64_t new_seed);

private:
    // A scheduled event's callback and labels in one 64-byte record: kind and entity fill
    // the tail padding of the 16-byte aligned callback. A slot is live (its callback set
    // and slot_seq() its event's seq), cancelled (callback empty, seq 0, its entry still in
    // the set), running (callback set, seq 0, no entry) or free (callback empty, seq 0, on
    // the free list through `entity`). Live and cancelled slots have exactly one entry in
    // the set, the others none.
    struct Slot {
        [[no_unique_address]] Callback callback;
        std::uint32_t kind = 0;
        std::uint32_t entity = 0;  // the next free slot while the slot is free
    };
    static_assert(sizeof(Slot) == 64, "Engine::Slot: kind and entity no longer fit the callback's padding");
    static constexpr std::uint32_t no_slot = UINT32_MAX;
    // Slots live in fixed blocks rather than one vector: growing never moves the pending
    // callbacks (so one can run in place while it schedules more), and the storage held
    // beyond the peak is under one block instead of up to the peak again. A block also
    // holds the seq of each slot's live event (0 otherwise), read by cancel() only, so
    // that it lives apart from the slots.
    static constexpr std::uint32_t slots_per_block = 1024;
    struct SlotBlock {
        Slot slots[slots_per_block];
        std::uint64_t seqs[slots_per_block] = {};
    };

    using AnySet = std::variant<FourAryHeapEventSet, BinaryHeapEventSet, CalendarEventSet>;

    void loop(Time limit, bool advance_clock);
    template <class Set>
    void run_events(Set& set, Time limit);
    void execute(const EventEntry& e);
    Slot& slot(std::uint32_t i) { return blocks_[i / slots_per_block]->slots[i % slots_per_block]; }
    std::uint64_t& slot_seq(std::uint32_t i) { return blocks_[i / slots_per_block]->seqs[i % slots_per_block]; }
    std::uint32_t acquire_slot();
    void free_slot(std::uint32_t i);
    void compact_if_mostly_dead();

    AnySet set_;
    std::vector<std::unique_ptr<SlotBlock>> blocks_;
    std::uint32_t slot_count_ = 0;  // slots ever handed out since construction or reset()
    std::uint32_t free_head_ = no_slot;
    std::size_t cancelled_ = 0;  // cancelled slots, whose entries are still in the set
    std::vector<Observer*> observers_;
    std::map<std::string, RandomStream, std::less<>> streams_;
    std::uint64_t seed_;
    Time now_ = 0;
    std::uint64_t next_seq_ = 1;
    std::size_t live_ = 0;
    std::uint64_t executed_ = 0;
    std::uint64_t fingerprint_;
    bool running_ = false;
    bool stop_requested_ = false;
};

}  // namespace rentsim::sim
