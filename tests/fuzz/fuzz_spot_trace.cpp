// Fuzz target: both spot trace parsers (price::parse_bamboo_trace, price::parse_count_trace) and
// the spot price history reader (price::parse_spot_price_history) on the same input. Expected:
// std::invalid_argument (SpotPriceError is one). Checks the documented results: events in time
// order, within the span (a count log's span runs to its last reading, which may change
// nothing); a history's zones start at time 0, steps in strictly increasing time, no two in a
// row at one price, prices positive, each zone's mean within its prices and its integral over
// the span the mean times the span.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "fuzz_target.hpp"
#include "models/pricing/spot_price.hpp"
#include "models/pricing/spot_trace.hpp"

namespace {

void check(const rentsim::price::SpotTrace& t) {
    const auto& ev = t.events;
    RENTSIM_FUZZ_CHECK(std::is_sorted(ev.begin(), ev.end(), [](const auto& a, const auto& b) { return a.time < b.time; }),
                       "events out of time order");
    if (!ev.empty()) RENTSIM_FUZZ_CHECK(ev.front().time >= rentsim::units::Seconds{} && ev.back().time <= t.span,
                                        "an event outside the span");
    RENTSIM_FUZZ_CHECK(t.removals() >= 0, "negative removal count");
}

void check(const rentsim::price::SpotPriceHistory& h) {
    RENTSIM_FUZZ_CHECK(!h.zones.empty(), "a history without a zone");
    RENTSIM_FUZZ_CHECK(h.span_s >= 0, "a negative span");
    for (const auto& z : h.zones) {
        RENTSIM_FUZZ_CHECK(!z.steps.empty() && z.steps.front().time_s == 0, "a zone that does not start at time 0");
        double lo = z.steps.front().usd_per_hour, hi = lo;
        for (std::size_t i = 0; i < z.steps.size(); ++i) {
            RENTSIM_FUZZ_CHECK(z.steps[i].usd_per_hour > 0, "a price <= 0");
            if (i > 0) {
                RENTSIM_FUZZ_CHECK(z.steps[i].time_s > z.steps[i - 1].time_s, "steps out of time order");
                RENTSIM_FUZZ_CHECK(z.steps[i].usd_per_hour != z.steps[i - 1].usd_per_hour, "an unmerged repeat");
            }
            RENTSIM_FUZZ_CHECK(z.price_at(z.steps[i].time_s) == z.steps[i].usd_per_hour, "price_at misses a step");
            lo = std::min(lo, z.steps[i].usd_per_hour);
            hi = std::max(hi, z.steps[i].usd_per_hour);
        }
        const double mean = z.mean(h.span_s);
        RENTSIM_FUZZ_CHECK(mean >= lo * (1 - 1e-12) && mean <= hi * (1 + 1e-12), "a mean outside the prices");
        if (h.span_s > 0) {
            const double integral = z.weighted_seconds(0, h.span_s, 1.0);
            RENTSIM_FUZZ_CHECK(std::abs(integral - mean * h.span_s) <= 1e-9 * std::max(1.0, integral),
                               "the integral is not the mean times the span");
        }
    }
    (void)h.cheapest();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = rentsim::fuzz::text(data, size);
    try {
        check(rentsim::price::parse_bamboo_trace(std::string_view(text), "fuzz"));
    } catch (const std::invalid_argument&) {
    }
    try {
        check(rentsim::price::parse_count_trace(std::string_view(text), "fuzz"));
    } catch (const std::invalid_argument&) {
    }
    try {
        check(rentsim::price::parse_spot_price_history(std::string_view(text), "fuzz"));
    } catch (const rentsim::price::SpotPriceError&) {
    }
    return 0;
}
