// Spot price histories: the reader's time line, its integral, its errors, and the shipped files.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "models/pricing/spot_price.hpp"

using namespace rentsim;

namespace {

std::string record(const std::string& zone, const std::string& price, const std::string& time,
                   const std::string& instance = "p3.2xlarge") {
    return R"({"AvailabilityZone": ")" + zone + R"(", "InstanceType": ")" + instance +
           R"(", "ProductDescription": "Linux/UNIX", "SpotPrice": ")" + price + R"(", "Timestamp": ")" + time + R"("})";
}

std::string doc(const std::string& records) { return R"({"NextToken": "", "SpotPriceHistory": [)" + records + "]}"; }

std::string error_of(const std::string& text) {
    try {
        (void)price::parse_spot_price_history(text, "h");
    } catch (const price::SpotPriceError& e) {
        return e.what();
    }
    return "no error";
}

price::SpotPriceHistory shipped(const std::string& instance) {
    const std::string path = std::string(RENTSIM_SOURCE_DIR) +
                             "/scenarios/traces/spot/training_on_a_dime/aws-spot-price-us-east-1-" + instance + ".json";
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot open " << path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return price::parse_spot_price_history(ss.str(), path);
}

}  // namespace

TEST_CASE("a history is a piecewise-constant price per zone from the earliest record") {
    // Newest first, as AWS lists them. Zone b: 1.0 from 00:00, 3.0 from 00:10, 3.0 again at
    // 00:20 (merged), 2.0 from 00:30. Zone c: its first record at 00:05 holds from time 0.
    const auto h = price::parse_spot_price_history(
        doc(record("us-east-1b", "2.000000", "2020-01-01T00:30:00.000Z") + "," +
            record("us-east-1b", "3.000000", "2020-01-01T00:20:00.000Z") + "," +
            record("us-east-1c", "0.500000", "2020-01-01T00:05:00.000Z") + "," +
            record("us-east-1b", "3.000000", "2020-01-01T00:10:00.000Z") + "," +
            record("us-east-1b", "1.000000", "2020-01-01T00:00:00.000Z")),
        "h");
    CHECK(h.instance == "p3.2xlarge");
    CHECK(h.product == "Linux/UNIX");
    CHECK(h.start == "2020-01-01T00:00:00.000Z");
    CHECK(h.span_s == 1800);
    REQUIRE(h.zones.size() == 2);
    const auto* b = h.find_zone("us-east-1b");
    REQUIRE(b != nullptr);
    REQUIRE(b->steps.size() == 3);
    CHECK(b->steps[1].time_s == 600);
    CHECK(b->steps[2].time_s == 1800);
    CHECK(b->price_at(0) == 1.0);
    CHECK(b->price_at(599.9) == 1.0);
    CHECK(b->price_at(600) == 3.0);
    CHECK(b->price_at(1500) == 3.0);
    CHECK(b->price_at(1e9) == 2.0);
    CHECK(h.find_zone("us-east-1c")->price_at(0) == 0.5);
    CHECK(h.find_zone("us-east-1a") == nullptr);
    // Means over [0, 1800 s]: b (600 x 1 + 1200 x 3) / 1800 = 2.333; c 0.5: c is the cheapest.
    CHECK(b->mean(h.span_s) == doctest::Approx(7.0 / 3));
    CHECK(h.cheapest().zone == "us-east-1c");
}

TEST_CASE("the integral of the price over a span crosses each change at its time") {
    price::SpotPriceSeries s{"z", {{0, 2.0}, {100, 4.0}, {250, 1.0}}};
    // [50, 150]: 50 s at 2 and 50 s at 4, over 2: 50 + 100 = 150.
    CHECK(s.weighted_seconds(50, 100, 2.0) == doctest::Approx(150));
    // [0, 1000]: 100 x 2 + 150 x 4 + 750 x 1 = 1550 (the last price holds).
    CHECK(s.weighted_seconds(0, 1000, 1.0) == doctest::Approx(1550));
    // Within one step, and from before time 0 (the first price).
    CHECK(s.weighted_seconds(120, 10, 1.0) == doctest::Approx(40));
    CHECK(s.weighted_seconds(-10, 10, 1.0) == doctest::Approx(20));
    CHECK(s.weighted_seconds(30, 0, 1.0) == 0);
    // A constant price integrates to the length itself, to the bit.
    const price::SpotPriceSeries flat{"z", {{0, 0.3707}}};
    for (double len : {0.1, 1.0, 3600.0, 12345.678, 1e7 / 3})
        CHECK(flat.weighted_seconds(987.654, len, 0.3707) == len);
}

