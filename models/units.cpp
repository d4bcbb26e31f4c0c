// Compile-time checks of the unit algebra: a wrong dimension fails the build here.
#include "models/units.hpp"

#include <type_traits>

namespace rentsim::units {
static_assert(std::is_same_v<decltype(Bytes{} / BytesPerSecond{}), Seconds>);
static_assert(std::is_same_v<decltype(Flops{} / FlopsPerSecond{}), Seconds>);
static_assert(std::is_same_v<decltype(UsdPerSecond{} * Seconds{}), Usd>);
static_assert(std::is_same_v<decltype(Bytes{} / Seconds{}), BytesPerSecond>);
static_assert(std::is_same_v<decltype(Bytes{} / Bytes{}), double>);
static_assert((gbits_per_s(8.0) / gbytes_per_s(1.0)) == 1.0);
}  // namespace rentsim::units
