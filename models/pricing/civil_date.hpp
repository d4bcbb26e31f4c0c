// Calendar arithmetic shared by the spot readers (availability traces and price histories).
#pragma once

#include <cstdint>

namespace rentsim::price {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
inline std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace rentsim::price
