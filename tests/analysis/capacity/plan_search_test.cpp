// rentsim plan: service levels, candidates, the frontier and the choice.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/capacity/plan_search.hpp"
#include "analysis/scenario/input_error.hpp"

using namespace rentsim;

namespace {

std::string slo_error(const std::string& text) {
    try {
        (void)capacity::parse_slo(text);
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("service levels read METRIC.STAT<=SECONDS and name what is wrong") {
    const auto s = capacity::parse_slo("wait_s.p95<=3600");
    CHECK(s.metric == capacity::SloMetric::wait_s);
    CHECK(s.stat == capacity::SloStat::p95);
    CHECK(s.limit == 3600);
    CHECK(!s.strict);
    CHECK(capacity::parse_slo("jct_s.p99<100").strict);
    CHECK(slo_error("wait.p95<=3600") ==
          "--slo: 'wait.p95<=3600': unknown service-level metric 'wait'; did you mean 'wait_s'? valid: wait_s, jct_s");
    CHECK(slo_error("wait_s.p90<=3600") ==
          "--slo: 'wait_s.p90<=3600': unknown statistic 'p90'; did you mean 'p50'? valid: mean, p50, p95, p99, max");
    CHECK(slo_error("wait_s.p95<=1h") == "--slo: 'wait_s.p95<=1h': expected a limit in seconds >= 0 after '<=', got '1h'");
    CHECK(slo_error("wait_s.p95") == "--slo: 'wait_s.p95': expected METRIC.STAT<=SECONDS, e.g. wait_s.p95<=3600");
}

TEST_CASE("the plan search picks the cheapest base meeting the service level, on the frontier") {
    // A reserved base of 0 to 4 nodes and an on-demand burst; 40 one-node jobs of an hour, one
    // every 15 minutes: the base absorbs them, the burst pays start-ups and waits.
    const auto f = capacity::parse_pools(
        R"({"schema": 1, "name": "t", "pools": [
             {"name": "base", "provider": "aws", "instance": "p4d.24xlarge", "plan": "reserved_1y_standard_no_upfront", "nodes": 4},
             {"name": "burst", "provider": "aws", "instance": "p4d.24xlarge", "plan": "on-demand", "max_nodes": 8}],
           "autoscaler": {"queue_wait_s": 600},
           "search": {"base_nodes": [0, 1, 2, 4], "queue_wait_s": [600]}})",
        "t.json");
    std::vector<jobs::Job> trace;
    for (int i = 0; i < 40; ++i) {
        jobs::Job j;
        j.id = std::to_string(i);
        j.submit_s = i * 900.0;
        j.gpus = 8;
        j.duration_s = 3600;
        trace.push_back(j);
    }
    const capacity::ReaderFactory open = [&] { return std::make_unique<capacity::VectorJobReader>(trace); };
    const auto slo = capacity::parse_slo("wait_s.p95<=60");
    const auto r = capacity::search_plans(f, slo, open);
    REQUIRE(r.candidates.size() == 4);
    // Sorted by cost; the frontier improves the service level at every step.
    double best = 1e300;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        if (i > 0) CHECK(r.candidates[i - 1].result.cost_usd <= r.candidates[i].result.cost_usd);
        if (r.candidates[i].frontier) {
            CHECK(r.candidates[i].value < best);
            best = r.candidates[i].value;
        }
    }
    REQUIRE(r.chosen >= 0);
    const auto& c = r.candidates[static_cast<std::size_t>(r.chosen)];
    CHECK(c.meets);
    // Four jobs overlap at any time (an hour each, every 15 minutes): four reserved nodes never
    // queue; fewer send jobs to the burst, which waits 600 s + 300 s start-up.
    CHECK(c.base_nodes == 4);
    CHECK(c.value == 0);
    for (int i = 0; i < r.chosen; ++i) CHECK(!r.candidates[static_cast<std::size_t>(i)].meets);
    CHECK(r.explanation.starts_with("chosen: base 4: $"));
}
