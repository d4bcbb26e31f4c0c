#include "analysis/studies/collective.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

using namespace rentsim;
using namespace rentsim::analysis;

TEST_CASE("sizes are read as nccl-tests reads them") {
    CHECK(parse_size("8").value == 8.0);
    CHECK(parse_size("1K").value == 1024.0);
    CHECK(parse_size("1k").value == 1024.0);
    CHECK(parse_size("64MiB").value == 64.0 * 1048576.0);
    CHECK(parse_size("1GiB").value == 1073741824.0);
    CHECK(parse_size("1G").value == 1073741824.0);
    CHECK(parse_size("1GB").value == 1e9);
    CHECK(parse_size("1.5K").value == 1536.0);
    CHECK(parse_size(" 2 MB ").value == 2e6);
    CHECK(parse_size("16B").value == 16.0);
}

TEST_CASE("bad sizes are rejected with the reason") {
    CHECK_THROWS_WITH_AS(parse_size(""), doctest::Contains("empty size"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("abc"), doctest::Contains("expected a number of bytes"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("-8"), doctest::Contains("expected a number of bytes"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("1XB"), doctest::Contains("unknown unit 'XB'"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("1.5"), doctest::Contains("not a whole number of bytes"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("1..5K"), doctest::Contains("is not a number"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("1GiB:8"), doctest::Contains("starts above its end"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("0:1K"), doctest::Contains("above 0"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("8:1K:1"), doctest::Contains("factor must be above 1"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("8:1K:x"), doctest::Contains("not a number"), std::invalid_argument);
}

TEST_CASE("a size range steps by its factor like nccl-tests -b -e -f") {
    CHECK(sizes_in(parse_size_range("1GiB")).size() == 1);
    const auto sizes = sizes_in(parse_size_range("8:1GiB"));
    CHECK(sizes.size() == 28);
    CHECK(sizes.front().value == 8.0);
    CHECK(sizes.back().value == 1073741824.0);
    CHECK(sizes_in(parse_size_range("1K:1M:4")).size() == 6);
}

TEST_CASE("collective rows print like nccl-tests and round-trip through JSON") {
    net::TopologySpec s;
    s.preset = "dgx-a100";
    s.gpus = 16;
    const net::Network network(net::build_topology(s));
    const auto rows = collective_rows(network, net::Collective::all_reduce, parse_size_range("1M:1G:8"), 16);
    REQUIRE(rows.size() == 4);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        CHECK(rows[i].bytes == rows[i - 1].bytes * 8);
        CHECK(rows[i].time_s > rows[i - 1].time_s);
    }
    const std::string text = format_nccl_tests(rows, "dgx-a100");
    CHECK(text.find("#        size         count      type   redop    root        time    algbw    busbw  algorithm") !=
          std::string::npos);
    CHECK(text.find("     1048576        262144     float     sum      -1") != std::string::npos);
    CHECK(text.find("# Avg bus bandwidth") != std::string::npos);

    const auto doc = nlohmann::ordered_json::parse(collective_rows_json(rows));
    CHECK(doc["schema"] == 1);
    REQUIRE(doc["rows"].size() == 4);
    const auto& first = doc["rows"][0];
    for (const char* key : {"op", "bytes", "gpus", "algorithm", "time_s", "algbw_gbps", "busbw_gbps"}) CHECK(first.contains(key));
    CHECK(first["op"] == "all-reduce");
    CHECK(first["bytes"] == 1048576);
    CHECK(first["gpus"] == 16);
    CHECK(first["busbw_gbps"].get<double>() == doctest::Approx(rows[0].busbw_gbps));
}
