// The pending-event set: a priority queue of (time, seq, payload) entries popped in
// increasing (time, seq) order. Three implementations meet the EventSet concept below and
// run one test suite: a 4-ary heap whose (time, seq) keys sit apart from their payloads
// (the engine's default, chosen by measurement: tests/bench/engine_bench.cpp), a binary
// heap of whole entries, and a calendar queue (Brown 1988, O(1) expected when event times
// are spread smoothly). The engine holds the concrete set, so no call is virtual.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace rentsim::sim {

struct EventEntry {
    Time time = 0;
    std::uint64_t seq = 0;
    std::uint32_t payload = 0;  // opaque to the set; the engine stores a slot index here
};

// Strict order of the set: by time, then by sequence number.
constexpr bool precedes(const EventEntry& a, const EventEntry& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
}

enum class EventSetKind { four_ary_heap, binary_heap, calendar };

inline constexpr EventSetKind default_event_set = EventSetKind::four_ary_heap;

std::string_view to_string(EventSetKind kind);

// The contract of every implementation. Preconditions: time >= 0 and (time, seq) pairs
// are unique; top() and pop() require !empty(). top() is non-const because a calendar
// queue moves its cursor while searching. remove_if(dead) calls dead(entry) exactly once
// per entry, removes those for which it returns true and returns how many it removed.
// Storage is kept across clear() so a reused set does not allocate again, and push()
// allocates only when the size exceeds every earlier size (and reserve()).
template <class S>
concept EventSet = requires(S s, const S cs, const EventEntry& e, std::size_t n) {
    s.push(e);
    { s.top() } -> std::same_as<EventEntry>;
    { s.pop() } -> std::same_as<EventEntry>;
    { cs.size() } -> std::same_as<std::size_t>;
    { cs.empty() } -> std::same_as<bool>;
    s.clear();
    s.reserve(n);
    { s.remove_if([](const EventEntry&) { return false; }) } -> std::same_as<std::size_t>;
    { S::kind } -> std::convertible_to<EventSetKind>;
};

// An implicit 4-ary min-heap. The 16-byte (time, seq) keys fill one array and the 4-byte
// payloads a parallel one: four siblings' keys span one 64-byte cache line, the tree is
// half as deep as a binary heap, and an entry costs 20 bytes instead of a padded 24.
class FourAryHeapEventSet {
public:
    static constexpr EventSetKind kind = EventSetKind::four_ary_heap;

    void push(const EventEntry& e);
    EventEntry top() const;
    EventEntry pop();
    std::size_t size() const { return keys_.size(); }
    bool empty() const { return keys_.empty(); }
    void clear();
    void reserve(std::size_t n);
    template <class Dead>
    std::size_t remove_if(Dead dead);

private:
    struct Key {
        Time time;
        std::uint64_t seq;
        friend constexpr bool operator<(const Key& a, const Key& b) {
            return a.time != b.time ? a.time < b.time : a.seq < b.seq;
        }
    };

    void sift_up(std::size_t i, Key key, std::uint32_t payload);
    void sift_down(std::size_t i, Key key, std::uint32_t payload);

    std::vector<Key> keys_;
    std::vector<std::uint32_t> payloads_;
};

// An implicit binary min-heap of whole entries in one vector (std::push_heap/pop_heap).
class BinaryHeapEventSet {
public:
    static constexpr EventSetKind kind = EventSetKind::binary_heap;

    void push(const EventEntry& e);
    EventEntry top() const;
    EventEntry pop();
    std::size_t size() const { return heap_.size(); }
    bool empty() const { return heap_.empty(); }
    void clear() { heap_.clear(); }
    void reserve(std::size_t n) { heap_.reserve(n); }
    template <class Dead>
    std::size_t remove_if(Dead dead);

private:
    void heapify();

    std::vector<EventEntry> heap_;
};

// A calendar queue: a ring of buckets ("days") of fixed width in ns, each a sorted linked
// list of pooled nodes. The bucket count doubles or halves with the size, and the width
// is re-estimated from the earliest events on every resize, as in Brown (1988), and also
// when operations have become expensive on average (the time distribution has drifted).
class CalendarEventSet {
public:
    static constexpr EventSetKind kind = EventSetKind::calendar;

