#include "sim/event_set.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <stdexcept>

namespace rentsim::sim {

std::string_view to_string(EventSetKind kind) {
    switch (kind) {
    case EventSetKind::four_ary_heap: return "four_ary_heap";
    case EventSetKind::binary_heap: return "binary_heap";
    case EventSetKind::calendar: return "calendar";
    }
    return "unknown";
}

// ---------------------------------------------------------------------------------------
// 4-ary heap

void FourAryHeapEventSet::clear() {
    keys_.clear();
    payloads_.clear();
}

void FourAryHeapEventSet::reserve(std::size_t n) {
    keys_.reserve(n);
    payloads_.reserve(n);
}

void FourAryHeapEventSet::push(const EventEntry& e) {
    assert(e.time >= 0);
    // Grow by an eighth, not libstdc++'s doubling: unused capacity stays under 12.5% of the
    // entries (at most 2.5 B per pending event), still amortised O(1) per push.
    if (keys_.size() == keys_.capacity()) reserve(keys_.size() + keys_.size() / 8 + 64);
    keys_.emplace_back();
    payloads_.emplace_back();
    sift_up(keys_.size() - 1, Key{e.time, e.seq}, e.payload);
}

EventEntry FourAryHeapEventSet::top() const {
    assert(!keys_.empty());
    return EventEntry{keys_[0].time, keys_[0].seq, payloads_[0]};
}

EventEntry FourAryHeapEventSet::pop() {
    assert(!keys_.empty());
    const EventEntry e{keys_[0].time, keys_[0].seq, payloads_[0]};
    const Key last = keys_.back();
    const std::uint32_t last_payload = payloads_.back();
    keys_.pop_back();
    payloads_.pop_back();
    if (!keys_.empty()) sift_down(0, last, last_payload);
    return e;
}

// Both sifts move a hole instead of swapping: one store per level.
void FourAryHeapEventSet::sift_up(std::size_t i, Key key, std::uint32_t payload) {
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!(key < keys_[parent])) break;
        keys_[i] = keys_[parent];
        payloads_[i] = payloads_[parent];
        i = parent;
    }
    keys_[i] = key;
    payloads_[i] = payload;
}

void FourAryHeapEventSet::sift_down(std::size_t i, Key key, std::uint32_t payload) {
    const std::size_t n = keys_.size();
    for (;;) {
        const std::size_t first = 4 * i + 1;
        if (first >= n) break;
        std::size_t best = first;
        if (first + 4 <= n) {
            // All four children exist (every level but the last): a fixed sequence of
            // comparisons the compiler can unroll.
            if (keys_[first + 1] < keys_[best]) best = first + 1;
            if (keys_[first + 2] < keys_[best]) best = first + 2;
            if (keys_[first + 3] < keys_[best]) best = first + 3;
        } else {
            for (std::size_t c = first + 1; c < n; ++c) {
                if (keys_[c] < keys_[best]) best = c;
            }
        }
        if (!(keys_[best] < key)) break;
        keys_[i] = keys_[best];
        payloads_[i] = payloads_[best];
        i = best;
    }
    keys_[i] = key;
    payloads_[i] = payload;
}

// ---------------------------------------------------------------------------------------
// Binary heap

namespace {
// std::*_heap build max-heaps; ordering by "comes later" puts the earliest entry on top.
constexpr auto later = [](const EventEntry& a, const EventEntry& b) { return precedes(b, a); };
}  // namespace

void BinaryHeapEventSet::push(const EventEntry& e) {
    assert(e.time >= 0);
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), later);
}

EventEntry BinaryHeapEventSet::top() const {
    assert(!heap_.empty());
    return heap_.front();
}

EventEntry BinaryHeapEventSet::pop() {
    assert(!heap_.empty());
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const EventEntry e = heap_.back();
    heap_.pop_back();
    return e;
}

void BinaryHeapEventSet::heapify() { std::make_heap(heap_.begin(), heap_.end(), later); }

// ---------------------------------------------------------------------------------------
// Calendar queue

CalendarEventSet::CalendarEventSet() : buckets_(min_buckets), mask_(min_buckets - 1), cursor_(no_day) {}

void CalendarEventSet::clear() {
    nodes_.clear();
    free_ = nil;
    buckets_.assign(min_buckets, Bucket{});
    mask_ = min_buckets - 1;
    width_ = 1000;
    cursor_ = no_day;
    size_ = 0;
    ops_since_rebuild_ = 0;
    cost_since_rebuild_ = 0;
}

void CalendarEventSet::reserve(std::size_t n) {
    nodes_.reserve(n);
    scratch_.reserve(n);
    buckets_.reserve(std::bit_ceil(std::max(n, min_buckets)));
}

void CalendarEventSet::push(const EventEntry& e) {
    assert(e.time >= 0);
    std::uint32_t idx = free_;
    if (idx != nil) {
        free_ = nodes_[idx].next;
        nodes_[idx] = Node{e.time, e.seq, e.payload, nil};
    } else {
        if (nodes_.size() >= nil) throw std::length_error("CalendarEventSet: too many pending events");
        idx = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back(Node{e.time, e.seq, e.payload, nil});
    }
    link(idx);
    ++size_;
    ++ops_since_rebuild_;
    if (size_ > 2 * buckets_.size()) rebuild(2 * buckets_.size());
}

