// Durations by workload class: the factor is the ratio of two `rentsim run` step times, jobs find
// their class by trace column, rule or default, and a class that cannot run on a pool keeps the
// job off it, with the reason.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/capacity/pools_file.hpp"
#include "analysis/capacity/simulator.hpp"
#include "analysis/capacity/workload_class.hpp"
#include "analysis/run/run.hpp"
#include "analysis/scenario/input_error.hpp"
#include "models/compute/gpu.hpp"

using namespace rentsim;

namespace {

std::string error_of(const std::string& text) {
    try {
        (void)capacity::parse_pools(text, "p.json");
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

// A100 pool of p4de.24xlarge (8x A100 80 GB), durations recorded on V100 16 GB.
const std::string a100_pools = R"({"schema": 1, "pools": [
    {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
  "trace_gpu": "v100-sxm2-16gb",
  "workload_classes": {"resnet": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256}})";

// The step time `rentsim run` reports for a scenario file's text.
double run_step_s(const std::string& scenario) {
    const auto set = analysis::parse_scenarios(scenario, "s.json");
    REQUIRE(set.points.size() == 1);
    const auto r = analysis::run_scenario(set.points.front());
    REQUIRE(r.fits);
    return r.iteration_s;
}

jobs::Job job(std::string id, int gpus, double duration, std::string workload = "", std::string user = "u") {
    jobs::Job j;
    j.id = std::move(id);
    j.gpus = gpus;
    j.duration_s = duration;
    j.workload = std::move(workload);
    j.user = std::move(user);
    return j;
}

std::vector<capacity::JobRecord> replay(const capacity::ClusterConfig& c, std::vector<jobs::Job> jobs,
                                        std::vector<std::string>* reasons = nullptr) {
    capacity::VectorJobReader reader(std::move(jobs));
    std::vector<capacity::JobRecord> out;
    capacity::simulate_cluster(c, reader, [&](const capacity::JobRecord& r) {
        out.push_back(r);
        if (reasons) reasons->emplace_back(r.reason);
    });
    return out;
}

}  // namespace

TEST_CASE("a class's factor is the ratio of the two step times rentsim run gives, and the replay applies it") {
    const auto f = capacity::parse_pools(a100_pools + "}", "p.json");
    REQUIRE(f.config.workload_classes.size() == 1);
    // The same class as scenario files: 8 V100 of a DGX-1, and one p4de.24xlarge; 20 steps.
    const double v100 = run_step_s(R"({"schema": 1, "name": "v",
        "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "samples": 40960},
        "cluster": {"gpu": "v100-sxm2-16gb", "gpus": 8, "topology": "dgx1-v100"},
        "pricing": {"usd_per_gpu_hour": 0}})");
    const double a100 = run_step_s(R"({"schema": 1, "name": "a",
        "workload": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256, "samples": 40960},
        "cluster": {"instance": "aws/p4de.24xlarge", "gpus": 8},
        "pricing": {"usd_per_gpu_hour": 0}})");
    capacity::ClassDurations classes(f.config);
    const auto& factor = classes.factor(0, "v100-sxm2-16gb", f.config.pools[0], 8);
    CHECK(factor.problem.empty());
    CHECK(factor.factor == a100 / v100);
    // Faster on A100, but by less than the ratio of dense fp16 peaks (125 against 312 TFLOP/s):
    // a ResNet step is not all tensor-core math.
    const double peak_ratio = compute::peak(compute::find_gpu("v100-sxm2-16gb"), compute::Precision::fp16).value /
                              compute::peak(compute::find_gpu("a100-sxm4-80gb"), compute::Precision::fp16).value;
    CHECK(factor.factor < 1.0);
    CHECK(factor.factor > peak_ratio * 1.2);
    // Memoised: the same object for the same key.
    CHECK(&classes.factor(0, "v100-sxm2-16gb", f.config.pools[0], 8) == &factor);

    // One 8-GPU ResNet job of 3,600 s recorded on V100 runs 3,600 x factor on the A100 pool.
    const auto records = replay(f.config, {job("r", 8, 3600, "resnet")});
    REQUIRE(records.size() == 1);
    CHECK(records[0].status == "done");
    CHECK(records[0].workload_class == "resnet");
    CHECK(records[0].duration_factor == doctest::Approx(a100 / v100).epsilon(1e-12));
    CHECK(records[0].end_s - records[0].start_s == doctest::Approx(3600 * a100 / v100).epsilon(1e-9));
}

