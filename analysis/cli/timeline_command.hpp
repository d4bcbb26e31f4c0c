// `rentsim run FILE --timeline T.json`: Chrome trace JSON of one training step of the first
// point of the scenario that fits (analysis/report/step_timeline.hpp), for Perfetto and
// chrome://tracing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"

namespace rentsim::cli {

// Writes the timeline of the first point that fits (else the first valid one) atomically and
// returns the line the command prints about it. `results` are the points' results, in order.
// Throws InputError when no point is valid, when a searched layout finds nothing that fits, or
// when the file cannot be written.
std::string write_run_timeline(const analysis::ScenarioSet& set, const std::vector<analysis::Result>& results,
                               const std::string& path, std::size_t max_spans);

}  // namespace rentsim::cli
