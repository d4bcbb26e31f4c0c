// The event sets against a plain std::priority_queue, in the hold model: `population`
// events are pending; the earliest is taken and its successor pushed at now + Exp(mean
// 1 us), so the size stays constant. Each benchmark runs its subject and its baseline
// in alternating batches of 100k events in the same process, timing each batch with the
// thread's CPU clock, and reports (per second of CPU, so other load on the machine does
// not count):
//
//   rate          events per second of the subject
//   pq_rate       events per second of the baseline, measured alongside
//   ratio         rate / pq_rate
//   B_per_event   heap bytes the subject holds per pending event
//   pq_B_per_ev   the same for the baseline
//   B_beyond_cb   (engine level) B_per_event less the callback's 48-byte inline storage
//
// Bytes are counted, not estimated: this program replaces the global operator new and
// delete with ones that keep a running total of live bytes (vector slack included), and
// a figure is the growth of that total from before the subject is built to after its
// warm-up, divided by `population`.
//
// Two levels, each compared like with like:
//   BM_set_hold/<set>     the raw set: pop, then push (time + delay, next seq, payload).
//                         Baseline: std::priority_queue of 16-byte (time, seq) records
//                         doing the same pop and push.
//   BM_engine_hold/<set>  the whole engine: each event's callback (a Callback, 8 bytes
//                         of captures) draws the delay and calls schedule_in; the engine
//                         pops, keeps its slots, fingerprint and observers, dispatches.
//                         Baseline: the same callback type, invoked through the same
//                         type erasure, pushing (time, seq) records onto a
//                         std::priority_queue that a bare loop pops. All events of the
//                         hold model run the same code, so the baseline needs no
//                         per-event callback storage; the engine keeps one per event.
// BM_burst: schedule `population` events at random times, then run them all.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <new>
#include <queue>
#include <vector>

#include "sim/engine.hpp"
#include "sim/event_set.hpp"

using namespace rentsim::sim;

// ---------------------------------------------------------------------------------------
// Live heap bytes. A benchmark-only global, like the allocation test's counter; each block
// carries its size in a header just before it.

namespace {
std::size_t g_live_bytes = 0;

constexpr std::size_t header_for(std::size_t align) { return align < 16 ? 16 : align; }

void* counted_new(std::size_t n, std::size_t align) {
    const std::size_t header = header_for(align);
    const std::size_t total = (n + header + align - 1) / align * align;
    void* raw = align <= alignof(std::max_align_t) ? std::malloc(total) : std::aligned_alloc(align, total);
    if (raw == nullptr) throw std::bad_alloc();
    auto* p = static_cast<std::byte*>(raw) + header;
    *reinterpret_cast<std::size_t*>(p - sizeof(std::size_t)) = n;
    g_live_bytes += n;
    return p;
}

void counted_delete(void* q, std::size_t align) noexcept {
    if (q == nullptr) return;
    auto* p = static_cast<std::byte*>(q);
    g_live_bytes -= *reinterpret_cast<std::size_t*>(p - sizeof(std::size_t));
    std::free(p - header_for(align));
}
}  // namespace

