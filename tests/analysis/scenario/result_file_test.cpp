// Reading back result files: the fields the charts use, point labels, and exact errors.
#include <doctest/doctest.h>

#include <string>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/result_file.hpp"

using namespace rentsim::analysis;

namespace {

// One result as `rentsim run --out` writes it, cut to the fields the reader looks at (and
// one it does not, `tp`); `fits` false gives the nulls of a run that does not fit.
std::string result(const std::string& point, bool fits = true) {
    const std::string figures = fits ? R"("time_to_train_s": 4000.0, "cost_usd": 30.5, "throughput_samples_per_s": 750.0,
        "iteration_s": 0.34, "breakdown": {"compute_s": 0.3, "exposed_comm_s": 0.04, "input_stall_s": 0.0, "pipeline_bubble_s": 0.0},
        "lifecycle": {"plan": "on-demand", "deadline_h": 2.0, "deadline_met_fraction": 1.0})"
                                     : R"("time_to_train_s": null, "cost_usd": null, "throughput_samples_per_s": null,
        "iteration_s": null, "breakdown": null, "lifecycle": null)";
    return R"({"name": "n", )" + (point.empty() ? std::string() : "\"point\": \"" + point + "\", ") +
           R"("model": "bert-large", "gpu": "a100-sxm4-80gb", "gpus": 8, "tp": 1, "precision": "fp16", "fits": )" +
           (fits ? "true" : "false") + R"(, "status": "done",
        "memory_per_gpu_gib": 35.0, "memory": {"params_gib": 0.6, "gradients_gib": 0.6, "optimizer_gib": 3.8,
        "activations_gib": 28.0, "workspace_gib": 2.0}, "memory_available_gib": 80.0, )" + figures + "}";
}

std::string file_of(const std::string& results) { return R"({"schema": 1, "results": [)" + results + "]}"; }

std::string error_of(const std::string& text) {
    try {
        parse_result_text(text, "r.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("a result file gives each point's figures, nulls where the run does not fit") {
    const auto f = parse_result_text(file_of(result("cluster.gpus=8") + "," + result("cluster.gpus=16", false)), "r.json");
    REQUIRE(f.points.size() == 2);
    const auto& p = f.points[0];
    CHECK(p.point == "cluster.gpus=8");
    CHECK(p.gpus == 8);
    CHECK(p.fits);
    CHECK(*p.time_to_train_s == 4000.0);
    CHECK(*p.cost_usd == 30.5);
    CHECK(*p.compute_s == 0.3);
    CHECK(*p.deadline_h == 2.0);
    CHECK(p.plan == "on-demand");
    CHECK(p.activations_gib == 28.0);
    const auto& q = f.points[1];
    CHECK_FALSE(q.fits);
    CHECK_FALSE(q.time_to_train_s.has_value());
    CHECK_FALSE(q.compute_s.has_value());
    CHECK_FALSE(q.deadline_h.has_value());
    CHECK(q.memory_per_gpu_gib == 35.0);
}

TEST_CASE("a sweep point label splits into keys and values as written") {
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    CHECK(split_point_label("cluster.gpus=8") == Pairs{{"cluster.gpus", "8"}});
    CHECK(split_point_label(R"(cluster.gpu="h100 sxm" cluster.gpus=16)") ==
          Pairs{{"cluster.gpu", R"("h100 sxm")"}, {"cluster.gpus", "16"}});
    CHECK(split_point_label(R"(a=[1, 2] b={"x": "a\"b c"})") == Pairs{{"a", "[1, 2]"}, {"b", R"({"x": "a\"b c"})"}});
    CHECK(split_point_label("").empty());
    CHECK_THROWS_WITH(split_point_label("cluster.gpus"),
                      "expected a sweep point label of key=value pairs separated by spaces; 'cluster.gpus' has no '='");
    CHECK_THROWS_WITH(split_point_label("a=\"x"),
                      "expected a sweep point label of key=value pairs separated by spaces; the value of 'a' is not closed");
    CHECK_THROWS_WITH(split_point_label("=8"), "expected a sweep point label of key=value pairs separated by spaces; a pair has no key");
    CHECK_THROWS_WITH(split_point_label("a= b=1"), "expected a sweep point label of key=value pairs separated by spaces; 'a' has no value");
}

TEST_CASE("a broken result file names the file, the pointer and what was expected") {
    CHECK(error_of(R"({"schema": 2, "results": []})") ==
          "r.json: /schema: expected schema 1 (the result files this rentsim writes), got 2");
    CHECK(error_of(R"([1, 2])") == "r.json: expected a result file: an object with \"schema\": 1 and \"results\"");
    CHECK(error_of(R"({"schema": 1, "results": []})") == "r.json: /results: expected at least one result, got an empty array");
    CHECK(error_of(R"({"schema": 1})") ==
          "r.json: missing key 'results' (is this a file written by rentsim run --out?)");
    std::string no_cost = result("");
    no_cost.replace(no_cost.find("\"cost_usd\": 30.5, "), 18, "");
    CHECK(error_of(file_of(no_cost)) == "r.json: /results/0: missing key 'cost_usd' (is this a file written by rentsim run --out?)");
    std::string text_gpus = result("");
    text_gpus.replace(text_gpus.find("\"gpus\": 8"), 9, "\"gpus\": \"8\"");
    CHECK(error_of(file_of(text_gpus)) == "r.json: /results/0/gpus: expected an integer >= 0, got \"8\"");
    std::string negative = result("");
    negative.replace(negative.find("4000.0"), 6, "-1");
    CHECK(error_of(file_of(negative)) == "r.json: /results/0/time_to_train_s: expected a number >= 0, got -1");
    CHECK(error_of(file_of(result("cluster.gpus"))) ==
          "r.json: /results/0/point: expected a sweep point label of key=value pairs separated by spaces; 'cluster.gpus' has no '='");
    CHECK(error_of("{\"schema\": 1,\n \"results\": [}") .starts_with("r.json: line 2, column 14: malformed JSON"));
}

TEST_CASE("an unreadable result file is an input error naming it") {
    CHECK_THROWS_WITH_AS(read_result_file("/nonexistent/r.json"), "/nonexistent/r.json: cannot open file", InputError);
}
