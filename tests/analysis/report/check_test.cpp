// rentsim check: expectations at every point and at the best one, the comparison with a
// baseline and its reasons, tolerances, and the JUnit XML's escaping and counts.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/report/check.hpp"
#include "analysis/report/fields.hpp"
#include "analysis/report/report.hpp"
#include "analysis/scenario/check_inputs.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;
using analysis::Bound;
using analysis::CheckCase;
using analysis::Expectations;
using analysis::Result;

namespace {

// A run that fits and finished, with the figures the checks read.
Result done(const std::string& point, double cost, double time) {
    Result r;
    r.name = "s";
    r.point = point;
    r.fits = true;
    r.status = "done";
    r.cost_usd = cost;
    r.time_to_train_s = time;
    r.iterations = 100;
    r.iteration_s = time / 100;
    r.breakdown = {time / 100, 0, 0, 0};
    r.billed_s = time;
    r.lifecycle.usd_per_gpu_hour = 2;
    r.lifecycle.billed_gpus = 8;
    return r;
}

Bound max_of(const std::string& field, double max) { return {field, std::nullopt, max, "/expect/" + field}; }

// The expect block of a scenario text, through the loader.
Expectations expect_of(const std::string& block) {
    const std::string text = R"({"schema": 1, "name": "e", "expect": )" + block + R"(,
        "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 64, "samples": 64000},
        "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
        "pricing": {"plan": "on-demand", "usd_per_gpu_hour": 2}})";
    return analysis::parse_scenarios(text, "e.json").expect;
}

std::string load_error(const std::string& block) {
    try {
        expect_of(block);
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("every bound is checked at every point, and a point above its max fails with its figure") {
    Expectations e;
    e.each = {max_of("cost_usd", 5000)};
    const auto cases = analysis::check_expectations(e, {done("cluster.gpus=8", 4000, 10), done("cluster.gpus=16", 6000, 10)});
    REQUIRE(cases.size() == 2);
    CHECK(cases[0].name == "cluster.gpus=8: cost_usd <= 5000 USD");
    CHECK(cases[0].failure.empty());
    CHECK(cases[1].name == "cluster.gpus=16: cost_usd <= 5000 USD");
    CHECK(cases[1].failure == "cost_usd = 6000 USD, above the max 5000 USD");
}

TEST_CASE("a min bound fails below it, and long durations are also shown in hours") {
    Expectations e;
    e.each = {{"time_to_train_s", 86400.0, std::nullopt, "/expect/time_to_train_s"}};
    const auto cases = analysis::check_expectations(e, {done("", 1, 7200.5)});
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].name == "s: time_to_train_s >= 86400 s");
    CHECK(cases[0].failure == "time_to_train_s = 7200.50 s (2.00 h), below the min 86400 s (24.00 h)");
}

TEST_CASE("the best point is the cheapest that finished: a cheaper stopped point is never the best") {
    Result stopped = done("a", 100, 10);
    stopped.status = "stopped by budget at 50%";
    Expectations e;
    e.best = {max_of("cost_usd", 150)};
    const auto cases = analysis::check_expectations(e, {stopped, done("b", 300, 10), done("c", 200, 10), done("d", 200, 10)});
    REQUIRE(cases.size() == 1);
    // c and d tie at 200: the earlier point is the best.
    CHECK(cases[0].name == "best (least cost_usd: c): cost_usd <= 150 USD");
    CHECK(cases[0].failure == "cost_usd = 200 USD, above the max 150 USD");

    e.best_by = "time_to_train_s";
    const auto by_time = analysis::check_expectations(e, {done("b", 300, 5), done("c", 100, 10)});
    CHECK(by_time[0].name == "best (least time_to_train_s: b): cost_usd <= 150 USD");
    CHECK(by_time[0].failure == "cost_usd = 300 USD, above the max 150 USD");
}

TEST_CASE("best bounds fail when no point finished") {
    Result stopped = done("a", 100, 10);
    stopped.status = "gave up";
    Expectations e;
    e.best = {max_of("cost_usd", 150)};
    const auto cases = analysis::check_expectations(e, {stopped});
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].name == "best (least cost_usd): cost_usd <= 150 USD");
    CHECK(cases[0].failure == "no point finished (status done) with a value of cost_usd");
}

