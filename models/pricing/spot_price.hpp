// Recorded spot price histories: what a spot instance cost as time went by.
//
// Format: the JSON that AWS's DescribeSpotPriceHistory returns (`aws ec2
// describe-spot-price-history`): {"SpotPriceHistory": [{"AvailabilityZone", "InstanceType",
// "ProductDescription", "SpotPrice": "1.067100", "Timestamp": "2020-02-20T22:06:16.000Z"}, ...],
// "NextToken": ""}. Each record is a price change of one availability zone; the price holds until
// that zone's next record. Records may come in any order (AWS lists the newest first).
//
// Time 0 of a history is its earliest record over all zones. A zone's first price also holds
// before its first record: DescribeSpotPriceHistory "returns the last price change before the
// start time, which is the effective price as of the start time" (AWS SDK API reference, read
// 2026-12-02), so each zone's first record is the price in force at the start of the window. The
// last price holds after the last record.
//
// Recorded histories ship with the scenarios (scenarios/traces/spot/training_on_a_dime: AWS p3
// in us-east-1, 2019-12-22 to 2020-02-20, MIT licence); they are read from their files.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>


namespace rentsim::price {

// A malformed history: `pointer` is the JSON pointer of the offending value ("" for the whole
// document, "byte N" for a syntax error, N counted from 1).
class SpotPriceError : public std::invalid_argument {
public:
    SpotPriceError(std::string pointer, const std::string& message)
        : std::invalid_argument(pointer.empty() ? message : pointer + ": " + message), pointer_(std::move(pointer)),
          message_(message) {}
    const std::string& pointer() const { return pointer_; }
    const std::string& message() const { return message_; }

private:
    std::string pointer_, message_;
};

struct SpotPriceStep {
    double time_s = 0;            // from the history's time 0
    double usd_per_hour = 0;      // of one instance, > 0
};

// One availability zone's prices: piecewise constant, steps in time order, no two in a row
// with the same price (a record that repeats the price is merged into the one before).
struct SpotPriceSeries {
    std::string zone;
    std::vector<SpotPriceStep> steps;  // at least one

    // The price in force at `t_s` (seconds from the history's time 0): the last step at or
    // before it; the first step's before it.
    double price_at(double t_s) const;
    // The integral of price(t) / `per` over [from_s, from_s + length_s], in seconds (a cost in
    // units of `per` times seconds). A constant series gives exactly length_s when `per` is its
    // price. length_s >= 0, per > 0.
    double weighted_seconds(double from_s, double length_s, double per) const;
    // The time-weighted mean price over [0, span_s]; the first price when span_s is 0 or the
    // series has one step.
    double mean(double span_s) const;
};

struct SpotPriceHistory {
    std::string name;                 // the file
    std::string instance, product;    // shared by every record
    std::string start;                // time 0 as recorded, "2019-12-22T07:09:01.000Z"
    double span_s = 0;                // the latest record's time
    std::vector<SpotPriceSeries> zones;  // by zone name

    // The series of `zone`; nullptr when the file has no record of it.
    const SpotPriceSeries* find_zone(std::string_view zone) const;
    // The zone with the lowest mean price over the span (the first by name on a tie).
    const SpotPriceSeries& cheapest() const;
    std::vector<std::string_view> zone_names() const;
};

// At most this many records are read from one history (AWS returns 1,000 a page; the shipped
// 60-day histories hold 264 to 874).
inline constexpr std::size_t max_spot_price_records = 1000000;

// Parses a DescribeSpotPriceHistory document. Strict: unknown keys, a record of another instance
// type or product, a price that is not a positive decimal, a time that is not
// YYYY-MM-DDTHH:MM:SS[.fff]Z, no record: SpotPriceError naming the JSON pointer.
SpotPriceHistory parse_spot_price_history(std::string_view text, std::string name);

}  // namespace rentsim::price
