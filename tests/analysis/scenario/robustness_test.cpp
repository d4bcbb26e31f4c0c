// Bad input found by mutating scenarios: each is refused with the file, the location and
// what was expected, never a crash, a wrap or a silent value.
#include <doctest/doctest.h>

#include <string>

#include "analysis/scenario/input_error.hpp"
#include "analysis/scenario/ranges.hpp"
#include "analysis/scenario/scenario.hpp"
#include "tests/readme_section.hpp"

using namespace rentsim;

namespace {

const std::string base = R"({
  "schema": 1, "name": "b",
  "workload": {"model": "bert-large", "precision": "fp16", "seq_len": 128, "batch_per_gpu": 32, "samples": 1000000},
  "cluster": {"gpu": "a100-sxm4-80gb", "gpus": 8},
  "pricing": {"usd_per_gpu_hour": 2.0}
})";

// `base` with `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
    std::string s = base;
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

analysis::InputError refusal(const std::string& text) {
    try {
        (void)analysis::parse_scenarios(text, "m.json");
    } catch (const analysis::InputError& e) {
        return e;
    }
    FAIL("accepted");
    return analysis::InputError("", "", "");
}

}  // namespace

TEST_CASE("JSON nested deeper than the limit is refused before it is parsed") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const auto e = refusal(deep);
    CHECK(e.where() == "line 1, column 65");
    CHECK(e.message() == "nesting deeper than 64 levels of arrays and objects");
    // Brackets inside strings do not count.
    CHECK_NOTHROW((void)analysis::parse_scenarios(with("\"name\": \"b\"", "\"name\": \"" + std::string(200, '[') + "\""), "m.json"));
}

TEST_CASE("integers from 2^63 to 2^64 - 1 are refused, not wrapped") {
    auto e = refusal(with("\"batch_per_gpu\": 32", "\"batch_per_gpu\": 9223372036854775808"));
    CHECK(e.where() == "/workload/batch_per_gpu");
    CHECK(e.message() == "expected an integer up to 9223372036854775807, got 9223372036854775808");
    e = refusal(with("\"gpus\": 8", "\"gpus\": 18446744073709551615"));
    CHECK(e.where() == "/cluster/gpus");
}

TEST_CASE("numbers beyond a double are refused with their line and column") {
    const auto e = refusal(with("\"usd_per_gpu_hour\": 2.0", "\"usd_per_gpu_hour\": 1e309"));
    CHECK(e.where() == "line 5, column 35");
    CHECK(e.message() == "number 1e309 is beyond the range of a double (about 1.8e308)");
}

TEST_CASE("duplicate keys are refused, naming the key") {
    const auto e = refusal(with("\"gpus\": 8", "\"gpus\": 8, \"gpus\": 16"));
    CHECK(e.where() == "/cluster/gpus");
    CHECK(e.message() == "duplicate key 'gpus' (the first is ignored by JSON parsers; remove one)");
    // The same key in sibling objects is fine.
    CHECK_NOTHROW((void)analysis::parse_scenarios(base, "m.json"));
}

TEST_CASE("every number has a documented range, checked with its unit") {
    struct Case {
        std::string from, to, where, message;
    };
    const Case cases[] = {
        {"\"gpus\": 8", "\"gpus\": 1000000000", "/cluster/gpus", "expected at most 262144 GPUs, got 1000000000"},
        {"\"samples\": 1000000", "\"tokens\": 1e30", "/workload/tokens", "expected at most 1e+17 tokens, got 1e+30"},
        {"\"usd_per_gpu_hour\": 2.0", "\"usd_per_gpu_hour\": 2.0, \"minimum_billed_s\": 1e308", "/pricing/minimum_billed_s",
         "expected at most 31536000 s, got 1e+308"},
        {"\"gpus\": 8", "\"gpus\": 16, \"inter_node\": {\"fabric\": \"tcp\", \"gbps_per_gpu\": 10, \"latency_us\": 1e308}",
         "/cluster/inter_node/latency_us", "expected at most 1000000 us, got 1e+308"},
        {"\"samples\": 1000000", "\"dataset_samples\": 1000000, \"epochs\": 1e9", "/workload/epochs",
         "expected at most 100000 epochs, got 1000000000.0"},
        {"\"gpus\": 8}", "\"gpus\": 8}, \"data\": {\"workers_per_gpu\": 1000000000, \"samples_per_s_per_worker\": 100}",
         "/data/workers_per_gpu", "expected at most 256 workers, got 1000000000"},
        {"\"usd_per_gpu_hour\": 2.0}", "\"usd_per_gpu_hour\": 2.0}, \"lifecycle\": {\"failures\": {\"gpu_mtbf_h\": 1e-6}}",
         "/lifecycle/failures/gpu_mtbf_h", "expected at least 1 h, got 1e-06"},
        {"\"batch_per_gpu\": 32", "\"batch_per_gpu\": 32, \"parallelism\": {\"tp\": 65536, \"pp\": 65536}",
         "/workload/parallelism/tp", "expected at most 1024, got 65536"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.to);
        const auto e = refusal(with(c.from, c.to));
        CHECK(e.where() == c.where);
        CHECK(e.message() == c.message);
    }
}

TEST_CASE("a long value is cut in messages, never echoed whole") {
    const auto e = refusal(with("\"a100-sxm4-80gb\"", "\"" + std::string(1000000, 'x') + "\""));
    CHECK(e.where() == "/cluster/gpu");
    CHECK(e.message().size() < 2000);
    CHECK(e.message().starts_with("unknown GPU '" + std::string(64, 'x') + "...'"));
}

TEST_CASE("a sweep of more points than the limit is refused before it expands") {
    std::string values = "[1";
    for (int i = 2; i <= 400; ++i) values += ", " + std::to_string(i);
    values += "]";
    std::string text = base;
    text.replace(text.rfind('}'), 1, ", \"sweep\": {\"seed\": " + values + ", \"workload.micro_batch\": " + values + "}}");
    const auto e = refusal(text);
    CHECK(e.where() == "/sweep");
    CHECK(e.message() == "expected at most 100000 points, got 160000.0 (the product of the value counts)");
}

TEST_CASE("README's accepted ranges are the loaders' tables") {
    test::check_readme_section("scenario-ranges", analysis::ranges_markdown(analysis::scenario_number_ranges()),
                               "build/ci/tests/analysis/scenario/scenario_tests --test-case=\"README*\"");
    test::check_readme_section("calibration-ranges", analysis::ranges_markdown(analysis::calibration_number_ranges()),
                               "build/ci/tests/analysis/scenario/scenario_tests --test-case=\"README*\"");
}

TEST_CASE("every number a shipped scenario holds has a range") {
    // range_of throws std::logic_error for a numeric key without one: loading every shipped
    // scenario reads every kind of key they use.
    for (const char* f : {"bert-large-a100-8-vs-16", "bert-large-elastic-16-2", "bert-large-pricing-plans",
                          "gpt-1.3b-pricing-plans", "gpt3-175b-a100-1024", "llama2-70b-h100", "resnet50-input-bound-workers",
                          "resnet50-latency-sensitivity", "resnet50-page-cache", "resnet50-stream-vs-stage",
                          "bert-large-p4de-by-instance"}) {
        CAPTURE(f);
        CHECK_NOTHROW((void)analysis::load_scenarios(std::string(RENTSIM_SOURCE_DIR) + "/scenarios/" + f + ".json"));
    }
}