TEST_CASE("a point without the figure fails its bound, and an invalid point is skipped") {
    Result unfit = done("a", 0, 0);
    unfit.fits = false;
    unfit.status = "does not fit";
    Result invalid = done("b", 0, 0);
    invalid.status = "invalid";
    Expectations e;
    e.each = {max_of("cost_usd", 150)};
    const auto cases = analysis::check_expectations(e, {unfit, invalid});
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].failure == "cost_usd has no value (does not fit)");
}

TEST_CASE("expectations may bound exactly the numeric result fields, with their units") {
    std::set<std::string> numeric;
    for (const auto& f : analysis::result_fields()) {
        using K = analysis::Kind;
        if (f.kind != K::number && f.kind != K::integer && f.kind != K::nullable_number && f.kind != K::nullable_integer)
            continue;
        numeric.insert(std::string(f.name));
        const auto* unit = analysis::expectation_field_registry().find(f.name);
        REQUIRE_MESSAGE(unit, f.name);
        CHECK(*unit == f.unit);
    }
    CHECK(analysis::expectation_field_registry().names().size() == numeric.size());
}

TEST_CASE("the loader reads an expect block: bounds for every point, best with its field") {
    const auto e = expect_of(R"({"cost_usd": {"max": 5000}, "mfu": {"min": 0.3, "max": 0.6},
                                 "best": {"by": "time_to_train_s", "time_to_train_s": {"max": 86400}}})");
    REQUIRE(e.each.size() == 2);
    CHECK(e.each[0].field == "cost_usd");
    CHECK(!e.each[0].min);
    CHECK(*e.each[0].max == 5000);
    CHECK(e.each[1].pointer == "/expect/mfu");
    CHECK(*e.each[1].min == 0.3);
    CHECK(e.best_by == "time_to_train_s");
    REQUIRE(e.best.size() == 1);
    CHECK(e.best[0].pointer == "/expect/best/time_to_train_s");
    CHECK(expect_of(R"({"best": {"cost_usd": {"max": 1}}})").best_by == "cost_usd");
}

TEST_CASE("the loader refuses expect blocks that say nothing or cannot hold") {
    CHECK(load_error(R"({"cost_usd": {"max": 1}, "best": {"by": "cost"}})")
              .starts_with("e.json: /expect/best/by: unknown result field 'cost'; did you mean 'cost_usd'? valid: gpus, tp, "));
    CHECK(load_error(R"({"cost_us": {"max": 1}})")
              .starts_with("e.json: /expect/cost_us: unknown result field 'cost_us'; did you mean 'cost_usd'? valid: best, gpus, "));
    CHECK(load_error(R"({"cost_usd": {}})") == "e.json: /expect/cost_usd: expected \"min\" or \"max\" (or both)");
    CHECK(load_error(R"({"cost_usd": {"min": 2, "max": 1.5}})") == "e.json: /expect/cost_usd: expected min <= max, got min 2 and max 1.5");
    CHECK(load_error(R"({"cost_usd": {"maximum": 1}})") ==
          "e.json: /expect/cost_usd/maximum: unknown bound 'maximum'; valid: min, max");
    CHECK(load_error(R"({"cost_usd": {"max": "1"}})") == "e.json: /expect/cost_usd/max: expected a number, got \"1\"");
    CHECK(load_error(R"({})") == "e.json: /expect: expected at least one bound on a result field");
    CHECK(load_error(R"({"best": {"by": "cost_usd"}})") == "e.json: /expect/best: expected at least one bound on a result field");
    CHECK(load_error(R"([1])") == "e.json: /expect: expected an object of \"result_field\": {\"min\", \"max\"}, got [1]");
}