EventEntry CalendarEventSet::top() {
    assert(size_ > 0);
    return nodes_[buckets_[locate()].head].entry();
}

void CalendarEventSet::release(std::uint32_t idx) {
    nodes_[idx].next = free_;
    free_ = idx;
    --size_;
}

EventEntry CalendarEventSet::pop() {
    assert(size_ > 0);
    Bucket& bucket = buckets_[locate()];
    const std::uint32_t idx = bucket.head;
    const EventEntry e = nodes_[idx].entry();
    bucket.head = nodes_[idx].next;
    if (bucket.head == nil) bucket.tail = nil;
    release(idx);
    ++ops_since_rebuild_;
    if (size_ == 0) cursor_ = no_day;
    if (buckets_.size() > min_buckets && size_ < buckets_.size() / 2) {
        rebuild(buckets_.size() / 2);
    } else if (ops_since_rebuild_ >= std::max<std::size_t>(size_, 64) &&
               cost_since_rebuild_ > 8 * ops_since_rebuild_) {
        // The width no longer matches the spacing of events (it was estimated from an
        // earlier population). Re-estimating at most once per size_ operations keeps the
        // O(n log n) rebuild amortised to O(log n) even if the estimate stays poor.
        rebuild(buckets_.size());
    }
    return e;
}

void CalendarEventSet::note_cost(std::size_t steps) { cost_since_rebuild_ += steps; }

std::size_t CalendarEventSet::locate() {
    // Serve days in order; a bucket holds the current day's events at its head, if any.
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
        const std::size_t b = static_cast<std::size_t>(cursor_) & mask_;
        const std::uint32_t h = buckets_[b].head;
        if (h != nil && nodes_[h].time / width_ <= cursor_) {
            note_cost(i);
            return b;
        }
        ++cursor_;
    }
    // A whole year of empty days: the next event is far ahead, so search for it directly.
    std::size_t best = buckets_.size();
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
        const std::uint32_t h = buckets_[b].head;
        if (h == nil) continue;
        if (best == buckets_.size() || nodes_[h] < nodes_[buckets_[best].head]) best = b;
    }
    assert(best < buckets_.size());
    cursor_ = nodes_[buckets_[best].head].time / width_;
    note_cost(2 * buckets_.size());
    return best;
}

void CalendarEventSet::link(std::uint32_t idx) {
    Node& n = nodes_[idx];
    n.next = nil;
    const std::int64_t day = n.time / width_;
    // Entries earlier than the day being served (allowed by the interface, never done by
    // the engine) move the cursor back so that the day-by-day scan still finds them.
    if (day < cursor_) cursor_ = day;
    Bucket& b = buckets_[static_cast<std::size_t>(day) & mask_];
    if (b.head == nil) {
        b.head = b.tail = idx;
        return;
    }
    // Appending is the common case: the engine pushes increasing sequence numbers.
    if (!(n < nodes_[b.tail])) {
        nodes_[b.tail].next = idx;
        b.tail = idx;
        return;
    }
    if (n < nodes_[b.head]) {
        n.next = b.head;
        b.head = idx;
        return;
    }
    std::uint32_t prev = b.head;
    std::uint32_t next = nodes_[prev].next;
    std::size_t steps = 1;
    while (!(n < nodes_[next])) {  // stops at the tail at the latest
        prev = next;
        next = nodes_[prev].next;
        ++steps;
    }
    n.next = next;
    nodes_[prev].next = idx;
    note_cost(steps);
}

void CalendarEventSet::rebuild(std::size_t buckets) {
    scratch_.clear();
    for (const Bucket& b : buckets_) {
        for (std::uint32_t i = b.head; i != nil; i = nodes_[i].next) scratch_.push_back(i);
    }
    std::sort(scratch_.begin(), scratch_.end(),
              [this](std::uint32_t a, std::uint32_t b) { return nodes_[a] < nodes_[b]; });
    buckets_.assign(buckets, Bucket{});
    mask_ = buckets - 1;
    width_ = estimate_width();
    cursor_ = no_day;
    // In sorted order every insertion is an append.
    for (const std::uint32_t i : scratch_) link(i);
    ops_since_rebuild_ = 0;
    cost_since_rebuild_ = 0;
}

Time CalendarEventSet::estimate_width() const {
    // Brown's rule: three times the mean gap between the earliest events, ignoring gaps
    // more than twice the average so that a few far-future events do not widen the days.
    const std::size_t n = std::min<std::size_t>(scratch_.size(), 25);
    if (n < 2) return width_;
    auto time_at = [this](std::size_t k) { return static_cast<double>(nodes_[scratch_[k]].time); };
    const double avg = (time_at(n - 1) - time_at(0)) / static_cast<double>(n - 1);
    if (avg <= 0.0) return width_;
    double sum = 0.0;
    std::size_t count = 0;
    for (std::size_t k = 1; k < n; ++k) {
        const double gap = time_at(k) - time_at(k - 1);
        if (gap <= 2.0 * avg) {
            sum += gap;
            ++count;
        }
    }
    const double w = 3.0 * sum / static_cast<double>(count);
    return static_cast<Time>(std::clamp(std::ceil(w), 1.0, 0x1p62));
}

}  // namespace rentsim::sim
