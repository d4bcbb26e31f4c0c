// What `rentsim check` reads besides scenarios: the scenario files under a folder, and a
// previous run's result JSON (`--baseline`), flattened to numbers by dotted field name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rentsim::analysis {

// The scenario files under `folder`, recursively, sorted by path (bytewise). A file is taken
// when its name ends in `.json` and it holds a JSON object with a `workload` key; other JSON
// files (fabric files, pools, traces, results) go to `skipped` with why. A `.json` file that
// does not parse is bad input: InputError naming it and the line. Links to folders are not
// followed. Throws InputError when `folder` is not a readable folder.
struct FoundScenarios {
    std::vector<std::string> scenarios;
    std::vector<std::pair<std::string, std::string>> skipped;  // (path, why)
};
FoundScenarios find_scenario_files(const std::string& folder);

// One result of a result file: its `name`, its `point` (empty without one), and every number
// it holds by dotted name (`breakdown.compute_s`); a null is a name without a value.
struct ResultRow {
    std::string name, point;
    std::map<std::string, std::optional<double>> numbers;
};

// A result file as `run`, `sweep`, `merge` or `check` write it ({"schema": 1, "results":
// [...]}). Two results of one name and point are an error (a baseline must say which it means).
std::vector<ResultRow> load_result_rows(const std::string& path);
// The same from text; `file` names it in messages.
std::vector<ResultRow> parse_result_rows(const std::string& text, const std::string& file);

}  // namespace rentsim::analysis
