// A trace-backed scenario (`workload.trace`): the step is the replayed trace's, and the run's
// times follow from it and the steps.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "analysis/replay/graph.hpp"
#include "analysis/replay/load.hpp"
#include "analysis/replay/replay.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/scenario.hpp"

using namespace rentsim;

TEST_CASE("a trace-backed scenario takes its step from the replayed trace") {
    const std::string root = RENTSIM_SOURCE_DIR;
    const analysis::ScenarioSet set = analysis::load_scenarios(root + "/scenarios/resnet-trace-v100-to-a100.json");
    REQUIRE(set.points.size() == 2);

    // As recorded: the p3dn point's GPU and precision are the trace's, so the step is the
    // plain replay's.
    const trace::Trace t = replay::load_trace({root + "/scenarios/traces/kineto/resnet_1xV100"});
    const replay::ReplayGraph g = replay::build_graph(t, {});
    const replay::ReplayResult replayed = replay::run_replay(g);
    const analysis::Result v100 = analysis::run_scenario(set.points[0]);
    CHECK(v100.gpu == "v100-sxm2-32gb");
    CHECK(v100.iteration_s == doctest::Approx(replayed.iteration_s).epsilon(1e-12));
    CHECK(v100.step_source.find("resnet_1xV100 (v100-sxm2-32gb x1): replayed step") != std::string::npos);

    // 1,281,167 images at 32 per step: 40,037 steps of the replayed step.
    CHECK(v100.iterations == 40037);
    CHECK(v100.time_to_train_s == doctest::Approx(40037 * v100.iteration_s).epsilon(1e-9));
    CHECK(v100.throughput_samples_per_s == doctest::Approx(32 / v100.iteration_s));

    // Retargeted to an A100 in TF32: faster, and said so.
    const analysis::Result a100 = analysis::run_scenario(set.points[1]);
    CHECK(a100.gpu == "a100-sxm4-80gb");
    CHECK(a100.iteration_s < v100.iteration_s);
    CHECK(a100.step_source.find("retargeted to a100-sxm4-80gb x1") != std::string::npos);
    CHECK(a100.cost_usd > 0);
}
