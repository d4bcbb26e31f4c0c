#include "analysis/cli/check_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "analysis/report/atomic_file.hpp"
#include "analysis/report/check.hpp"
#include "analysis/report/report.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/check_inputs.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"

namespace rentsim::cli {

CLI::App* add_check_command(CLI::App& app, CheckOptions& o) {
    auto* cmd = app.add_subcommand("check", "run the expect blocks of scenario files (every scenario under a folder)");
    cmd->add_option("inputs", o.inputs, "scenario files and folders (searched recursively)")->required();
    cmd->add_option("--junit", o.junit, "write the checks as JUnit XML");
    cmd->add_option("--baseline", o.baseline, "a previous run's result JSON: list what moved");
    cmd->add_option("--tolerance", o.tolerance, "with --baseline: the change that fails, e.g. 2% (default) or 0.02");
    cmd->add_option("--gate", o.gate,
                    "with --baseline: the result fields that fail when they moved, comma-separated, or all "
                    "(default time_to_train_s,cost_usd; the others that moved are listed)");
    cmd->add_option("--out", o.out, "write the results of the points run as JSON");
    cmd->add_option("-j,--jobs", o.jobs, "threads for the points of each file (default: all cores)");
    return cmd;
}

namespace {

// Bad input in one file is that file's error; the others are still checked.
analysis::FileCheck check_file(const std::string& file, const std::vector<analysis::ResultRow>* baseline, double tolerance,
                               const std::vector<std::string>& gates, int jobs, std::vector<analysis::Result>& all_results) {
    analysis::FileCheck check;
    check.file = file;
    analysis::ScenarioSet set;
    try {
        set = analysis::load_scenarios(file);
    } catch (const analysis::InputError& e) {
        check.errors.push_back(e.what());
        return check;
    } catch (const std::invalid_argument& e) {
        check.errors.push_back(file + ": " + e.what());
        return check;
    }
    check.points = set.points.size();
    for (const auto& p : set.points)
        if (!p.invalid.empty()) check.errors.push_back(p.invalid);
    if (set.expect.empty() && !baseline) return check;
    check.ran = true;
    std::vector<analysis::Result> results;
    try {
        results = analysis::run_all(set, jobs);
    } catch (const analysis::InputError& e) {
        check.errors.push_back(e.what());
        return check;
    } catch (const analysis::BudgetError& e) {
        check.errors.push_back(file + ": " + e.what());
        return check;
    }
    check.cases = analysis::check_expectations(set.expect, results);
    if (baseline) analysis::compare_with_baseline(results, *baseline, tolerance, gates, check);
    for (auto& r : results) all_results.push_back(std::move(r));
    return check;
}

}  // namespace

int check_command(const CheckOptions& o) {
    const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (o.jobs < 0 || o.jobs > 1024)
        throw analysis::InputError("--jobs", "", fmt::format("expected 0 (all cores) or 1 to 1024 threads, got {}", o.jobs));
    if (!o.junit.empty() && !o.out.empty() && std::filesystem::weakly_canonical(o.junit) == std::filesystem::weakly_canonical(o.out))
        throw analysis::InputError("--out", "", "names the same file as --junit");
    double tolerance = 0;
    std::vector<analysis::ResultRow> baseline;
    std::vector<std::string> gates;
    if (o.baseline.empty() && !o.gate.empty())
        throw std::invalid_argument("--gate: compares with a baseline; give --baseline OLD.json");
    if (!o.baseline.empty()) {
        tolerance = analysis::parse_tolerance(o.tolerance);
        gates = analysis::parse_gates(o.gate.empty() ? analysis::default_baseline_gates : o.gate);
        baseline = analysis::load_result_rows(o.baseline);
    }
    // Files as named, folders expanded in sorted order; a file named twice is checked once.
    std::vector<std::string> files;
    std::string skipped;
    for (const auto& input : o.inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(input, ec)) {
            const auto found = analysis::find_scenario_files(input);
            for (const auto& f : found.scenarios) files.push_back(f);
            for (const auto& [f, why] : found.skipped) skipped += fmt::format("{}: skipped, not a scenario ({})\n", f, why);
        } else {
            files.push_back(input);
        }
    }
    std::vector<std::string> unique;
    for (const auto& f : files)
        if (std::find(unique.begin(), unique.end(), f) == unique.end()) unique.push_back(f);

    std::vector<analysis::FileCheck> checks;
    std::vector<analysis::Result> results;
    for (const auto& f : unique) checks.push_back(check_file(f, o.baseline.empty() ? nullptr : &baseline, tolerance, gates, jobs, results));

    std::vector<analysis::OutputFile> outputs;
    if (!o.junit.empty()) outputs.push_back({o.junit, analysis::junit_xml(checks)});
    if (!o.out.empty()) outputs.push_back({o.out, analysis::results_to_json(results)});
    if (!outputs.empty()) analysis::write_files_together(outputs);
    std::cout << skipped << analysis::format_checks(checks);
    bool errors = false, failures = false;
    for (const auto& c : checks) {
        errors = errors || !c.errors.empty();
        for (const auto& k : c.cases) failures = failures || !k.failure.empty();
    }
    return errors ? 2 : failures ? 1 : 0;
}

}  // namespace rentsim::cli
