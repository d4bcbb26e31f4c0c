// What `rentsim check` reads besides scenarios: the scenario files under a folder (the rule
// that skips other JSON files) and a previous run's result file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "analysis/scenario/check_inputs.hpp"
#include "analysis/scenario/input_error.hpp"

using namespace rentsim;

namespace {

struct Folder {
    std::filesystem::path root = std::filesystem::temp_directory_path() / ("rentsim-check-inputs-" + std::to_string(::getpid()));
    Folder() {
        std::filesystem::remove_all(root);
        std::filesystem::create_directories(root);
    }
    ~Folder() { std::filesystem::remove_all(root); }
    std::string put(const std::string& relative, const std::string& text) const {
        const auto p = root / relative;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p.generic_string();
    }
};

std::string rows_error(const std::string& text) {
    try {
        analysis::parse_result_rows(text, "r.json");
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("a folder's scenarios are its JSON objects with a workload, recursively, in sorted order") {
    const Folder f;
    const auto b = f.put("b.json", R"({"schema": 1, "workload": {}})");
    const auto a = f.put("sub/a.json", R"({"workload": 1})");
    const auto fabric = f.put("fabric/f.json", R"({"schema": 1, "cluster": {}, "jobs": []})");
    const auto list = f.put("list.json", "[1, 2]");
    f.put("notes.txt", "not json");
    const auto found = analysis::find_scenario_files(f.root.string());
    CHECK(found.scenarios == std::vector<std::string>{b, a});
    REQUIRE(found.skipped.size() == 2);
    CHECK(found.skipped[0] == std::pair<std::string, std::string>{fabric, "no \"workload\" key"});
    CHECK(found.skipped[1] == std::pair<std::string, std::string>{list, "not a JSON object"});
}

TEST_CASE("a folder with a JSON file that does not parse is bad input naming the file") {
    const Folder f;
    const auto bad = f.put("x/bad.json", "{\"workload\": ");
    try {
        analysis::find_scenario_files(f.root.string());
        FAIL("no error");
    } catch (const analysis::InputError& e) {
        CHECK(e.file() == bad);
    }
    CHECK_THROWS_AS(analysis::find_scenario_files((f.root / "missing").string()), analysis::InputError);
}

TEST_CASE("a result file gives each result's numbers by dotted name, nulls as names without values") {
    const auto rows = analysis::parse_result_rows(
        R"({"schema": 1, "results": [{"name": "s", "point": "cluster.gpus=8", "cost_usd": 30.5,
             "breakdown": {"compute_s": 0.3}, "gpu": "a100", "lifecycle": null},
            {"name": "s", "point": "cluster.gpus=16", "cost_usd": null}]})",
        "r.json");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].point == "cluster.gpus=8");
    CHECK(*rows[0].numbers.at("cost_usd") == 30.5);
    CHECK(*rows[0].numbers.at("breakdown.compute_s") == 0.3);
    CHECK(!rows[0].numbers.at("lifecycle"));
    CHECK(rows[0].numbers.count("gpu") == 0);
    CHECK(!rows[1].numbers.at("cost_usd"));
}

TEST_CASE("a result file with two results of one point, a shard, or another schema is refused") {
    CHECK(rows_error(R"({"schema": 1, "results": [{"name": "s"}, {"name": "s"}]})") ==
          "r.json: /results/1: a second result named 's'");
    CHECK(rows_error(R"({"schema": 1, "shard": {}, "results": []})") ==
          "r.json: /shard: a shard of a sweep: join the shards with `rentsim merge` first");
    CHECK(rows_error(R"({"schema": 2, "results": []})") == "r.json: /schema: unsupported schema 2; this rentsim reads schema 1");
    CHECK(rows_error(R"({"schema": 1, "results": [{"point": "x"}]})") == "r.json: /results/0: expected a result with a \"name\"");
}
