// Fuzz target: nccl-tests style sizes (analysis::parse_size_range, analysis::sizes_in).
// Expected: std::invalid_argument from the parser. Checks the documented results: a parsed range
// lies within [kMinSizeBytes, kMaxSizeBytes] with FACTOR above 1; its sizes (at most kMaxSizes)
// start at MIN, stay within MAX, rise, and are whole bytes. A range of more than max_sizes sizes
// by MIN x FACTOR^i <= MAX (fewer than sizes_in gives, which rounds down) fails before it is
// enumerated.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "analysis/studies/collective.hpp"
#include "fuzz_target.hpp"

namespace {
constexpr double max_sizes = 10000;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rentsim::analysis;
    const std::string text = rentsim::fuzz::text(data, size);
    SizeRange r;
    try {
        r = parse_size_range(std::string_view(text));
    } catch (const std::invalid_argument&) {
        return 0;
    }
    const double lo = r.min.value, hi = r.max.value;
    RENTSIM_FUZZ_CHECK(lo >= kMinSizeBytes && lo <= hi && hi <= kMaxSizeBytes, "a range beyond the size limits was accepted");
    RENTSIM_FUZZ_CHECK(std::isfinite(r.factor) && r.factor > 1, "a factor that is not finite and above 1 was accepted");
    // Each size is at least a byte more than the one before: a factor near 1 still gives at
    // most MAX - MIN + 1 sizes.
    RENTSIM_FUZZ_CHECK(std::min(std::log(hi / lo) / std::log(r.factor) + 1, hi - lo + 1) <= max_sizes,
                       "a range of too many sizes was accepted");
    const auto sizes = sizes_in(r);
    RENTSIM_FUZZ_CHECK(sizes.size() <= kMaxSizes, "more than kMaxSizes sizes");
    RENTSIM_FUZZ_CHECK(!sizes.empty() && sizes.front().value == lo, "the sizes do not start at MIN");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double b = sizes[i].value;
        RENTSIM_FUZZ_CHECK(b <= hi && b == std::floor(b), "a size above MAX or not whole bytes");
        if (i > 0) RENTSIM_FUZZ_CHECK(b > sizes[i - 1].value, "the sizes do not rise");
    }
    return 0;
}
