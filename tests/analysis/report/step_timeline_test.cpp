// Timelines of built-in workloads: every shipped scenario's keeps Perfetto's JSON rules, and a
// step's file agrees with what the run reports (step time, compute, exposed communication).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/report/step_timeline.hpp"
#include "analysis/report/timeline.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"
#include "tests/analysis/report/timeline_rules.hpp"

using namespace rentsim;

namespace {

analysis::Scenario point_of(const std::string& file, std::size_t point = 0) {
    return analysis::load_scenarios(std::string(RENTSIM_SOURCE_DIR) + "/scenarios/" + file).points.at(point);
}

std::int64_t sum_of(const report::Timeline& t, const std::string& thread, const std::string& category) {
    std::int64_t sum = 0;
    for (const auto& s : t.spans)
        if (s.thread == thread && s.category == category) sum += s.dur_ns;
    return sum;
}

const report::TimelineSpan& step_span(const report::Timeline& t) {
    for (const auto& s : t.spans)
        if (s.thread == "step") return s;
    FAIL("no step span");
    return t.spans.front();
}

}  // namespace

TEST_CASE("the timeline of every shipped scenario keeps Perfetto's JSON rules") {
    for (const char* file : {"bert-large-a100-8-vs-16.json", "bert-large-elastic-16-2.json", "gpt3-175b-a100-1024.json",
                             "llama2-70b-h100.json", "resnet50-input-bound-workers.json", "resnet50-page-cache.json",
                             "resnet50-stream-vs-stage.json", "resnet50-latency-sensitivity.json",
                             "gpt-1.3b-pricing-plans.json", "llama3-70b-h100-64-auto.json"}) {
        CAPTURE(file);
        const auto st = report::step_timeline(point_of(file));
        const std::string text = report::timeline_json(st.timeline);
        const auto f = test::check_timeline(text);
        CHECK(f.violations == std::vector<std::string>{});
        CHECK(f.process_names.size() == 1);
        CHECK(step_span(st.timeline).dur_ns == st.step_ns);
        // Every span of the step's own activities lies inside the step.
        const auto& step = step_span(st.timeline);
        for (const auto& s : st.timeline.spans)
            if (s.thread == "compute" || s.thread == "communication") {
                CHECK(s.start_ns >= step.start_ns);
                CHECK(s.start_ns + s.dur_ns <= step.start_ns + step.dur_ns);
            }
        CHECK(report::timeline_json(report::step_timeline(point_of(file)).timeline) == text);  // deterministic
    }
}

TEST_CASE("a step's timeline agrees with the run: step time, compute and exposed communication") {
    // BERT-large on 8 A100s: one micro-batch, gradient buckets reduced behind backward, the last
    // one exposed before the optimizer.
    const auto s = point_of("bert-large-a100-8-vs-16.json");
    const auto r = analysis::run_scenario(s);
    const auto st = report::step_timeline(s);
    const auto& t = st.timeline;
    CHECK(st.iteration_s == r.iteration_s);
    CHECK(static_cast<double>(st.step_ns) * 1e-9 == doctest::Approx(r.iteration_s).epsilon(1e-12));
    // The compute stream's compute spans are the run's compute time; the rest of the step,
    // with no input wait, is exposed communication: the last reduction before the optimizer.
    const std::int64_t compute = sum_of(t, "compute", "compute");
    CHECK(static_cast<double>(compute) * 1e-9 == doctest::Approx(r.breakdown.compute_s).epsilon(1e-12));
    CHECK(sum_of(t, "compute", "idle") == 0);
    CHECK(static_cast<double>(st.step_ns - compute) * 1e-9 == doctest::Approx(r.breakdown.exposed_comm_s).epsilon(1e-9));
    // Arrows: each bucket's backward to its reduction and the last reduction to the optimizer;
    // the batch the forward consumes was built before the step began (loaders keep ahead), so
    // it is not shown and has no arrow.
    int reductions = 0;
    for (const auto& sp : t.spans) reductions += sp.thread == "communication";
    CHECK(reductions > 1);
    CHECK(t.flows.size() == static_cast<std::size_t>(reductions) + 1);
    // Without tensor parallelism the layers fill the forward and the backward exactly: the
    // compute model's layer times are what the phases are made of (the backward's stretched
    // by the contention of the reductions overlapping it).
    std::int64_t forward = 0, backward = 0, layer_fwd = 0, layer_bwd = 0;
    for (const auto& sp : t.spans) {
        if (sp.name == "forward") forward += sp.dur_ns;
        if (sp.name.rfind("backward: bucket", 0) == 0) backward += sp.dur_ns;
        if (sp.thread != "layers") continue;
        const bool bwd = sp.name.size() > 9 && sp.name.compare(sp.name.size() - 9, 9, " backward") == 0;
        (bwd ? layer_bwd : layer_fwd) += sp.dur_ns;
    }
    CHECK(forward > 0);
    CHECK(std::abs(layer_fwd - forward) <= 2);  // ns: sums of seconds rounded once or per bucket
    CHECK(std::abs(layer_bwd - backward) <= 2 * reductions);
    // The stream-busy counter: 1 for exactly the reductions' time (they never overlap).
    std::int64_t busy = 0, since = -1;
    for (const auto& c : t.counters) {
        if (c.value == 1.0) since = c.t_ns;
        else if (since >= 0) busy += c.t_ns - since, since = -1;
    }
    CHECK(busy == sum_of(t, "communication", "communication"));
}

TEST_CASE("an input-bound step shows its waits, the loaders and the batches they built") {
    const auto s = point_of("resnet50-input-bound-workers.json");
    const auto r = analysis::run_scenario(s);
    const auto st = report::step_timeline(s);
    CHECK(st.iteration_s == r.iteration_s);
    const auto f = test::check_timeline(report::timeline_json(st.timeline));
    CHECK(f.violations.empty());
    CHECK(sum_of(st.timeline, "compute", "idle") > 0);  // the GPU waited for input
    bool loader = false;
    for (const auto& [track, name] : f.thread_names) loader = loader || name.rfind("loader worker", 0) == 0;
    CHECK(loader);
    // The batch the forward waited for arrives by an arrow from its copy to the GPU, which ends
    // where the wait ends and the forward starts.
    const auto& spans = st.timeline.spans;
    const auto by_id = [&](std::uint64_t id) {
        return *std::find_if(spans.begin(), spans.end(), [&](const auto& x) { return x.id == id; });
    };
    int arrivals = 0;
    for (const auto& fl : st.timeline.flows) {
        const auto& from = by_id(fl.from_id);
        const auto& to = by_id(fl.to_id);
        if (from.name != "copy to GPU") continue;
        ++arrivals;
        CHECK(to.name == "forward");
        CHECK(from.start_ns + from.dur_ns == to.start_ns);
    }
    CHECK(arrivals == 1);
}

TEST_CASE("a pipeline step names the rank of its slowest stage and shows the bubble") {
    const auto st = report::step_timeline(point_of("gpt3-175b-a100-1024.json"));
    CHECK(st.timeline.process_names.front().find("slowest of") != std::string::npos);
    bool bubble = false;
    for (const auto& sp : st.timeline.spans) bubble = bubble || sp.name == "pipeline bubble";
    CHECK(bubble);
}
