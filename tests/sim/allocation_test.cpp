// Shows that the engine's steady state does not allocate: this program replaces the global
// operator new with one that counts calls, runs each workload until it has reached its
// peak size, then counts the allocations of a further stretch, which must be zero.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "sim/activity.hpp"
#include "sim/engine.hpp"
#include "sim/link.hpp"
#include "sim/resource.hpp"
#include "tests/sim/event_set_kinds.hpp"

namespace {
// Counting is a test-only concern; the engine itself has no global state.
std::size_t g_allocations = 0;

void* counted_alloc(std::size_t n, std::size_t align) {
    ++g_allocations;
    if (n == 0) n = 1;
    void* p = align <= alignof(std::max_align_t) ? std::malloc(n) : std::aligned_alloc(align, (n + align - 1) / align * align);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return counted_alloc(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return counted_alloc(n, alignof(std::max_align_t));
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return counted_alloc(n, alignof(std::max_align_t));
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace rentsim::sim;

namespace {

// The classic "hold" model: `population` events, each of which reschedules itself after a
// random delay, and now and then schedules and cancels a spare one. It stops the engine
// after `*left` events.
struct Hold {
    Engine* engine;
    std::uint64_t* left;
    void operator()() const {
        RandomStream& rng = engine->rng("hold");
        if (rng.uniform_int(0, 3) == 0) engine->cancel(engine->schedule_in(rng.uniform_int(1, 5'000), [] {}));
        engine->schedule_in(rng.uniform_int(0, 2'000), *this);
        if (--*left == 0) engine->stop();
    }
};

std::size_t allocations_in_steady_state(EventSetKind kind, int population) {
    Engine e(1, kind);
    std::uint64_t left = 300'000;
    e.rng("hold");  // create the stream before counting; lookups afterwards do not allocate
    for (int i = 0; i < population; ++i) e.schedule_in(i, Hold{&e, &left});
    e.run();  // warm up: slots, free lists and the set reach their peak
    left = 200'000;
    const std::size_t before = g_allocations;
    e.run();
    const std::size_t after = g_allocations;
    CHECK(left == 0);  // the measured stretch did run its events
    return after - before;
}

}  // namespace

TEST_CASE("scheduling and running events does not allocate in steady state") {
    for (const EventSetKind kind : rentsim::sim::testing::all_kinds) {
        for (const int population : {10, 1'000, 20'000}) {
            CAPTURE(to_string(kind));
            CAPTURE(population);
            CHECK(allocations_in_steady_state(kind, population) == 0);
        }
    }
}

TEST_CASE("re-running an activity graph with resources and transfers does not allocate") {
    Engine e;
    FifoResource gpus(e, 2);
    SharedLink link(e, 1e9, 1'000);
    ActivityGraph g(e);
    const auto load = g.add_delay("load", 500);
    for (int i = 0; i < 4; ++i) {
        const auto compute = g.add_resource_use("compute", gpus, 2'000);
        const auto sync = g.add_transfer("sync", link, 1e6);
        g.precede(load, compute);
        g.precede(compute, sync);
    }
    // The completion hook captures one pointer, so std::function stores it inline.
    struct Again {
        ActivityGraph* graph;
        int* runs;
        void operator()(Time) const {
            if (++*runs < 200) graph->start(*this);
        }
    };
    int runs = 0;
    g.start(Again{&g, &runs});
    e.run_until(50'000'000);  // warm up over a few iterations
    REQUIRE(runs > 3);
    REQUIRE(runs < 150);
    const std::size_t before = g_allocations;
    e.run();
    CHECK(g_allocations - before == 0);
    CHECK(runs == 200);
}

TEST_CASE("the allocation counter does see allocations") {
    const std::size_t before = g_allocations;
    Engine e;  // reserves its storage up front
    e.schedule_in(1, [] {});
    CHECK(g_allocations > before);
}