TEST_CASE("a job's class comes from its recorded workload, else the first matching rule, else the default") {
    const std::string two = a100_pools.substr(0, a100_pools.size() - 1) +
                            R"(, "bert": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32}})";
    const auto g = capacity::parse_pools(two + R"(,
        "workload_rules": [{"user": "vision-*", "class": "resnet"}, {"workload": "*BERT*", "vc": "?c1", "class": "bert"}]})",
                                         "p.json");
    capacity::ClassDurations classes(g.config);
    const auto class_of = [&](std::string workload, std::string user, std::string vc) {
        jobs::Job j = job("j", 1, 1, std::move(workload), std::move(user));
        j.vc = std::move(vc);
        return classes.class_of(j);
    };
    using capacity::ClassSource;
    CHECK(class_of("resnet", "x", "") == std::pair{0, ClassSource::trace});
    CHECK(class_of("bert", "vision-a", "") == std::pair{1, ClassSource::trace});   // the trace first
    CHECK(class_of("", "vision-a", "") == std::pair{0, ClassSource::rule});
    CHECK(class_of("Fine-tune BERT-Large", "x", "vc1") == std::pair{1, ClassSource::rule});
    CHECK(class_of("Fine-tune BERT-Large", "x", "vc12") == std::pair{-1, ClassSource::none});  // '?' is one character
    CHECK(class_of("other", "x", "") == std::pair{-1, ClassSource::none});
    const auto d = capacity::parse_pools(two + R"(, "default_workload_class": "bert"})", "p.json");
    capacity::ClassDurations with_default(d.config);
    CHECK(with_default.class_of(job("j", 1, 1, "other")) == std::pair{1, ClassSource::default_class});
}

TEST_CASE("glob patterns: '*' any run, '?' one character") {
    CHECK(capacity::glob_match("*", ""));
    CHECK(capacity::glob_match("a*c", "abbbc"));
    CHECK(capacity::glob_match("a*c", "ac"));
    CHECK_FALSE(capacity::glob_match("a*c", "acb"));
    CHECK(capacity::glob_match("?b*", "xbyy"));
    CHECK_FALSE(capacity::glob_match("?b", "b"));
    CHECK(capacity::glob_match("*a*a*", "banana"));
}

TEST_CASE("workload class errors name the pointer, suggest the closest name and say what was expected") {
    const std::string head = a100_pools;
    CHECK(error_of(head + R"(, "workload_rules": [{"user": "a", "class": "resnt"}]})") ==
          "p.json: /workload_rules/0/class: unknown workload class 'resnt'; did you mean 'resnet'? valid: resnet");
    CHECK(error_of(head + R"(, "default_workload_class": "renset"})") ==
          "p.json: /default_workload_class: unknown workload class 'renset'; did you mean 'resnet'? valid: resnet");
    CHECK(error_of(head + R"(, "workload_rules": [{"class": "resnet"}]})") ==
          "p.json: /workload_rules/0: a rule needs a pattern: 'workload', 'user', 'vc' or 'id' (a class for every job is "
          "'default_workload_class')");
    // The class's keys are checked by the scenario loader, at the class's pointer.
    const std::string bad_model = R"({"schema": 1, "pools": [
        {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
      "trace_gpu": "v100-sxm2-16gb",
      "workload_classes": {"r": {"model": "resnet5", "precision": "fp16", "batch_per_gpu": 256}}})";
    CHECK(error_of(bad_model).starts_with("p.json: /workload_classes/r/model: unknown model 'resnet5'; did you mean 'resnet50'?"));
    CHECK(error_of(R"({"schema": 1, "pools": [
        {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
      "trace_gpu": "v100-sxm2-16gb",
      "workload_classes": {"r": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 0}}})") ==
          "p.json: /workload_classes/r/batch_per_gpu: expected a positive integer, got 0");
    CHECK(error_of(R"({"schema": 1, "pools": [
        {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
      "trace_gpu": "v100-sxm2-16gb",
      "workload_classes": {"r": {"model": "resnet50", "precision": "fp16", "batch": 256}}})")
              .starts_with("p.json: /workload_classes/r/batch: unknown key 'batch'"));
    CHECK(error_of(R"({"schema": 1, "pools": [
        {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
      "trace_gpu": "v100-sxm2-16gb",
      "workload_classes": {"r": {"model": "resnet50", "precision": "fp16"}}})") ==
          "p.json: /workload_classes/r: missing the batch: give 'batch_per_gpu' or 'global_batch'");
    // Without a recorded GPU there is nothing to rescale from.
    CHECK(error_of(R"({"schema": 1, "pools": [
        {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
      "workload_classes": {"r": {"model": "resnet50", "precision": "fp16", "batch_per_gpu": 256}}})") ==
          "p.json: /workload_classes: workload classes rescale durations from the GPU they were recorded on: give "
          "'trace_gpu' or 'gpu_types.map'");
    CHECK(error_of(R"({"schema": 1, "pools": [
        {"name": "a100", "provider": "aws", "instance": "p4de.24xlarge", "plan": "on-demand", "nodes": 1}],
      "default_workload_class": "r"})") ==
          "p.json: /default_workload_class: 'default_workload_class' names workload classes; the file has no "
          "'workload_classes'");
}

