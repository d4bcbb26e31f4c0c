// `rentsim check`: a scenario file's expectations against its results, a comparison with a
// previous run's results, and the JUnit XML that CI dashboards read. Pure functions of
// results; the command (analysis/cli/check_command.cpp) runs the points and prints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/run/run.hpp"
#include "analysis/scenario/check_inputs.hpp"
#include "analysis/scenario/expect.hpp"

namespace rentsim::analysis {

// One test: an expectation at one point, or one field against the baseline.
struct CheckCase {
    std::string name;     // "cluster.gpus=8: cost_usd <= 5000", "best (cheapest done): ...", "baseline: ..."
    std::string failure;  // empty: passed; else what broke it, with the figures
};

// One scenario file's checks. `errors` are bad input (the file, or invalid sweep points).
struct FileCheck {
    std::string file;
    std::size_t points = 0;
    bool ran = false;                 // false: loaded only (no expectations and no baseline)
    std::vector<std::string> errors;
    std::vector<CheckCase> cases;
    std::vector<std::string> notes;   // points new to the baseline
};

// Every bound of `e` at every point (points with status `invalid` skipped: they are errors),
// then the best point's bounds.
std::vector<CheckCase> check_expectations(const Expectations& e, const std::vector<Result>& results);

// The fields a baseline comparison fails on unless told otherwise (`--gate`).
inline constexpr std::string_view default_baseline_gates = "time_to_train_s,cost_usd";

// `--gate`: comma-separated names of expectation_field_registry(), or "all" (every numeric
// field). std::invalid_argument naming the unknown field with a did-you-mean otherwise.
std::vector<std::string> parse_gates(std::string_view text);

// Each result against the baseline row of the same name and point. Each field of `gates` is a
// case, failing when it moved by more than `tolerance` (a fraction): time and throughput with
// the parts of the step that moved them, cost with the parts of the bill. Every other numeric
// result field that moved by more than `tolerance` is listed in one note per point ("also
// moved"), without failing. Results without a baseline row add a note instead.
void compare_with_baseline(const std::vector<Result>& results, const std::vector<ResultRow>& baseline, double tolerance,
                           const std::vector<std::string>& gates, FileCheck& check);

// "2%" or "0.02" as a fraction; std::invalid_argument otherwise (negative, not a number).
double parse_tolerance(const std::string& text);

// The console report: one line per file, then each failure and error on its own line.
std::string format_checks(const std::vector<FileCheck>& checks);

// JUnit XML: <testsuites> of one <testsuite> per file, one <testcase> per case; a file that
// did not load is one <testcase> with an <error>, a file with nothing to check one with
// <skipped>. No times: the same results give the same bytes.
std::string junit_xml(const std::vector<FileCheck>& checks);

// Text as XML 1.0 character data or attribute value: markup characters escaped, control
// characters and invalid UTF-8 replaced by U+FFFD.
std::string xml_escape(std::string_view text);

}  // namespace rentsim::analysis
