#include <doctest/doctest.h>

#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

TEST_CASE("data-parallel ResNet-50 slows as inter-node latency rises and stops being compute-bound") {
    const auto set = analysis::load_scenarios(std::string(RENTSIM_SOURCE_DIR) +
                                              "/scenarios/resnet50-latency-sensitivity.json");
    REQUIRE(set.points.size() >= 6);
    double previous_time = 0;
    double crossover_us = -1;
    for (const auto& p : set.points) {
        const auto r = analysis::run_scenario(p);
        CAPTURE(p.point);
        // Monotone: more latency never makes the run faster.
        CHECK(r.time_to_train_s >= previous_time);
        previous_time = r.time_to_train_s;
        // Communication changes, and compute only by the contention of the reductions it
        // overlaps: with that off, the same compute on every point.
        analysis::Scenario free = p;
        free.workload.parallelism.overlap_contention = false;
        analysis::Scenario free_first = set.points.front();
        free_first.workload.parallelism.overlap_contention = false;
        CHECK(analysis::run_scenario(free).breakdown.compute_s ==
              doctest::Approx(analysis::run_scenario(free_first).breakdown.compute_s));
        CHECK(r.breakdown.compute_s >= analysis::run_scenario(set.points.front()).breakdown.compute_s);
        const double exposed = r.breakdown.exposed_comm_s / r.iteration_s;
        if (crossover_us < 0 && exposed > 0.05) crossover_us = p.cluster.topology.inter_node->latency_us;
    }
    const auto first = analysis::run_scenario(set.points.front());
    const auto last = analysis::run_scenario(set.points.back());
    CHECK(first.breakdown.exposed_comm_s / first.iteration_s < 0.02);  // 2 us: compute-bound
    CHECK(last.breakdown.exposed_comm_s / last.iteration_s > 0.05);    // 500 us: communication shows
    // Exposed communication first exceeds 5% of the step between 100 and 200 us.
    CHECK(crossover_us == 200.0);
}