TEST_CASE("history errors name the JSON pointer and what was expected") {
    const std::string ok = record("us-east-1b", "1.0", "2020-01-01T00:00:00.000Z");
    CHECK(error_of("[1]") == "expected a DescribeSpotPriceHistory object {\"SpotPriceHistory\": [...]}, got [1]");
    CHECK(error_of("{\"SpotPriceHistory\": [") == "byte 23: malformed JSON");  // 1-based; one past the end
    CHECK(error_of(R"({"SpotPriceHistory": [], "Next": ""})") == "/Next: unknown key; expected SpotPriceHistory, NextToken");
    CHECK(error_of(R"({"NextToken": ""})") == "missing key 'SpotPriceHistory'");
    CHECK(error_of(doc("")) == "/SpotPriceHistory: expected at least one price record");
    CHECK(error_of(doc(ok + ", 3")) == "/SpotPriceHistory/1: expected a price record object, got 3");
    CHECK(error_of(doc(record("us-east-1b", "-1.0", "2020-01-01T00:00:00.000Z"))) ==
          "/SpotPriceHistory/0/SpotPrice: expected a positive price per instance-hour (\"1.067100\"), got \"-1.0\"");
    CHECK(error_of(doc(record("us-east-1b", "1.0", "2020-01-01 00:00:00"))) ==
          "/SpotPriceHistory/0/Timestamp: expected YYYY-MM-DDTHH:MM:SS[.fff]Z (year 1970 to 2200), got '2020-01-01 00:00:00'");
    CHECK(error_of(doc(record("us-east-1b", "1.0", "2020-13-01T00:00:00Z"))) ==
          "/SpotPriceHistory/0/Timestamp: expected YYYY-MM-DDTHH:MM:SS[.fff]Z (year 1970 to 2200), got '2020-13-01T00:00:00Z'");
    CHECK(error_of(doc(ok + "," + record("us-east-1b", "1.0", "2020-01-01T01:00:00Z", "p3.8xlarge"))) ==
          "/SpotPriceHistory/1/InstanceType: expected p3.2xlarge as in the first record, got p3.8xlarge");
    CHECK(error_of(doc(ok + "," + record("us-east-1b", "2.0", "2020-01-01T00:00:00Z"))) ==
          "/SpotPriceHistory/1: a second price for us-east-1b at the same time as record 0");
    CHECK(error_of(doc(R"({"AvailabilityZone": "us-east-1b", "InstanceType": "p3.2xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "1.0", "Timestamp": "2020-01-01T00:00:00Z", "Price/x": 1})")) ==
          "/SpotPriceHistory/0/Price~1x: unknown key; expected AvailabilityZone, AvailabilityZoneId, InstanceType, "
          "ProductDescription, SpotPrice, Timestamp");
    CHECK(error_of(doc(R"({"AvailabilityZone": "us-east-1b", "InstanceType": "p3.2xlarge", "ProductDescription": "Linux/UNIX", "Timestamp": "2020-01-01T00:00:00Z"})")) ==
          "/SpotPriceHistory/0: missing key 'SpotPrice'");
    CHECK(error_of(std::string(100, '[')) == "byte 65: nesting deeper than 64");
}

TEST_CASE("the recorded histories read whole: zones, records and price ranges as documented") {
    const auto h2 = shipped("p3.2xlarge");
    CHECK(h2.instance == "p3.2xlarge");
    CHECK(h2.start == "2019-12-22T07:09:01.000Z");
    CHECK(h2.zone_names() == std::vector<std::string_view>{"us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f"});
    double lo = 1e9, hi = 0;
    for (const auto& z : h2.zones)
        for (const auto& s : z.steps) {
            lo = std::min(lo, s.usd_per_hour);
            hi = std::max(hi, s.usd_per_hour);
        }
    CHECK(lo == 0.918);
    CHECK(hi == 1.1564);
    const auto h16 = shipped("p3.16xlarge");
    for (const auto& z : h16.zones) {
        REQUIRE(z.steps.size() == 1);  // 7.344 throughout: one step after merging
        CHECK(z.steps[0].usd_per_hour == 7.344);
    }
    CHECK(shipped("p3.8xlarge").instance == "p3.8xlarge");
}
