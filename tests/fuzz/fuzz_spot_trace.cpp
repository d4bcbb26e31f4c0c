// Fuzz target: both spot trace parsers (price::parse_bamboo_trace, price::parse_count_trace) on
// the same input. Expected: std::invalid_argument. Checks the documented results: events in
// time order, within the span (a count log's span runs to its last reading, which may change
// nothing).
#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "fuzz_target.hpp"
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
    return 0;
}
