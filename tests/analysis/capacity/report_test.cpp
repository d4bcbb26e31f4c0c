// What `rentsim cluster` reports of the rows the trace reader left out.
#include <doctest/doctest.h>

#include <string>

#include "analysis/capacity/report.hpp"
#include "analysis/capacity/simulator.hpp"
#include "analysis/jobs/import.hpp"

using namespace rentsim;

TEST_CASE("format_trace_rows: nothing left out prints nothing") {
    CHECK(capacity::format_trace_rows({}) == "");
}

TEST_CASE("format_trace_rows: skipped rows with the kept ones, the rest counted, and not-run jobs") {
    capacity::TraceRows rows;
    rows.skipped = 3;
    rows.not_run = 12;
    rows.bad = {{3, "column 'gpus': bad"}, {9, "expected 7 fields"}};
    CHECK(capacity::format_trace_rows(rows) ==
          "skipped 3 bad rows of the trace\n"
          "  line 3: column 'gpus': bad\n"
          "  line 9: expected 7 fields\n"
          "  ... and 1 more\n"
          "left out 12 jobs of the trace that used no GPU time (no GPU, never started or ran 0 s)\n");
}

TEST_CASE("cluster_json carries the reader's skipped, bad and not-run rows") {
    // Four bad rows (lines 3, 4, 5 and 7) and three good jobs, read by the real importer.
    auto reader = jobs::open_job_trace(std::string(RENTSIM_SOURCE_DIR) + "/tests/cli/capacity/bad-rows.csv",
                                       jobs::Format::csv, jobs::BadRowPolicy::skip);
    capacity::ClusterConfig c;
    capacity::Pool base;
    base.name = "base";
    base.gpu = "a100-sxm4-40gb";
    base.kind = capacity::PoolKind::reserved;
    base.nodes = base.max_nodes = 1;
    base.usd_per_node_hour = 10;
    c.pools = {base};
    const capacity::ClusterResult r = capacity::simulate_cluster(c, *reader);
    const capacity::TraceRows rows = capacity::trace_rows(*reader);
    CHECK(r.jobs == 3);
    CHECK(rows.skipped == 4);
    CHECK(rows.not_run == 0);
    REQUIRE(rows.bad.size() == 4);
    CHECK(rows.bad[0].line == 3);
    CHECK(rows.bad[3].line == 7);
    const std::string json = capacity::cluster_json("t", c, r, rows);
    CHECK(json.find("\"skipped_rows\": 4,") != std::string::npos);
    CHECK(json.find("\"not_run_rows\": 0,") != std::string::npos);
    CHECK(json.find("\"line\": 7,\n      \"message\": \"expected 7 fields as in the header, got 5\"") != std::string::npos);
}