TEST_CASE("a result that moved beyond the tolerance fails, with the parts of the step that moved it") {
    Result now = done("p", 100, 1100);
    now.breakdown = {10, 1, 0, 0};  // the old step: 10 s of compute; now 10 s compute, 1 s exposed communication
    analysis::ResultRow old{"s", "p", {{"time_to_train_s", 1000}, {"cost_usd", 100}, {"iteration_s", 10},
                                       {"breakdown.compute_s", 10}, {"breakdown.exposed_comm_s", 0},
                                       {"breakdown.input_stall_s", 0}, {"breakdown.pipeline_bubble_s", 0},
                                       {"iterations", 100}, {"billed_s", 1000}, {"lifecycle.usd_per_gpu_hour", 2},
                                       {"lifecycle.billed_gpus", 8}}};
    analysis::FileCheck check;
    const auto gates = analysis::parse_gates(analysis::default_baseline_gates);
    analysis::compare_with_baseline({now, done("new", 1, 1)}, {old}, 0.02, gates, check);
    REQUIRE(check.cases.size() == 2);
    CHECK(check.cases[0].name == "baseline: p: time_to_train_s within 2%");
    CHECK(check.cases[0].failure ==
          "time_to_train_s moved 1000 s (16.7 min) -> 1100 s (18.3 min) (+10.0%); per step: communication +10.0%");
    CHECK(check.cases[1].name == "baseline: p: cost_usd within 2%");
    CHECK(check.cases[1].failure.empty());
    REQUIRE(check.notes.size() == 2);
    // The fields not gated that moved are listed, not failed: the step, its communication and
    // the billed time; compute did not move.
    CHECK(check.notes[0].starts_with("p: also moved: "));
    CHECK(check.notes[0].find("iteration_s 10 s -> 11 s (+10.0%)") != std::string::npos);
    CHECK(check.notes[0].find("breakdown.exposed_comm_s 0 s -> 1 s (from 0)") != std::string::npos);
    CHECK(check.notes[0].find("billed_s 1000 s (16.7 min) -> 1100 s (18.3 min) (+10.0%)") != std::string::npos);
    CHECK(check.notes[0].find("breakdown.compute_s") == std::string::npos);
    CHECK(check.notes[1] == "new: not in the baseline");

    // The price: +10% per GPU-hour.
    Result dearer = done("p", 110, 1000);
    dearer.lifecycle.usd_per_gpu_hour = 2.2;
    analysis::FileCheck c2;
    analysis::compare_with_baseline({dearer}, {old}, 0.05, gates, c2);
    CHECK(c2.cases[0].failure.empty());
    CHECK(c2.cases[1].failure == "cost_usd moved 100 USD -> 110 USD (+10.0%); from: price per GPU-hour +10.0%");

    // A run that no longer fits.
    Result unfit = done("p", 0, 0);
    unfit.fits = false;
    unfit.status = "does not fit";
    analysis::FileCheck c3;
    analysis::compare_with_baseline({unfit}, {old}, 0.02, gates, c3);
    CHECK(c3.cases[0].failure == "was 1000 s (16.7 min), now has no value (does not fit)");
}

TEST_CASE("every result field can gate a baseline comparison, and the others that moved are listed") {
    // The baseline as a run writes it: every field of the old result, through the result file.
    Result before = done("p", 100, 1000);
    before.memory_per_gpu_gib = 60;
    const auto old = analysis::parse_result_rows(analysis::results_to_json({before}), "old.json");
    Result after = before;
    after.memory_per_gpu_gib = 66;  // +10%, nothing else moved

    analysis::FileCheck same;
    analysis::compare_with_baseline({before}, old, 0, analysis::parse_gates("all"), same);
    CHECK(same.cases.size() == analysis::expectation_field_registry().names().size());
    for (const auto& c : same.cases) CHECK_MESSAGE(c.failure.empty(), c.name, ": ", c.failure);
    CHECK(same.notes.empty());

    analysis::FileCheck listed;
    analysis::compare_with_baseline({after}, old, 0.02, analysis::parse_gates(analysis::default_baseline_gates), listed);
    REQUIRE(listed.cases.size() == 2);
    CHECK(listed.cases[0].failure.empty());
    CHECK(listed.cases[1].failure.empty());
    REQUIRE(listed.notes.size() == 1);
    CHECK(listed.notes[0] == "p: also moved: memory_per_gpu_gib 60 GiB -> 66 GiB (+10.0%)");

    analysis::FileCheck gated;
    analysis::compare_with_baseline({after}, old, 0.02, analysis::parse_gates("memory_per_gpu_gib,cost_usd"), gated);
    REQUIRE(gated.cases.size() == 2);  // in the order of the result fields
    CHECK(gated.cases[0].name == "baseline: p: memory_per_gpu_gib within 2%");
    CHECK(gated.cases[0].failure == "memory_per_gpu_gib moved 60 GiB -> 66 GiB (+10.0%)");
    CHECK(gated.cases[1].name == "baseline: p: cost_usd within 2%");
    CHECK(gated.notes.empty());
}

