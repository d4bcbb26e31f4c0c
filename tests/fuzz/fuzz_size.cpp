// Fuzz target: nccl-tests style sizes (analysis::parse_size_range, analysis::sizes_in).
// Expected: std::invalid_argument from the parser. A parsed range must be finite whole bytes;
// ranges of more than max_sizes sizes (by MIN x FACTOR^i <= MAX) are not enumerated. Checks
// that the sizes start at MIN, stay within MAX, rise, and are whole bytes.
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
    RENTSIM_FUZZ_CHECK(std::isfinite(lo) && std::isfinite(hi), "a size of infinitely many bytes was accepted");
    RENTSIM_FUZZ_CHECK(lo >= 0 && lo <= hi && r.factor > 1, "an invalid range was accepted");
    if (lo > 0 && std::log(hi / lo) / std::log(r.factor) + 1 > max_sizes) return 0;
    const auto sizes = sizes_in(r);
    RENTSIM_FUZZ_CHECK(!sizes.empty() && sizes.front().value == lo, "the sizes do not start at MIN");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double b = sizes[i].value;
        RENTSIM_FUZZ_CHECK(b <= hi && b == std::floor(b), "a size above MAX or not whole bytes");
        if (i > 0) RENTSIM_FUZZ_CHECK(b > sizes[i - 1].value, "the sizes do not rise");
    }
    return 0;
}
