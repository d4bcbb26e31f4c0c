// `rentsim plan`: replays a trace on variants of a pools file (the first reserved pool's size, the
// first scaled pool's max_nodes, the autoscaler's wait threshold, the instance and so the GPU type)
// and picks the cheapest variant meeting a service level such as "wait_s.p95<=3600".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/capacity/pools_file.hpp"
#include "analysis/capacity/report.hpp"
#include "analysis/capacity/simulator.hpp"
#include "models/registry.hpp"

namespace rentsim::capacity {

enum class SloMetric : std::uint8_t { wait_s, jct_s };
enum class SloStat : std::uint8_t { mean, p50, p95, p99, max };

// A service level: METRIC.STAT<=LIMIT (or <), e.g. "wait_s.p95<=3600" (seconds).
struct Slo {
    std::string text;
    SloMetric metric = SloMetric::wait_s;
    SloStat stat = SloStat::p95;
    bool strict = false;  // '<' rather than '<='
    double limit = 0;

    double value(const ClusterResult& r) const;
    // The limit holds over the finished jobs (a run that finished none meets nothing).
    bool met(const ClusterResult& r) const;
};

const Registry<SloMetric>& slo_metric_registry();
const Registry<SloStat>& slo_stat_registry();
// Throws InputError("--slo", ...) naming what is wrong and the valid names.
Slo parse_slo(const std::string& text);

struct Candidate {
    std::string label;        // "base 8, burst <= 64, wait 600 s, p4d.24xlarge"
    int base_nodes = -1;      // -1: no reserved pool varied
    int max_nodes = -1;       // -1: no scaled pool varied
    double queue_wait_s = -1; // -1: no autoscaler
    std::string instance;
    ClusterConfig config;
    ClusterResult result;     // without its utilisation rows
    double value = 0;         // the service level's metric
    bool meets = false;       // the limit holds, refusing no more jobs than the best candidate
    bool frontier = false;    // better service than every cheaper candidate
};

struct PlanResult {
    std::vector<Candidate> candidates;  // by cost, then by the metric
    int chosen = -1;                    // index of the cheapest meeting the SLO; -1 if none
    std::string explanation;
};

using ReaderFactory = std::function<std::unique_ptr<jobs::JobReader>()>;

// The candidates the search replays: the SearchSpec's lists, else defaults (the base at 0, 1/4,
// 1/2, 3/4, 1 and 3/2 of the file's; the wait threshold at 1/4, 1 and 4 times the file's).
std::vector<Candidate> plan_candidates(const PoolsFile& f);
PlanResult search_plans(const PoolsFile& f, const Slo& slo, const ReaderFactory& open);

std::string format_plan(const PoolsFile& f, const Slo& slo, const PlanResult& r);
// {"schema": 1, "name", "slo", "skipped_rows", "not_run_rows", "chosen", "explanation", "plans": [...]}.
std::string plan_json(const PoolsFile& f, const Slo& slo, const PlanResult& r, const TraceRows& rows);

}  // namespace rentsim::capacity