void* operator new(std::size_t n) { return counted_new(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return counted_new(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_new(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_new(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return counted_new(n, alignof(std::max_align_t));
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return counted_new(n, alignof(std::max_align_t));
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { counted_delete(p, alignof(std::max_align_t)); }
void operator delete[](void* p) noexcept { counted_delete(p, alignof(std::max_align_t)); }
void operator delete(void* p, std::size_t) noexcept { counted_delete(p, alignof(std::max_align_t)); }
void operator delete[](void* p, std::size_t) noexcept { counted_delete(p, alignof(std::max_align_t)); }
void operator delete(void* p, std::align_val_t a) noexcept { counted_delete(p, static_cast<std::size_t>(a)); }
void operator delete[](void* p, std::align_val_t a) noexcept { counted_delete(p, static_cast<std::size_t>(a)); }
void operator delete(void* p, std::size_t, std::align_val_t a) noexcept {
    counted_delete(p, static_cast<std::size_t>(a));
}
void operator delete[](void* p, std::size_t, std::align_val_t a) noexcept {
    counted_delete(p, static_cast<std::size_t>(a));
}

namespace {

constexpr double mean_delay_ns = 1'000.0;
constexpr std::uint64_t batch = 100'000;

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Time draw_delay(RandomStream& rng) { return static_cast<Time>(rng.exponential(mean_delay_ns)); }

// The baseline's record and order: earliest (time, seq) on top of std::priority_queue.
struct Record {
    Time time;
    std::uint64_t seq;
};
struct Later {
    bool operator()(const Record& a, const Record& b) const {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
};
using Baseline = std::priority_queue<Record, std::vector<Record>, Later>;

// Runs subject and baseline batches alternately and fills in the counters described at
// the top. Both callables run `batch` events.
template <class Subject, class Reference>
void compare(benchmark::State& state, Subject&& subject, Reference&& reference, double bytes, double pq_bytes) {
    double subject_s = 0.0;
    double reference_s = 0.0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        subject();
        const double t1 = thread_cpu_seconds();
        reference();
        const double t2 = thread_cpu_seconds();
        state.SetIterationTime(t1 - t0);
        subject_s += t1 - t0;
        reference_s += t2 - t1;
    }
    const double events = static_cast<double>(state.iterations() * batch);
    const double population = static_cast<double>(state.range(0));
    state.counters["rate"] = benchmark::Counter(events / subject_s);
    state.counters["pq_rate"] = benchmark::Counter(events / reference_s);
    state.counters["ratio"] = benchmark::Counter(reference_s / subject_s);
    state.counters["B_per_event"] = benchmark::Counter(bytes / population);
    state.counters["pq_B_per_ev"] = benchmark::Counter(pq_bytes / population);
}

// --- raw set level ----------------------------------------------------------------------

template <class Set>
void BM_set_hold(benchmark::State& state, Set /*tag*/) {
    const auto population = static_cast<std::uint64_t>(state.range(0));

    const std::size_t set_before = g_live_bytes;
    Set set;
    RandomStream set_rng(1, "set");
    std::uint64_t set_seq = 1;
    for (std::uint64_t i = 0; i < population; ++i) {
        set.push(EventEntry{draw_delay(set_rng), set_seq++, static_cast<std::uint32_t>(i)});
    }
    auto run_set = [&](std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; ++i) {
            const EventEntry e = set.pop();
            set.push(EventEntry{e.time + draw_delay(set_rng), set_seq++, e.payload});
        }
    };
    run_set(4 * population);  // warm up: reach the steady state of the time distribution
    const auto set_bytes = static_cast<double>(g_live_bytes - set_before);

    const std::size_t pq_before = g_live_bytes;
    Baseline pq;
    RandomStream pq_rng(1, "set");
    std::uint64_t pq_seq = 1;
    for (std::uint64_t i = 0; i < population; ++i) pq.push(Record{draw_delay(pq_rng), pq_seq++});
    auto run_pq = [&](std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; ++i) {
            const Record r = pq.top();
            pq.pop();
            pq.push(Record{r.time + draw_delay(pq_rng), pq_seq++});
        }
    };
    run_pq(4 * population);
    const auto pq_bytes = static_cast<double>(g_live_bytes - pq_before);

    compare(state, [&] { run_set(batch); }, [&] { run_pq(batch); }, set_bytes, pq_bytes);
}

// --- engine level -------------------------------------------------------------------------

struct Hold {
    Engine* engine;
    RandomStream* rng;
    std::uint64_t* left;
    void operator()() const {
        engine->schedule_in(draw_delay(*rng), *this);
        if (--*left == 0) engine->stop();
    }
};

// The baseline engine: a clock, a std::priority_queue of (time, seq) and one Callback.
struct PqEngine {
    Baseline pq;
    Time now = 0;
    std::uint64_t seq = 1;
    Callback callback;

    void run(std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; ++i) {
            now = pq.top().time;
            pq.pop();
            callback();
        }
    }
};

struct PqHold {
    PqEngine* engine;
    RandomStream* rng;
    void operator()() const { engine->pq.push(Record{engine->now + draw_delay(*rng), engine->seq++}); }
};

void BM_engine_hold(benchmark::State& state, EventSetKind kind) {
    const auto population = static_cast<std::uint64_t>(state.range(0));

    const std::size_t engine_before = g_live_bytes;
    Engine e(1, kind);
    RandomStream& rng = e.rng("hold");
    std::uint64_t left = 0;
    for (std::uint64_t i = 0; i < population; ++i) e.schedule_in(draw_delay(rng), Hold{&e, &rng, &left});
    left = 4 * population;  // warm up: reach the steady state
    e.run();
    const auto engine_bytes = static_cast<double>(g_live_bytes - engine_before);

    const std::size_t pq_before = g_live_bytes;
    PqEngine base;
    RandomStream base_rng(1, "hold");
    base.callback = PqHold{&base, &base_rng};
    for (std::uint64_t i = 0; i < population; ++i) base.pq.push(Record{draw_delay(base_rng), base.seq++});
    base.run(4 * population);
    const auto pq_bytes = static_cast<double>(g_live_bytes - pq_before);

    compare(
        state,
        [&] {
            left = batch;
            e.run();
        },
        [&] { base.run(batch); }, engine_bytes, pq_bytes);
    // The target's measure: what the engine holds per pending event beyond the callback's
    // inline storage (the captures any event set must keep somewhere).
    state.counters["B_beyond_cb"] =
        benchmark::Counter(engine_bytes / static_cast<double>(population) - static_cast<double>(rentsim::sim::Callback::capacity));
    benchmark::DoNotOptimize(e.fingerprint());
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

void populations(benchmark::internal::Benchmark* b) {
    for (const std::int64_t n : {1'000, 10'000, 1'000'000}) b->Arg(n);
    b->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_CAPTURE(BM_set_hold, four_ary_heap, FourAryHeapEventSet{})->Apply(populations);
BENCHMARK_CAPTURE(BM_set_hold, binary_heap, BinaryHeapEventSet{})->Apply(populations);
BENCHMARK_CAPTURE(BM_set_hold, calendar, CalendarEventSet{})->Apply(populations);
BENCHMARK_CAPTURE(BM_engine_hold, four_ary_heap, EventSetKind::four_ary_heap)->Apply(populations);
BENCHMARK_CAPTURE(BM_engine_hold, binary_heap, EventSetKind::binary_heap)->Apply(populations);
BENCHMARK_CAPTURE(BM_engine_hold, calendar, EventSetKind::calendar)->Apply(populations);
BENCHMARK_CAPTURE(BM_burst, four_ary_heap, EventSetKind::four_ary_heap)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_burst, binary_heap, EventSetKind::binary_heap)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_burst, calendar, EventSetKind::calendar)->Arg(1 << 16);

BENCHMARK_MAIN();
