// Fuzz target: the price catalog parser (price::parse_catalog). Expected: std::invalid_argument.
// Checks the documented rule that a price of exactly 700.0 is flagged.
#include <stdexcept>
#include <string_view>

#include "fuzz_target.hpp"
#include "models/pricing/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = rentsim::fuzz::text(data, size);
    try {
        for (const auto& row : rentsim::price::parse_catalog(std::string_view(text)))
            RENTSIM_FUZZ_CHECK(row.price_per_hour != 700.0 || !row.flag.empty(), "a 700.0 price is not flagged");
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
