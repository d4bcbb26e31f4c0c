// The journal of finished sweep points: exact result records, input hashes, torn lines,
// locking, and a sweep that stops and resumes.
#include <doctest/doctest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "analysis/report/report.hpp"
#include "analysis/run/sweep.hpp"
#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/json_reader.hpp"

using namespace rentsim;

namespace {

std::string source(const std::string& relative) { return std::string(RENTSIM_SOURCE_DIR) + "/" + relative; }

std::string read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void append_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
}

// A folder of its own for each test case, removed at the end.
struct TempFolder {
    std::filesystem::path path;
    explicit TempFolder(const std::string& name)
        : path(std::filesystem::temp_directory_path() / ("rentsim-journal-test-" + std::to_string(::getpid()) + "-" + name)) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

// Two points of a shipped sweep, run once for the cases below.
const std::vector<analysis::Result>& demo_results() {
    static const auto results = analysis::run_all(analysis::load_scenarios(source("scenarios/bert-large-a100-8-vs-16.json")), 2);
    return results;
}

}  // namespace

TEST_CASE("a result record gives back a result that every writer writes byte-identically") {
    const char* files[] = {"bert-large-a100-8-vs-16",     "resnet50-latency-sensitivity", "gpt3-175b-a100-1024",
                           "llama2-70b-h100",             "resnet50-input-bound-workers", "resnet50-page-cache",
                           "resnet50-stream-vs-stage",    "bert-large-pricing-plans",     "gpt-1.3b-pricing-plans",
                           "bert-large-elastic-16-2",     "bert-large-p4de-by-instance"};
    for (const char* file : files) {
        CAPTURE(file);
        const auto set = analysis::load_scenarios(source(std::string("scenarios/") + file + ".json"));
        for (const int replications : {0, 3}) {
            analysis::RunOptions options;
            options.replications = replications;
            const auto results = analysis::run_all(set, 2, options);
            std::vector<analysis::Result> restored;
            for (const auto& r : results) {
                const std::string record = analysis::result_record(r);
                CHECK(record.find('\n') == std::string::npos);
                restored.push_back(analysis::result_from_record(record));
                CHECK(analysis::result_record(restored.back()) == record);
            }
            CHECK(analysis::results_to_json(restored) == analysis::results_to_json(results));
            CHECK(analysis::results_to_csv(restored) == analysis::results_to_csv(results));
            CHECK(analysis::format_results_text(restored) == analysis::format_results_text(results));
        }
    }
}

TEST_CASE("result records keep every double exactly, infinities and NaN included") {
    std::mt19937_64 rng(12345);
    std::vector<double> values = {0.0, -0.0, 1.0 / 3.0, 1e-310, std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), 0.1 + 0.2};
    for (int i = 0; i < 2000; ++i) {
        const double x = std::bit_cast<double>(rng());
        if (std::isfinite(x)) values.push_back(x);
    }
    analysis::Result r = demo_results().front();
    for (const double x : values) {
        r.cost_usd = x;
        r.lifecycle.lost_work_s = -x;
        r.epochs.assign(1, analysis::EpochResult{x, x, x});
        const auto back = analysis::result_from_record(analysis::result_record(r));
        CHECK(std::bit_cast<std::uint64_t>(back.cost_usd) == std::bit_cast<std::uint64_t>(x));
        CHECK(std::bit_cast<std::uint64_t>(back.lifecycle.lost_work_s) == std::bit_cast<std::uint64_t>(-x));
        REQUIRE(back.epochs.size() == 1);
        CHECK(std::bit_cast<std::uint64_t>(back.epochs[0].stall_fraction) == std::bit_cast<std::uint64_t>(x));
    }
    r.mfu = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(analysis::result_from_record(analysis::result_record(r)).mfu));
    r.fingerprint = std::numeric_limits<std::uint64_t>::max();
    r.iterations = std::numeric_limits<std::int64_t>::min();
    const auto back = analysis::result_from_record(analysis::result_record(r));
    CHECK(back.fingerprint == r.fingerprint);
    CHECK(back.iterations == r.iterations);
}

TEST_CASE("a damaged result record is refused, never half read") {
    const std::string good = analysis::result_record(demo_results().front());
    CHECK_THROWS_AS(analysis::result_from_record(""), std::invalid_argument);
    CHECK_THROWS_AS(analysis::result_from_record(good.substr(0, good.size() / 2)), std::invalid_argument);
    CHECK_THROWS_AS(analysis::result_from_record("[1, 2]"), std::invalid_argument);
    std::string missing = good;
    missing.replace(missing.find("\"gpus\":"), 6, "\"gpuz\"");
    CHECK_THROWS_AS(analysis::result_from_record(missing), std::invalid_argument);
    std::string wrong_type = good;
    wrong_type.replace(wrong_type.find("\"fits\":true"), 11, "\"fits\":1");
    CHECK_THROWS_AS(analysis::result_from_record(wrong_type), std::invalid_argument);
    CHECK_THROWS_AS(analysis::result_from_record(good.substr(0, good.size() - 1) + ",\"extra\":1}"), std::invalid_argument);
}

