// Jobs sharing one fabric (`rentsim fabric`): each job's stream of collectives is simulated at
// flow level alone on the cluster, then all the jobs together from time 0, where their flows
// share links max-min fairly (analysis/simulate/flow_collectives). A job's slowdown is its
// shared time over its time alone; the flow level moves rings (direct transfers for all-to-all).
#pragma once

#include <string>
#include <vector>

#include "analysis/scenario/scenario.hpp"

namespace rentsim::analysis {

struct FabricJobResult {
    std::string name;
    int gpus = 0;
    std::vector<int> nodes;          // the cluster's nodes the job runs on, ascending
    double alone_s = 0.0;            // the whole stream, alone on the cluster
    double shared_s = 0.0;           // the whole stream, with every other job running
    double slowdown = 0.0;           // shared_s / alone_s
};

// The nodes of each job, in the order of `spec.jobs`, as the placement deals them.
std::vector<std::vector<int>> place_jobs(const FabricSpec& spec);

// One result per job, in the order of `spec.jobs`. Deterministic.
std::vector<FabricJobResult> run_fabric(const FabricSpec& spec);

// A table: the cluster, then one line per job (GPUs, nodes, collective, times, slowdown).
std::string format_fabric(const FabricSpec& spec, const std::vector<FabricJobResult>& results);
// The same as JSON (schema 1): {"schema", "name", "placement", "jobs": [{"name", "gpus",
// "nodes", "op", "bytes", "count", "gap_s", "alone_s", "shared_s", "slowdown"}]}.
std::string fabric_json(const FabricSpec& spec, const std::vector<FabricJobResult>& results);

}  // namespace rentsim::analysis
