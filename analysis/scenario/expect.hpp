// Expectations of a scenario file (`"expect"`), which `rentsim check` verifies after running
// every point: bounds (min, max, inclusive) on numeric result fields, named as in the result
// JSON (`cost_usd`, `breakdown.exposed_comm_s`), for every point and for the best point.
//   "expect": { "time_to_train_s": {"max": 86400},
//               "best": {"by": "cost_usd", "cost_usd": {"max": 5000}} }
// The best point is the one that finished (`status` `done`) with the least `by` (default
// `cost_usd`), the earliest point on a tie; a sweep where none finished fails its `best`
// bounds. A field without a value at a point (a run that does not fit has no times or costs)
// fails the bounds on it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/scenario/json_reader.hpp"
#include "models/registry.hpp"

namespace rentsim::analysis {

struct Bound {
    std::string field;               // a result field (expectation_field_registry())
    std::optional<double> min, max;  // at least one is set; min <= max
    std::string pointer;             // "/expect/cost_usd", for messages
};

struct Expectations {
    std::vector<Bound> each;         // every point
    std::vector<Bound> best;         // the best point
    std::string best_by = "cost_usd";  // the field the best point has least of
    bool empty() const { return each.empty() && best.empty(); }
};

// The numeric result fields an expectation may bound, by their public names, each with its
// unit. The list is the numeric fields of analysis/report/fields.cpp (the loader may not
// depend on the report layer); tests/analysis/report checks that the two agree.
const Registry<std::string_view>& expectation_field_registry();

// Reads an `expect` block strictly: unknown fields get a did-you-mean, each bound needs `min`
// or `max` (finite numbers, min <= max), `best` takes `by` and bounds. InputError otherwise.
Expectations parse_expectations(const Value& v);

}  // namespace rentsim::analysis
