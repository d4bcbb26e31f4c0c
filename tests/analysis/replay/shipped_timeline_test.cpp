// The replay of a shipped trace as a timeline, checked against Perfetto's rules for JSON traces
// (tests/analysis/report/timeline_rules.hpp).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/load.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/replay/timeline.hpp"
#include "analysis/report/timeline.hpp"
#include "tests/analysis/report/timeline_rules.hpp"

using namespace rentsim;
using namespace rentsim::replay;

TEST_CASE("the replay of the DLRM trace is a timeline that keeps Perfetto's rules") {
    const trace::Trace t = load_trace({std::string(RENTSIM_SOURCE_DIR) + "/scenarios/traces/kineto/dlrm_8xV100"});
    const ReplayGraph g = build_graph(t, {});
    const ReplayResult r = run_replay(g);
    report::TimelineWritten w;
    const std::string text = report::timeline_json(replay_timeline(g, r), {}, &w);
    const test::TimelineFile f = test::check_timeline(text);
    CHECK(f.violations.empty());
    for (const std::string& v : f.violations) MESSAGE(v);
    CHECK(w.spans_dropped == 0);
    CHECK(w.flows > 0);
    CHECK(f.flows == w.flows);
    std::set<int> pids;
    for (const auto& [track, slices] : f.slices) pids.insert(track.first);
    CHECK(pids.size() == 8);  // one process per rank
}
