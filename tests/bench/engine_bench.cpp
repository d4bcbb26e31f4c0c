// Events per second of the engine's schedule + execute loop, for each event set.
//
// BM_hold: the classic hold model. `population` events are pending; each one, when run,
// schedules its successor after an exponential delay (mean 1 us), so the set's size stays
// constant. items_per_second is executed events per second.
// BM_burst: schedule `population` events at random times, then run them all.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/engine.hpp"

using namespace rentsim::sim;

namespace {

struct Hold {
    Engine* engine;
    std::uint64_t* left;
    void operator()() const {
        const double delay = engine->rng("hold").exponential(1'000.0);
        engine->schedule_in(static_cast<Time>(delay), *this);
        if (--*left == 0) engine->stop();
    }
};

void BM_hold(benchmark::State& state, EventSetKind kind) {
    const auto population = state.range(0);
    Engine e(1, kind);
    std::uint64_t left = 0;
    for (std::int64_t i = 0; i < population; ++i) {
        e.schedule_in(static_cast<Time>(e.rng("start").exponential(1'000.0)), Hold{&e, &left});
    }
    left = static_cast<std::uint64_t>(population) * 4;  // warm up: reach the steady state
    e.run();
    constexpr std::uint64_t batch = 100'000;
    for (auto _ : state) {
        left = batch;
        e.run();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}

void BM_burst(benchmark::State& state, EventSetKind kind) {
    const auto population = state.range(0);
    Engine e(1, kind);
    std::uint64_t sink = 0;
    for (auto _ : state) {
        RandomStream& rng = e.rng("burst");
        for (std::int64_t i = 0; i < population; ++i) {
            e.schedule_at(e.now() + rng.uniform_int(0, 1'000'000), [&sink] { ++sink; });
        }
        e.run();
    }
    benchmark::DoNotOptimize(sink);
    state.SetItemsProcessed(state.iterations() * population);
}

}  // namespace

BENCHMARK_CAPTURE(BM_hold, binary_heap, EventSetKind::binary_heap)->RangeMultiplier(32)->Range(32, 1 << 20);
BENCHMARK_CAPTURE(BM_hold, calendar, EventSetKind::calendar)->RangeMultiplier(32)->Range(32, 1 << 20);
BENCHMARK_CAPTURE(BM_burst, binary_heap, EventSetKind::binary_heap)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_burst, calendar, EventSetKind::calendar)->Arg(1 << 16);

BENCHMARK_MAIN();
