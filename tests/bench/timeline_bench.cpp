// Timeline writing speed and size: a synthetic million-span timeline (8 ranks x 4 streams,
// every third kernel overlapping the next so that tracks split, an arrow every tenth span, a
// counter sample every hundredth), as JSON text in memory and as a file written atomically;
// and the timeline of one GPT-3 175B step on 1,024 A100s as `rentsim run --timeline` builds it.
// The README's "Timelines" figures come from this program.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "analysis/report/step_timeline.hpp"
#include "analysis/report/timeline.hpp"
#include "analysis/scenario/scenario.hpp"

namespace {

using rentsim::report::Timeline;

Timeline synthetic(std::int64_t spans) {
    Timeline t;
    const int ranks = 8, streams = 4;
    const std::int64_t per_stream = spans / (ranks * streams);
    std::uint64_t id = 0;
    for (int r = 0; r < ranks; ++r) {
        t.process_names.push_back("rank " + std::to_string(r));
        for (int s = 0; s < streams; ++s) {
            const std::string thread = "stream " + std::to_string(7 + s);
            for (std::int64_t k = 0; k < per_stream; ++k) {
                // 1 us apart; every third kernel lasts 1.4 us and overlaps the next.
                const std::int64_t start = k * 1000 + s * 137, dur = k % 3 == 2 ? 1400 : 800;
                ++id;
                t.spans.push_back({r, thread, k % 2 ? "sm80_xmma_gemm_f16f16_f16f32" : "ncclDevKernel_AllReduce_Sum_f16_RING_LL",
                                   k % 2 ? "kernel" : "communication", start, dur, id, {{"grid", "[132, 1, 1]"}}});
                if (id % 10 == 0) t.flows.push_back({id - 1, id});
                if (id % 100 == 0) t.counters.push_back({r, "link busy", start, static_cast<double>(k % 7) / 7.0});
            }
        }
    }
    return t;
}

void BM_timeline_json(benchmark::State& state) {
    const Timeline t = synthetic(state.range(0));
    rentsim::report::TimelineWritten w;
    for (auto _ : state) {
        auto text = rentsim::report::timeline_json(t, {}, &w);
        benchmark::DoNotOptimize(text);
    }
    state.counters["spans"] = static_cast<double>(w.spans);
    state.counters["tracks"] = static_cast<double>(w.tracks);
    state.counters["MB"] = static_cast<double>(w.bytes) / 1e6;
    state.counters["bytes_per_span"] = static_cast<double>(w.bytes) / static_cast<double>(w.spans);
}
BENCHMARK(BM_timeline_json)->ArgName("spans")->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_write_timeline(benchmark::State& state) {
    const Timeline t = synthetic(state.range(0));
    const auto path = std::filesystem::temp_directory_path() / ("rentsim-timeline-bench-" + std::to_string(::getpid()) + ".json");
    for (auto _ : state) {
        auto w = rentsim::report::write_timeline(t, path.string());
        benchmark::DoNotOptimize(w);
    }
    std::filesystem::remove(path);
}
BENCHMARK(BM_write_timeline)->ArgName("spans")->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// One step of GPT-3 175B on 1,024 A100s (tp 8, pp 16, dp 8), planned, simulated and laid out.
void BM_step_timeline_gpt3_175b_1024_a100(benchmark::State& state) {
    const auto s = rentsim::analysis::load_scenarios(std::string(RENTSIM_SOURCE_DIR) + "/scenarios/gpt3-175b-a100-1024.json")
                       .points.at(0);
    std::size_t bytes = 0;
    for (auto _ : state) {
        const auto st = rentsim::report::step_timeline(s);
        bytes = rentsim::report::timeline_json(st.timeline).size();
        benchmark::DoNotOptimize(bytes);
    }
    state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_step_timeline_gpt3_175b_1024_a100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