TEST_CASE("a class that does not fit on a pool's GPU keeps its jobs off that pool, with the reason") {
    // GPT-3 2.7B in fp16 on one GPU: weights, gradients and Adam state fill an 80 GB A100, not a 40 GB one.
    const std::string head = R"({"schema": 1, "pools": [
        {"name": "a100-40", "provider": "aws", "instance": "p4d.24xlarge", "plan": "on-demand", "nodes": 1})";
    const std::string tail = R"(],
      "trace_gpu": "a100-sxm4-80gb",
      "workload_classes": {"gpt-2.7b": {"model": "gpt3-2.7b", "precision": "fp16", "global_batch": 8, "micro_batch": 1}},
      "default_workload_class": "gpt-2.7b"})";
    const auto only_40 = capacity::parse_pools(head + tail, "p.json");
    std::vector<std::string> reasons;
    const auto refused = replay(only_40.config, {job("g", 1, 3600)}, &reasons);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].status == "unschedulable");
    CHECK(reasons[0].starts_with("no pool can run it: workload class gpt-2.7b on 1 GPU of p4d.24xlarge: does not fit"));

    // With an H100 pool beside it the job runs there, although the A100 40 GB pool is cheaper and free.
    const auto both = capacity::parse_pools(
        head + R"(, {"name": "h100", "provider": "aws", "instance": "p5.48xlarge", "plan": "on-demand", "nodes": 1})" + tail,
        "p.json");
    const auto ran = replay(both.config, {job("g", 1, 3600)});
    REQUIRE(ran.size() == 1);
    CHECK(ran[0].status == "done");
    CHECK(ran[0].pool == "h100");
    CHECK(ran[0].duration_factor < 1.0);  // H100 is faster than the recorded A100
}

TEST_CASE("a job beyond a node is modelled on the whole nodes it holds, on both sides") {
    const auto f = capacity::parse_pools(a100_pools + "}", "p.json");
    const auto& cls = f.config.workload_classes.front();
    const auto gpus_of = [](const analysis::ScenarioDraft& d) {
        std::int64_t n = 0;
        for (const auto& [key, value] : d.keys)
            if (key == "cluster.gpus") n = std::get<std::int64_t>(value);
        return n;
    };
    // 12 GPUs on nodes of 8 hold two nodes: 16; 4 GPUs stay 4 (one node, shared).
    CHECK(gpus_of(capacity::class_draft_on_pool(cls, f.config.pools[0], 12)) == 16);
    CHECK(gpus_of(capacity::class_draft_on_pool(cls, f.config.pools[0], 4)) == 4);
    CHECK(gpus_of(capacity::class_draft_on_gpu(cls, "v100-sxm2-16gb", 12)) == 16);  // DGX-1: 8 a node
    CHECK(gpus_of(capacity::class_draft_on_gpu(cls, "v100-sxm2-16gb", 3)) == 3);
    capacity::ClassDurations classes(f.config);
    CHECK(classes.factor(0, "v100-sxm2-16gb", f.config.pools[0], 12).factor ==
          classes.factor(0, "v100-sxm2-16gb", f.config.pools[0], 16).factor);
}