TEST_CASE("gates name result fields, with a did-you-mean") {
    CHECK(analysis::parse_gates("cost_usd,mfu,cost_usd") == std::vector<std::string>{"cost_usd", "mfu"});
    CHECK(analysis::parse_gates("all").size() == analysis::expectation_field_registry().names().size());
    try {
        analysis::parse_gates("mfu,cost_us");
        FAIL("no error");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).starts_with("--gate: unknown result field 'cost_us'; did you mean 'cost_usd'? valid: gpus, tp, "));
        CHECK(std::string(e.what()).ends_with(", or all"));
    }
    CHECK_THROWS_AS(analysis::parse_gates(""), std::invalid_argument);
    CHECK_THROWS_AS(analysis::parse_gates("cost_usd,"), std::invalid_argument);
}

TEST_CASE("tolerances are shares, in percent or as fractions") {
    CHECK(analysis::parse_tolerance("2%") == doctest::Approx(0.02));
    CHECK(analysis::parse_tolerance("0.5") == 0.5);
    CHECK(analysis::parse_tolerance("0%") == 0);
    for (const char* bad : {"", "%", "-1%", "2%%", "two", "nan", "inf", "1e999"})
        CHECK_THROWS_AS(analysis::parse_tolerance(bad), std::invalid_argument);
}

TEST_CASE("XML text escapes markup, and replaces control characters and invalid UTF-8") {
    CHECK(analysis::xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
    CHECK(analysis::xml_escape("tab\tline\n") == "tab&#9;line&#10;");
    CHECK(analysis::xml_escape("x\x01y") == "x\xEF\xBF\xBDy");
    CHECK(analysis::xml_escape("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    CHECK(analysis::xml_escape("\xff") == "\xEF\xBF\xBD");
    CHECK(analysis::xml_escape("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");      // overlong '/'
    CHECK(analysis::xml_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    CHECK(analysis::xml_escape("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");      // cut short
}

TEST_CASE("JUnit XML has one suite per file and counts its cases, errors and skipped files") {
    analysis::FileCheck a{"a.json", 2, true, {}, {{"p: cost_usd <= 1 USD", ""}, {"q: cost_usd <= 1 USD", "cost_usd = 2 USD, above the max 1 USD"}}, {}};
    analysis::FileCheck b{"b<&>.json", 0, false, {"b<&>.json: /x: bad"}, {}, {}};
    analysis::FileCheck c{"c.json", 1, false, {}, {}, {}};
    const std::string xml = analysis::junit_xml({a, b, c});
    CHECK(xml ==
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites name=\"rentsim check\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\">\n"
          "  <testsuite name=\"a.json\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
          "    <testcase classname=\"a.json\" name=\"p: cost_usd &lt;= 1 USD\"/>\n"
          "    <testcase classname=\"a.json\" name=\"q: cost_usd &lt;= 1 USD\">\n"
          "      <failure message=\"cost_usd = 2 USD, above the max 1 USD\">cost_usd = 2 USD, above the max 1 USD</failure>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "  <testsuite name=\"b&lt;&amp;&gt;.json\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
          "    <testcase classname=\"b&lt;&amp;&gt;.json\" name=\"input\">\n"
          "      <error message=\"b&lt;&amp;&gt;.json: /x: bad\"/>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "  <testsuite name=\"c.json\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n"
          "    <testcase classname=\"c.json\" name=\"expectations\">\n"
          "      <skipped message=\"no expect block\"/>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "</testsuites>\n");
    CHECK(analysis::format_checks({a, b, c}) ==
          "a.json: 2 points, 1 of 2 checks failed\n"
          "  FAIL q: cost_usd <= 1 USD: cost_usd = 2 USD, above the max 1 USD\n"
          "b<&>.json: does not load\n"
          "  ERROR b<&>.json: /x: bad\n"
          "c.json: 1 point, no expectations (loaded, not run)\n"
          "3 files, 2 checks, 1 failed, 1 file with errors\n");
}
