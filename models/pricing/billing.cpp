#include "models/pricing/billing.hpp"

#include <algorithm>
#include <cmath>

namespace rentsim::price {

units::Seconds OnDemand::billed(units::Seconds used) const {
    // Simulated time is integer nanoseconds; forgive the last nanosecond of float noise so
    // that exactly one hour bills one hour, not one hour and one increment.
    const double slack = 1e-9;
    const double n = std::ceil(std::max(0.0, used.value - slack) / increment.value);
    return units::max(units::Seconds{n * increment.value}, minimum);
}

units::Usd OnDemand::cost(units::Seconds used, int gpus) const {
    return per_gpu * billed(used) * static_cast<double>(gpus);
}

}  // namespace rentsim::price
