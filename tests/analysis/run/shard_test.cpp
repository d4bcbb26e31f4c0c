// Shards of a sweep: which points each holds, shard files, and their merge (exact results,
// every shard once, of one sweep).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "analysis/run/shard.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/input_error.hpp"

using namespace rentsim;
using analysis::ShardSpec;

namespace {

std::string parse_error(const std::string& text) {
    try {
        analysis::parse_shard(text);
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

analysis::Result result(std::size_t i) {
    analysis::Result r;
    r.name = "sweep";
    r.point = "cluster.gpus=" + std::to_string(8 * (i + 1));
    r.gpus = static_cast<int>(8 * (i + 1));
    r.time_to_train_s = 1000.0 / static_cast<double>(i + 1) + 0.1;  // not a round number
    r.cost_usd = 3.3 * static_cast<double>(i);
    r.fingerprint = 0x9e3779b97f4a7c15ull * (i + 1);
    return r;
}

struct Files {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rentsim-shard-test-" + std::to_string(::getpid()));
    Files() { std::filesystem::create_directories(dir); }
    ~Files() { std::filesystem::remove_all(dir); }
    std::string write(const std::string& name, const std::string& text) const {
        const auto path = (dir / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
};

// Shard i of n of a sweep of `points` results, as a file.
std::string shard_file(const Files& f, int i, int n, std::size_t points, const std::string& hash_salt = "") {
    std::vector<std::string> hashes;
    for (std::size_t k = 0; k < points; ++k) hashes.push_back("h" + std::to_string(k) + hash_salt);
    const ShardSpec spec{i, n};
    const auto indices = analysis::shard_points(points, spec);
    std::vector<analysis::Result> results;
    for (const auto k : indices) results.push_back(result(k));
    return f.write("s" + std::to_string(i) + "of" + std::to_string(n) + hash_salt + ".json",
                   analysis::shard_json(spec, "sweep", hashes, indices, results));
}

std::string merge_error(const std::vector<std::string>& paths) {
    try {
        analysis::merge_shards(paths);
    } catch (const analysis::InputError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("--shard i/N takes 1 <= i <= N and nothing else") {
    const ShardSpec s = analysis::parse_shard("2/4");
    CHECK(s.index == 2);
    CHECK(s.count == 4);
    CHECK(analysis::parse_shard("100000/100000").count == 100000);
    for (const char* bad : {"0/4", "5/4", "2/", "/4", "2/4x", " 2/4", "2", "a/b", "1/100001", "-1/4", "2/0"})
        CHECK_MESSAGE(parse_error(bad) == "--shard: expected i/N with 1 <= i <= N <= 100000, such as 2/4, got '" +
                                              std::string(bad) + "'",
                      bad);
}

TEST_CASE("shard i of N holds the points whose index is i - 1 modulo N: every point in exactly one shard") {
    CHECK(analysis::shard_points(10, {2, 4}) == std::vector<std::size_t>{1, 5, 9});
    CHECK(analysis::shard_points(3, {5, 5}).empty());
    for (std::size_t points = 0; points < 30; ++points)
        for (int n = 1; n <= 12; ++n) {
            std::vector<int> seen(points, 0);
            for (int i = 1; i <= n; ++i)
                for (const auto k : analysis::shard_points(points, {i, n})) ++seen[k];
            for (const int s : seen) CHECK(s == 1);
        }
}

TEST_CASE("merged shards give every point's exact result, in order, whatever the order of the files") {
    const Files f;
    const auto a = shard_file(f, 1, 3, 7), b = shard_file(f, 2, 3, 7), c = shard_file(f, 3, 3, 7);
    const auto merged = analysis::merge_shards({c, a, b});
    REQUIRE(merged.size() == 7);
    for (std::size_t k = 0; k < merged.size(); ++k) CHECK(analysis::result_record(merged[k]) == analysis::result_record(result(k)));
}

TEST_CASE("merge refuses a missing shard, a shard twice, and shards of different sweeps") {
    const Files f;
    const auto a = shard_file(f, 1, 3, 7), b = shard_file(f, 2, 3, 7), c = shard_file(f, 3, 3, 7);
    CHECK(merge_error({a, b}) == a + ": shard 3/3 is missing");
    CHECK(merge_error({a, b, b, c}) == b + ": /shard/index: shard 2 again: " + b + " holds it too");
    const auto other = shard_file(f, 3, 3, 7, "x");
    CHECK(merge_error({a, b, other}) ==
          other + ": /shard: a shard of another sweep than " + a +
              " (its scenario, seed or replications differ, or its count of shards)");
    const auto fewer = shard_file(f, 3, 4, 7);
    CHECK(merge_error({a, fewer}).starts_with(fewer + ": /shard: a shard of another sweep"));
    const auto junk = f.write("junk.json", "{\"schema\": 1, \"results\": []}");
    CHECK(merge_error({junk}) == junk + ": not a shard file (written by `rentsim sweep FILE --shard i/N --out SHARD.json`)");
    // A shard whose point list was cut.
    std::ifstream in(a);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto cut = f.write("cut.json", text.replace(text.find("\"index\": 3"), 10, "\"index\": 4"));
    CHECK(merge_error({cut, b, c}) == cut + ": /results/1: expected the record of point 3");
}
