// Fuzz target: the scenario loader (analysis::parse_scenarios), then planning of the first
// valid point of small sets. Expected: InputError from the loader, or sweep points marked
// invalid with their error (Scenario::invalid) beside at least one valid point. Planning never raises input
// errors, so any exception from cluster_network or plan_job is a finding. Planning is only
// run for at most 4 points on at most 64 GPUs (elastic steps included), which keeps one
// input well under a second.
#include "analysis/plan/plan.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/scenario.hpp"
#include "fuzz_target.hpp"

namespace {
constexpr std::size_t max_points = 4;
constexpr int max_gpus = 64;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::analysis;
    ScenarioSet set;
    try {
        set = parse_scenarios(rentsim::fuzz::text(data, size), "fuzz.json");
    } catch (const InputError&) {
        return 0;
    }
    RENTSIM_FUZZ_CHECK(!set.points.empty(), "parse_scenarios returned no point");
    if (set.points.size() > max_points) return 0;
    const Scenario* first_valid = nullptr;
    for (const Scenario& p : set.points) {
        if (!p.invalid.empty()) continue;
        if (!first_valid) first_valid = &p;
    }
    RENTSIM_FUZZ_CHECK(first_valid != nullptr, "parse_scenarios returned only invalid points instead of an error");
    const Scenario& s = *first_valid;
    if (s.cluster.gpus > max_gpus) return 0;
    for (const ElasticStep& e : s.elastic.schedule)
        if (e.gpus > max_gpus) return 0;
    const auto network = cluster_network(s);
    const JobPlan plan = plan_job(s, network);
    RENTSIM_FUZZ_CHECK(plan.step.gpus == s.cluster.gpus, "the step plan's GPUs differ from the cluster's");
    return 0;
}
