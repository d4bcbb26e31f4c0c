// Runs every point of a scenario set, on `jobs` threads. Results come back in point order
// and are identical whatever the thread count: each point owns its engine and its seed.
#pragma once

#include <vector>

#include "analysis/run/run.hpp"

namespace rentsim::analysis {

// The first error of the lowest-numbered failing point is rethrown after all threads stop.
std::vector<Result> run_all(const ScenarioSet& set, int jobs, const RunOptions& options = {});

}  // namespace rentsim::analysis
