// Every case here runs against every event-set implementation.
#include "sim/event_set.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/engine.hpp"
#include "sim/random.hpp"
#include "tests/sim/event_set_kinds.hpp"

using namespace rentsim::sim;

namespace {

struct Trace {
    std::vector<Time> times;
    std::vector<int> tags;
};

// Pushes and pops at random, as the engine does (never earlier than the last pop) and,
// for `anywhere`, also earlier; returns the popped entries.
template <class Set>
std::vector<EventEntry> random_workload(std::uint64_t seed, bool anywhere) {
    Set set;
    RandomStream rng(seed, "event-set-workload");
    std::vector<EventEntry> popped;
    std::uint64_t seq = 1;
    Time last = 0;
    for (int i = 0; i < 100'000; ++i) {
        const std::int64_t pick = rng.uniform_int(0, 9);
        if (pick < 6 || set.empty()) {
            Time t = last + rng.uniform_int(0, 5'000);
            if (pick == 0) t = last + rng.uniform_int(0, 3);  // clusters of ties
            if (pick == 1) t = last + rng.uniform_int(0, 1'000'000'000);  // far future
            if (anywhere && pick == 2) t = rng.uniform_int(0, last);
            set.push(EventEntry{t, seq++, static_cast<std::uint32_t>(i)});
        } else {
            popped.push_back(set.pop());
            last = popped.back().time;
        }
    }
    while (!set.empty()) popped.push_back(set.pop());
    return popped;
}

bool nondecreasing(const std::vector<EventEntry>& v) {
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (precedes(v[i], v[i - 1])) return false;
    }
    return true;
}

}  // namespace

TEST_CASE_TEMPLATE("events run in order of time", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    std::vector<Time> seen;
    for (const Time t : {50, 10, 40, 20, 30}) e.schedule_at(t, [&seen, &e] { seen.push_back(e.now()); });
    CHECK(e.pending() == 5);
    e.run();
    CHECK(seen == std::vector<Time>{10, 20, 30, 40, 50});
    CHECK(e.now() == 50);
    CHECK(e.pending() == 0);
    CHECK(e.events_executed() == 5);
}

TEST_CASE_TEMPLATE("events at the same time run in the order they were scheduled", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    std::vector<int> order;
    for (int i = 0; i < 100; ++i) e.schedule_at(i % 2 == 0 ? 7 : 3, [&order, i] { order.push_back(i); });
    e.run();
    REQUIRE(order.size() == 100);
    for (int k = 0; k < 50; ++k) {
        CHECK(order[static_cast<std::size_t>(k)] == 2 * k + 1);       // time 3, odd i, in order
        CHECK(order[static_cast<std::size_t>(50 + k)] == 2 * k);       // time 7, even i, in order
    }
}

TEST_CASE_TEMPLATE("a cancelled event never fires", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    int fired = 0;
    const EventId a = e.schedule_at(10, [&fired] { fired += 1; });
    const EventId b = e.schedule_at(20, [&fired] { fired += 10; });
    e.schedule_at(30, [&fired] { fired += 100; });
    CHECK(e.pending() == 3);
    CHECK(e.cancel(b));
    CHECK(e.pending() == 2);
    SUBCASE("cancel returns false the second time") { CHECK_FALSE(e.cancel(b)); }
    SUBCASE("cancel returns false once the event has run") {
        e.run();
        CHECK_FALSE(e.cancel(a));
    }
    SUBCASE("an invalid id cancels nothing") { CHECK_FALSE(e.cancel(EventId{})); }
    e.run();
    CHECK(fired == 101);
    CHECK(e.events_executed() == 2);
}

TEST_CASE_TEMPLATE("callbacks can schedule and cancel events", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    std::vector<Time> seen;
    EventId victim;
    e.schedule_at(10, [&] {
        seen.push_back(e.now());
        e.schedule_in(5, [&] { seen.push_back(e.now()); });
        e.schedule_in(0, [&] { seen.push_back(e.now()); });  // same time, runs after this one
        CHECK(e.cancel(victim));
    });
    victim = e.schedule_at(12, [&] { seen.push_back(-1); });
    e.run();
    CHECK(seen == std::vector<Time>{10, 10, 15});
}

TEST_CASE_TEMPLATE("a running callback keeps its captures while it schedules thousands of events", K,
                   RENTSIM_EVENT_SET_KINDS) {
    // The engine runs a callback in place in its slot; 5000 new events need new slots
    // beyond the first block, and must not move the running callback's captures.
    Engine e(0, K::kind);
    std::vector<std::int64_t> seen;
    const std::int64_t a = 123'456'789;
    const std::int64_t b = -42;
    e.schedule_at(1, [&e, &seen, a, b] {
        for (int i = 0; i < 5000; ++i) e.schedule_in(1 + i % 3, [&seen, i] { seen.push_back(i); });
        seen.push_back(a);
        seen.push_back(b);
    });
    e.run();
    REQUIRE(seen.size() == 5002);
    CHECK(seen[0] == a);
    CHECK(seen[1] == b);
    // Then by time (1 + i % 3 after t = 1) and, within a time, by scheduling order.
    std::size_t k = 2;
    bool ordered = true;
    for (int r = 0; r < 3; ++r) {
        for (int i = r; i < 5000; i += 3) ordered = ordered && seen[k++] == i;
    }
    CHECK(ordered);
}

TEST_CASE_TEMPLATE("run_until runs events up to and including t and then sets now to t", K,
                   RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    std::vector<Time> seen;
    for (const Time t : {5, 10, 15}) e.schedule_at(t, [&seen, &e] { seen.push_back(e.now()); });
    e.run_until(10);
    CHECK(seen == std::vector<Time>{5, 10});
    CHECK(e.now() == 10);
    CHECK(e.pending() == 1);
    e.run_until(12);
    CHECK(e.now() == 12);
    CHECK(seen.size() == 2);
    // An event scheduled after the clock moved past its neighbours still runs in order.
    e.schedule_at(13, [&seen, &e] { seen.push_back(e.now()); });
    e.run();
    CHECK(seen == std::vector<Time>{5, 10, 13, 15});
    CHECK_THROWS_AS(e.run_until(14), std::logic_error);
}

TEST_CASE_TEMPLATE("stop returns from run after the current event", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    std::vector<Time> seen;
    e.schedule_at(1, [&] { seen.push_back(e.now()); });
    e.schedule_at(2, [&] {
        seen.push_back(e.now());
        e.stop();
    });
    e.schedule_at(3, [&] { seen.push_back(e.now()); });
    e.run();
    CHECK(seen == std::vector<Time>{1, 2});
    CHECK(e.now() == 2);
    SUBCASE("a later run resumes") {
        e.run();
        CHECK(seen == std::vector<Time>{1, 2, 3});
    }
    SUBCASE("run_until stopped early leaves the clock at the stopping event") {
        e.schedule_at(4, [&e] { e.stop(); });
        e.run_until(100);
        CHECK(e.now() == 4);
    }
}

TEST_CASE_TEMPLATE("scheduling in the past is refused", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    e.run_until(100);
    CHECK_THROWS_AS(e.schedule_at(99, [] {}), std::logic_error);
    CHECK_THROWS_AS(e.schedule_in(-1, [] {}), std::logic_error);
    CHECK_THROWS_AS(e.schedule_in(time_max, [] {}), std::logic_error);
    CHECK_THROWS_AS(e.schedule_at(100, Callback{}), std::invalid_argument);
    CHECK(e.pending() == 0);
}

TEST_CASE_TEMPLATE("pending counts live events only when most are cancelled", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(3, K::kind);
    RandomStream& rng = e.rng("cancel-heavy");
    std::vector<EventId> ids;
    std::vector<Time> kept;
    std::vector<int> fired;
    for (int i = 0; i < 20'000; ++i) {
        const Time t = rng.uniform_int(0, 1'000'000);
        ids.push_back(e.schedule_at(t, [&fired, i] { fired.push_back(i); }));
        if (i % 10 == 0) kept.push_back(t);
    }
    std::size_t cancelled = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i % 10 != 0) cancelled += e.cancel(ids[i]) ? 1 : 0;
    }
    CHECK(cancelled == 18'000);
    CHECK(e.pending() == 2'000);
    // The purge of dead entries (more than 4096, outnumbering the live ones) has run; new
    // events reuse the freed slots and still run in order among the survivors.
    std::vector<Time> late;
    for (int i = 0; i < 100; ++i) {
        const Time t = rng.uniform_int(0, 1'000'000);
        e.schedule_at(t, [&fired, i] { fired.push_back(100'000 + i); });
        late.push_back(t);
    }
    e.run();
    REQUIRE(fired.size() == 2'100);
    // Every survivor ran once, in (time, seq) order: rebuild the expected order by hand.
    struct Expected {
        Time t;
        int order;  // scheduling order, which is seq order
        int tag;
    };
    std::vector<Expected> expected;
    for (std::size_t k = 0; k < kept.size(); ++k) expected.push_back({kept[k], static_cast<int>(10 * k), static_cast<int>(10 * k)});
    for (std::size_t k = 0; k < late.size(); ++k) {
        expected.push_back({late[k], 20'000 + static_cast<int>(k), 100'000 + static_cast<int>(k)});
    }
    std::sort(expected.begin(), expected.end(),
              [](const Expected& a, const Expected& b) { return a.t != b.t ? a.t < b.t : a.order < b.order; });
    bool same = true;
    for (std::size_t k = 0; k < expected.size(); ++k) same = same && fired[k] == expected[k].tag;
    CHECK(same);
}

TEST_CASE_TEMPLATE("a new event does not take over a cancelled event's place", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    std::vector<int> seen;
    const EventId a = e.schedule_at(10, [&seen] { seen.push_back(1); });
    CHECK(e.cancel(a));
    // Scheduled after the cancel, when a's entry is still in the set at time 10.
    e.schedule_at(20, [&seen] { seen.push_back(2); });
    e.schedule_at(5, [&seen] { seen.push_back(3); });
    e.run_until(15);
    CHECK(seen == std::vector<int>{3});
    CHECK(e.pending() == 1);
    e.run();
    CHECK(seen == std::vector<int>{3, 2});
}

TEST_CASE_TEMPLATE("a stale id does not cancel the event that reuses its slot", K, RENTSIM_EVENT_SET_KINDS) {
    Engine e(0, K::kind);
    int fired = 0;
    const EventId ran = e.schedule_at(1, [&fired] { fired += 1; });
    e.run();
    const EventId cancelled = e.schedule_at(2, [&fired] { fired += 10; });
    CHECK(e.cancel(cancelled));
    e.run();  // pops the cancelled entry, freeing its slot
    const EventId now_pending = e.schedule_at(3, [&fired] { fired += 100; });
    CHECK_FALSE(e.cancel(ran));
    CHECK_FALSE(e.cancel(cancelled));
    CHECK(e.pending() == 1);
    e.run();
    CHECK(fired == 101);
    CHECK_FALSE(e.cancel(now_pending));
}

TEST_CASE("100k random events run in (time, seq) order, identically with every event set") {
    auto program = [](EventSetKind kind) {
        Engine e(11, kind);
        std::vector<EventInfo> trace;
        struct Recorder final : Observer {
            std::vector<EventInfo>* out;
            explicit Recorder(std::vector<EventInfo>* o) : out(o) {}
            void on_event(const EventInfo& i) override { out->push_back(i); }
        } recorder(&trace);
        e.add_observer(recorder);
        RandomStream& rng = e.rng("events");
        std::vector<EventId> live;
        int scheduled = 0;
        std::function<void()> spawn = [&] {
            const int n = static_cast<int>(rng.uniform_int(1, 2));
            for (int k = 0; k < n && scheduled < 100'000; ++k, ++scheduled) {
                const auto entity = static_cast<std::uint32_t>(scheduled);
                live.push_back(e.schedule_in(rng.uniform_int(0, 20), [&spawn] { spawn(); }, 0, entity));
            }
            if (!live.empty() && rng.uniform_int(0, 9) == 0) {
                e.cancel(live[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(live.size()) - 1))]);
            }
        };
        for (int i = 0; i < 100; ++i, ++scheduled) {
            live.push_back(e.schedule_at(0, [&spawn] { spawn(); }, 0, static_cast<std::uint32_t>(scheduled)));
        }
        e.run();
        CHECK(e.pending() == 0);
        return trace;
    };
    const auto reference = program(EventSetKind::binary_heap);
    CHECK(reference.size() > 90'000);
    bool ordered = true;
    for (std::size_t i = 1; i < reference.size(); ++i) {
        if (reference[i].time < reference[i - 1].time ||
            (reference[i].time == reference[i - 1].time && reference[i].seq <= reference[i - 1].seq)) {
            ordered = false;
        }
    }
    CHECK(ordered);
    for (const EventSetKind kind : rentsim::sim::testing::all_kinds) {
        CAPTURE(to_string(kind));
        const auto trace = program(kind);
        REQUIRE(trace.size() == reference.size());
        bool same = true;
        for (std::size_t i = 0; i < trace.size(); ++i) {
            if (trace[i].seq != reference[i].seq || trace[i].time != reference[i].time) same = false;
        }
        CHECK(same);
    }
}

TEST_CASE_TEMPLATE("an event set pops 100k random entries in the order of a sort", K, RENTSIM_EVENT_SET_KINDS) {
    for (const bool anywhere : {false, true}) {
        CAPTURE(anywhere);
        const auto popped = random_workload<typename K::Set>(5, anywhere);
        // The binary heap is the reference for the interleaved pushes and pops; the final
        // drain is checked against std::sort.
        const auto reference = random_workload<BinaryHeapEventSet>(5, anywhere);
        REQUIRE(popped.size() == reference.size());
        bool same = true;
        for (std::size_t i = 0; i < popped.size(); ++i) {
            if (popped[i].seq != reference[i].seq || popped[i].time != reference[i].time ||
                popped[i].payload != reference[i].payload) {
                same = false;
            }
        }
        CHECK(same);
        if (!anywhere) CHECK(nondecreasing(popped));  // with pushes into the past, pops are ordered only locally
    }
}

TEST_CASE_TEMPLATE("an event set drains in sorted order at every size from 1 to 100", K, RENTSIM_EVENT_SET_KINDS) {
    // Sizes 1..100 cover a 4-ary heap with a partly filled last level of every shape.
    RandomStream rng(9, "drain");
    for (std::size_t n = 1; n <= 100; ++n) {
        typename K::Set set;
        std::vector<EventEntry> entries;
        for (std::size_t i = 0; i < n; ++i) {
            entries.push_back(EventEntry{rng.uniform_int(0, 20), i + 1, static_cast<std::uint32_t>(i)});
            set.push(entries.back());
        }
        std::sort(entries.begin(), entries.end(), precedes);
        bool same = set.size() == n;
        for (const EventEntry& want : entries) {
            const EventEntry top = set.top();
            const EventEntry got = set.pop();
            same = same && top.seq == got.seq && got.seq == want.seq && got.time == want.time &&
                   got.payload == want.payload;
        }
        CAPTURE(n);
        CHECK(same);
        CHECK(set.empty());
    }
}

TEST_CASE_TEMPLATE("remove_if drops exactly the chosen entries and keeps the order", K, RENTSIM_EVENT_SET_KINDS) {
    typename K::Set set;
    // Times 9, 8, ..., 0 twice (seq 1..20); payload = seq. Remove odd payloads.
    std::uint64_t seq = 1;
    for (int round = 0; round < 2; ++round) {
        for (Time t = 9; t >= 0; --t, ++seq) set.push(EventEntry{t, seq, static_cast<std::uint32_t>(seq)});
    }
    std::size_t asked = 0;
    const std::size_t removed = set.remove_if([&asked](const EventEntry& e) {
        ++asked;
        return e.payload % 2 == 1;
    });
    CHECK(asked == 20);
    CHECK(removed == 10);
    CHECK(set.size() == 10);
    // Round 1 puts seq s at time 10 - s, round 2 at time 20 - s: the even seqs left are
    // 2, 4, ..., 10 at times 8, 6, ..., 0 and 12, 14, ..., 20 at the same times, and at
    // each time round 1's smaller seq goes first.
    const std::vector<std::uint64_t> want{10, 20, 8, 18, 6, 16, 4, 14, 2, 12};
    std::vector<std::uint64_t> got;
    while (!set.empty()) got.push_back(set.pop().seq);
    CHECK(got == want);
    CHECK(set.remove_if([](const EventEntry&) { return true; }) == 0);
    set.push(EventEntry{3, 99, 7});
    CHECK(set.pop().payload == 7);
}

TEST_CASE_TEMPLATE("an event set handles ties, far-future outliers and clear", K, RENTSIM_EVENT_SET_KINDS) {
    typename K::Set set;
    CHECK(K::Set::kind == K::kind);
    std::uint64_t seq = 1;
    set.push(EventEntry{time_max - 1, seq++, 0});
    for (int i = 0; i < 1000; ++i) set.push(EventEntry{42, seq++, static_cast<std::uint32_t>(i)});
    set.push(EventEntry{0, seq++, 0});
    CHECK(set.size() == 1002);
    CHECK(set.top().time == 0);
    CHECK(set.pop().time == 0);
    for (int i = 0; i < 1000; ++i) {
        const EventEntry e = set.pop();
        CHECK(e.time == 42);
        CHECK(e.payload == static_cast<std::uint32_t>(i));
    }
    CHECK(set.pop().time == time_max - 1);
    CHECK(set.empty());
    set.push(EventEntry{5, seq++, 1});
    set.push(EventEntry{3, seq++, 2});
    set.clear();
    CHECK(set.empty());
    set.push(EventEntry{9, seq++, 3});
    CHECK(set.pop().payload == 3);
}

TEST_CASE_TEMPLATE("an engine reports the event set it was built with", K, RENTSIM_EVENT_SET_KINDS) {
    CHECK(Engine(0, K::kind).event_set_kind() == K::kind);
    CHECK(Engine().event_set_kind() == default_event_set);
}

TEST_CASE("the calendar queue resizes with its population and stays ordered") {
    CalendarEventSet set;
    const std::size_t initial = set.bucket_count();
    RandomStream rng(1, "calendar");
    std::uint64_t seq = 1;
    for (int i = 0; i < 10'000; ++i) set.push(EventEntry{rng.uniform_int(0, 1'000'000), seq++, 0});
    CHECK(set.bucket_count() > initial);
    CHECK(set.bucket_width() >= 1);
    EventEntry prev = set.pop();
    while (set.size() > 10) {
        const EventEntry e = set.pop();
        CHECK_FALSE(precedes(e, prev));
        prev = e;
    }
    CHECK(set.bucket_count() == initial);
}