TEST_CASE("point input hashes name each point, its seed and replications, not the file's layout") {
    const std::string file = source("scenarios/bert-large-a100-8-vs-16.json");
    const auto set = analysis::load_scenarios(file);
    const std::string text = read(file);
    const auto hashes = analysis::point_input_hashes(set, text, {});
    REQUIRE(hashes.size() == 2);
    CHECK(hashes[0] != hashes[1]);
    CHECK(hashes[0].size() == 16);
    CHECK(analysis::point_input_hashes(set, text, {}) == hashes);
    analysis::RunOptions seeded;
    seeded.seed = 99;
    CHECK(analysis::point_input_hashes(set, text, seeded)[0] != hashes[0]);
    analysis::RunOptions replicated;
    replicated.replications = 5;
    CHECK(analysis::point_input_hashes(set, text, replicated)[0] != hashes[0]);
    // Other spacing: the same inputs. Another value: other inputs.
    CHECK(analysis::point_input_hashes(set, analysis::Json::parse(text).dump(7), {}) == hashes);
    std::string other = text;
    other.replace(other.find("\"epochs\": 3"), 11, "\"epochs\": 4");
    CHECK(analysis::point_input_hashes(set, other, {})[0] != hashes[0]);
}

TEST_CASE("a journal keeps whole lines, ignores a torn one and restores matching points only") {
    TempFolder folder("lines");
    const std::string path = (folder.path / "o.json.journal").string();
    const auto& results = demo_results();
    {
        analysis::PointJournal journal(path, {"aaaa", "bbbb"}, false);
        CHECK(journal.restored_count() == 0);
        journal.append(1, results[1]);
        CHECK(journal.points() == 1);
    }
    REQUIRE(std::filesystem::exists(path));  // it holds a point: it stays
    CHECK_THROWS_AS(analysis::PointJournal(path, {"aaaa", "bbbb"}, false), analysis::InputError);
    // A kill mid-append: a line without its end.
    const std::string whole = read(path);
    append_text(path, analysis::result_record(results[0]).substr(0, 100));
    {
        analysis::PointJournal journal(path, {"aaaa", "bbbb"}, true);
        CHECK(read(path) == whole);  // the torn line is cut before anything is appended
        CHECK(journal.restored_count() == 1);
        REQUIRE(journal.restored()[1].has_value());
        CHECK(analysis::result_record(*journal.restored()[1]) == analysis::result_record(results[1]));
        journal.append(0, results[0]);
    }
    {
        // Other inputs at index 1: that point runs again; a damaged line in the middle is skipped.
        append_text(path, "{\"index\": 0, \"inputs\": \"aaaa\", \"result\": {\"name\": 1}}\n");
        analysis::PointJournal journal(path, {"aaaa", "cccc"}, true);
        CHECK(journal.restored_count() == 1);
        CHECK(journal.restored()[0].has_value());
        CHECK_FALSE(journal.restored()[1].has_value());
        journal.remove();
    }
    CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("a journal is locked while open, and goes when it holds no point") {
    TempFolder folder("lock");
    const std::string path = (folder.path / "o.csv.journal").string();
    {
        analysis::PointJournal journal(path, {"aaaa"}, true);  // --resume without a journal: a new one
        CHECK_THROWS_WITH_AS(analysis::PointJournal(path, {"aaaa"}, true), doctest::Contains("in use"), analysis::InputError);
    }
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_THROWS_AS(analysis::PointJournal((folder.path / "missing" / "o.journal").string(), {"aaaa"}, false),
                    analysis::InputError);
}

TEST_CASE("a stopped sweep keeps its finished points, and a resumed one runs only the others") {
    const auto set = analysis::load_scenarios(source("scenarios/resnet50-latency-sensitivity.json"));
    const auto all = analysis::run_all(set, 2);
    std::vector<std::optional<analysis::Result>> done(set.points.size());
    std::atomic<int> calls{0};
    analysis::SweepControl first;
    first.finished = [&](std::size_t i, const analysis::Result& r) {
        done[i] = r;
        ++calls;
    };
    first.stop = [&] { return calls.load() >= 3; };
    const auto stopped = analysis::run_points(set, 1, {}, first);
    CHECK(calls == 3);
    for (std::size_t i = 0; i < stopped.size(); ++i) CHECK(stopped[i].has_value() == (i < 3));

    std::vector<std::size_t> ran;
    analysis::SweepControl second;
    second.done = done;
    second.finished = [&](std::size_t i, const analysis::Result&) { ran.push_back(i); };
    const auto resumed = analysis::run_points(set, 2, {}, second);
    CHECK(ran.size() == set.points.size() - 3);
    for (const auto i : ran) CHECK(i >= 3);
    std::vector<analysis::Result> results;
    for (const auto& r : resumed) results.push_back(*r);
    CHECK(analysis::results_to_json(results) == analysis::results_to_json(all));
}

TEST_CASE("an error of the journal stops the sweep and is rethrown") {
    const auto set = analysis::load_scenarios(source("scenarios/resnet50-latency-sensitivity.json"));
    analysis::SweepControl control;
    std::atomic<int> calls{0};
    control.finished = [&](std::size_t, const analysis::Result&) {
        ++calls;
        throw analysis::InputError("o.json.journal", "", "cannot write journal: No space left on device");
    };
    CHECK_THROWS_AS(analysis::run_points(set, 1, {}, control), analysis::InputError);
    CHECK(calls == 1);
}
