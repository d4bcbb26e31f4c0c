// The pools file of `rentsim cluster` and `rentsim plan` (schema 1): the rented pools, the
// scheduler, the autoscaler, the assumptions, and what `plan` may vary. Read strictly with the
// loader's helpers (analysis/scenario/json_reader.hpp): unknown keys, unknown catalog names and
// impossible pools are InputErrors naming the file and the JSON pointer.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/capacity/config.hpp"
#include "analysis/scenario/ranges.hpp"

namespace rentsim::capacity {

// What `rentsim plan` varies. Empty lists keep the file's value (defaults in plan_search.hpp).
struct SearchSpec {
    std::vector<int> base_nodes;        // nodes of the first reserved pool (0 drops it)
    std::vector<int> max_nodes;         // max_nodes of the first scaled pool
    std::vector<double> queue_wait_s;   // the autoscaler's wait threshold
    std::vector<std::string> instances; // instances of the same provider for every pool (GPU type)
};

struct PoolsFile {
    std::string file;
    std::string name;
    ClusterConfig config;
    SearchSpec search;
};

// The accepted range of every number in a pools file (README, "Capacity planning from job traces").
std::span<const analysis::NumberRange> pools_number_ranges();

PoolsFile parse_pools(const std::string& text, const std::string& file);
PoolsFile load_pools(const std::string& path);

// A pool of `instance` in place of the pool's own, with the plan's price from the catalog;
// std::invalid_argument when the catalog has no trusted row for it.
Pool with_instance(const Pool& pool, const std::string& instance);

}  // namespace rentsim::capacity