    CalendarEventSet();

    void push(const EventEntry& e);
    EventEntry top();
    EventEntry pop();
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear();
    void reserve(std::size_t n);
    template <class Dead>
    std::size_t remove_if(Dead dead);

    std::size_t bucket_count() const { return buckets_.size(); }
    Time bucket_width() const { return width_; }

private:
    static constexpr std::uint32_t nil = UINT32_MAX;
    static constexpr std::size_t min_buckets = 16;
    // The cursor of an empty calendar; the first push moves it down to that entry's day.
    static constexpr std::int64_t no_day = INT64_MAX;

    // 24 bytes: the entry's fields without its padding, and the link.
    struct Node {
        Time time;
        std::uint64_t seq;
        std::uint32_t payload;
        std::uint32_t next;
        EventEntry entry() const { return EventEntry{time, seq, payload}; }
        friend constexpr bool operator<(const Node& a, const Node& b) {
            return a.time != b.time ? a.time < b.time : a.seq < b.seq;
        }
    };
    struct Bucket {
        std::uint32_t head = nil;
        std::uint32_t tail = nil;
    };

    std::size_t locate();
    void link(std::uint32_t node);
    void release(std::uint32_t node);
    void rebuild(std::size_t buckets);
    Time estimate_width() const;
    void note_cost(std::size_t steps);

    std::vector<Node> nodes_;
    std::uint32_t free_ = nil;
    std::vector<Bucket> buckets_;
    std::size_t mask_ = 0;
    Time width_ = 1000;
    // Index (time / width_) of the "day" being served; no entry lies before it.
    std::int64_t cursor_ = 0;
    std::size_t size_ = 0;
    std::uint64_t ops_since_rebuild_ = 0;
    std::uint64_t cost_since_rebuild_ = 0;
    std::vector<std::uint32_t> scratch_;
};

static_assert(EventSet<FourAryHeapEventSet>);
static_assert(EventSet<BinaryHeapEventSet>);
static_assert(EventSet<CalendarEventSet>);

// ---------------------------------------------------------------------------------------
// remove_if, a template because the engine's predicate also frees the slots it removes.

template <class Dead>
std::size_t FourAryHeapEventSet::remove_if(Dead dead) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < keys_.size(); ++i) {
        if (dead(EventEntry{keys_[i].time, keys_[i].seq, payloads_[i]})) continue;
        keys_[kept] = keys_[i];
        payloads_[kept] = payloads_[i];
        ++kept;
    }
    const std::size_t removed = keys_.size() - kept;
    keys_.resize(kept);
    payloads_.resize(kept);
    // Floyd's heap construction: sift every inner node down, deepest first; O(n).
    for (std::size_t i = kept / 4 + 1; i-- > 0;) {
        if (i < kept) sift_down(i, keys_[i], payloads_[i]);
    }
    return removed;
}

template <class Dead>
std::size_t BinaryHeapEventSet::remove_if(Dead dead) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < heap_.size(); ++i) {
        if (!dead(heap_[i])) heap_[kept++] = heap_[i];
    }
    const std::size_t removed = heap_.size() - kept;
    heap_.resize(kept);
    heapify();
    return removed;
}

template <class Dead>
std::size_t CalendarEventSet::remove_if(Dead dead) {
    std::size_t removed = 0;
    for (Bucket& b : buckets_) {
        std::uint32_t prev = nil;
        std::uint32_t i = b.head;
        while (i != nil) {
            const std::uint32_t next = nodes_[i].next;
            if (dead(nodes_[i].entry())) {
                (prev == nil ? b.head : nodes_[prev].next) = next;
                release(i);
                ++removed;
            } else {
                prev = i;
            }
            i = next;
        }
        b.tail = prev;
    }
    if (size_ == 0) cursor_ = no_day;
    return removed;
}

}  // namespace rentsim::sim
