// The pending-event set: a priority queue of (time, seq, payload) entries popped in
// increasing (time, seq) order. Two implementations share this interface and one test
// suite: a binary heap (O(log n), predictable) and a calendar queue (Brown 1988, O(1)
// expected when event times are spread smoothly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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

enum class EventSetKind { binary_heap, calendar };

std::string_view to_string(EventSetKind kind);

// Preconditions for every implementation: time >= 0 and (time, seq) pairs are unique.
// top() and pop() require !empty(). top() is non-const because a calendar queue moves
// its cursor while searching. Storage is kept across clear() so a reused set does not
// allocate again.
class EventSet {
public:
    virtual ~EventSet() = default;

    virtual void push(const EventEntry& e) = 0;
    virtual const EventEntry& top() = 0;
    virtual EventEntry pop() = 0;
    virtual std::size_t size() const = 0;
    bool empty() const { return size() == 0; }
    virtual void clear() = 0;
    virtual void reserve(std::size_t n) = 0;
    virtual EventSetKind kind() const = 0;
};

std::unique_ptr<EventSet> make_event_set(EventSetKind kind);

// An implicit binary min-heap in a vector.
class BinaryHeapEventSet final : public EventSet {
public:
    void push(const EventEntry& e) override;
    const EventEntry& top() override;
    EventEntry pop() override;
    std::size_t size() const override { return heap_.size(); }
    void clear() override { heap_.clear(); }
    void reserve(std::size_t n) override { heap_.reserve(n); }
    EventSetKind kind() const override { return EventSetKind::binary_heap; }

private:
    std::vector<EventEntry> heap_;
};

// A calendar queue: a ring of buckets ("days") of fixed width in ns, each a sorted linked
// list of pooled nodes. The bucket count doubles or halves with the size, and the width
// is re-estimated from the earliest events on every resize, as in Brown (1988), and also
// when operations have become expensive on average (the time distribution has drifted).
class CalendarEventSet final : public EventSet {
public:
    CalendarEventSet();

    void push(const EventEntry& e) override;
    const EventEntry& top() override;
    EventEntry pop() override;
    std::size_t size() const override { return size_; }
    void clear() override;
    void reserve(std::size_t n) override;
    EventSetKind kind() const override { return EventSetKind::calendar; }

    std::size_t bucket_count() const { return buckets_.size(); }
    Time bucket_width() const { return width_; }

private:
    static constexpr std::uint32_t nil = UINT32_MAX;
    static constexpr std::size_t min_buckets = 16;

    struct Node {
        EventEntry entry;
        std::uint32_t next = nil;
    };
    struct Bucket {
        std::uint32_t head = nil;
        std::uint32_t tail = nil;
    };

    std::size_t locate();
    void link(std::uint32_t node);
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

}  // namespace rentsim::sim
