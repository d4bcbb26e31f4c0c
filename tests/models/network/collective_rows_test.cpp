#include "analysis/studies/collective.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

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
    CHECK_THROWS_WITH_AS(parse_size_range("0:1K"), doctest::Contains("at least 1 byte"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("8:1K:1"), doctest::Contains("factor must be a finite number above 1"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("8:1K:x"), doctest::Contains("not a number"), std::invalid_argument);
}

TEST_CASE("sizes run from 1 byte to 1 PiB") {
    CHECK_THROWS_WITH_AS(parse_size("0"), "size '0': expected a size of at least 1 byte", std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("0K"), doctest::Contains("at least 1 byte"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("0.5"), doctest::Contains("at least 1 byte"), std::invalid_argument);
    CHECK(parse_size("1").value == 1.0);
    CHECK(parse_size("1024T").value == kMaxSizeBytes);
    CHECK_THROWS_WITH_AS(parse_size("1025T"), doctest::Contains("above the maximum of 1 PiB"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("1000000000000000000000000000000"),
                         "size '1000000000000000000000000000000' is 1e+30 bytes, above the maximum of 1 PiB "
                         "(1125899906842624 bytes)",
                         std::invalid_argument);
    // More digits than a double holds: far above the maximum, or far below a byte.
    CHECK_THROWS_WITH_AS(parse_size("1" + std::string(400, '0')), doctest::Contains("above the maximum"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size("0." + std::string(400, '0') + "1"), doctest::Contains("at least 1 byte"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("8:2048T"), doctest::Contains("above the maximum"), std::invalid_argument);
}

TEST_CASE("a range factor must be finite and above 1") {
    for (const char* text : {"8:1K:nan", "8:1K:inf", "8:1K:-inf", "8:1K:0.5", "8:1K:-2", "8:1K:1"}) {
        CAPTURE(text);
        CHECK_THROWS_WITH_AS(parse_size_range(text), doctest::Contains("factor must be a finite number above 1"),
                             std::invalid_argument);
    }
}

TEST_CASE("a range always moves on: each size at least one byte above the one before") {
    // floor(1 x 1.5) = 1 would repeat forever; the next size is 2.
    auto sizes = sizes_in(parse_size_range("1:2:1.5"));
    REQUIRE(sizes.size() == 2);
    CHECK(sizes[0].value == 1.0);
    CHECK(sizes[1].value == 2.0);
    sizes = sizes_in(parse_size_range("1:8:1.5"));
    std::vector<double> values;
    for (auto b : sizes) values.push_back(b.value);
    CHECK(values == std::vector<double>{1, 2, 3, 4, 6});
    sizes = sizes_in(parse_size_range("1:1000:1.0001"));
    CHECK(sizes.size() == 1000);
    CHECK(sizes.back().value == 1000.0);
}

TEST_CASE("a range holds at most 1000 sizes, and the message gives the count") {
    CHECK(sizes_in(parse_size_range("1:1000:1.0001")).size() == kMaxSizes);
    CHECK_THROWS_WITH_AS(parse_size_range("1:1001:1.0001"),
                         "size range '1:1001:1.0001' holds 1001 sizes; at most 1000: use a larger factor or a "
                         "narrower range",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_size_range("1:1024T:1.0000001"), doctest::Contains("holds more than 1000000 sizes"),
                         std::invalid_argument);
    // sizes_in checks a range made by hand the same way.
    SizeRange r;
    r.min = units::Bytes{1.0};
    r.max = units::Bytes{2.0};
    r.factor = 1.0;
    CHECK_THROWS_WITH_AS(sizes_in(r), doctest::Contains("factor must be a finite number above 1"), std::invalid_argument);
    r.factor = 1.5;
    r.min = units::Bytes{0.0};
    CHECK_THROWS_AS(sizes_in(r), std::invalid_argument);
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

TEST_CASE("flow-model rows agree with the analytic ring rows and refuse other algorithms") {
    net::TopologySpec s;
    s.preset = "dgx-a100";
    s.gpus = 16;
    const net::Network network(net::build_topology(s));
    const SizeRange sizes = parse_size_range("64M:1G:4");
    const auto flow = collective_rows(network, net::Collective::all_reduce, sizes, 16, net::Algorithm::automatic,
                                      CollectiveModel::flow);
    const auto ring = collective_rows(network, net::Collective::all_reduce, sizes, 16, net::Algorithm::ring);
    REQUIRE(flow.size() == 3);
    REQUIRE(ring.size() == 3);
    for (std::size_t i = 0; i < flow.size(); ++i) {
        CHECK(flow[i].algorithm == "ring");
        CHECK(flow[i].bytes == ring[i].bytes);
        CHECK(flow[i].time_s == doctest::Approx(ring[i].time_s).epsilon(1e-4));
        CHECK(flow[i].algbw_gbps == doctest::Approx(flow[i].bytes / flow[i].time_s / 1e9));
        CHECK(flow[i].busbw_gbps == doctest::Approx(flow[i].algbw_gbps * 2.0 * 15.0 / 16.0));
    }
    const auto a2a = collective_rows(network, net::Collective::all_to_all, parse_size_range("1G"), 16,
                                     net::Algorithm::direct, CollectiveModel::flow);
    CHECK(a2a.front().algorithm == "direct");
    CHECK_THROWS_WITH_AS(collective_rows(network, net::Collective::all_reduce, sizes, 16, net::Algorithm::tree,
                                         CollectiveModel::flow),
                         doctest::Contains("valid algorithms: auto, ring"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(collective_rows(network, net::Collective::all_reduce, sizes, 1, net::Algorithm::automatic,
                                         CollectiveModel::flow),
                         doctest::Contains("at least 2 GPUs"), std::invalid_argument);
    CHECK(collective_model_registry().names().size() == 2);
    CHECK(*collective_model_registry().find("flow") == CollectiveModel::flow);
}
