#include "models/pricing/billing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rentsim::price {

units::Seconds OnDemand::billed(units::Seconds used) const {
    // Simulated time is integer nanoseconds; forgive the last nanosecond of float noise so
    // that exactly one hour bills one hour, not one hour and one increment.
    const double slack = 1e-9;
    const double n = std::ceil(std::max(0.0, used.value - slack) / increment.value);
    return units::max(units::Seconds{n * increment.value}, minimum);
}

int OnDemand::instances(int gpus) const {
    const int per = std::max(1, gpus_per_instance);
    return (std::max(0, gpus) + per - 1) / per;
}

units::Usd OnDemand::cost(units::Seconds used, int gpus) const {
    return per_gpu * billed(used) * static_cast<double>(billed_gpus(gpus));
}

units::Usd Storage::cost(units::Bytes stored, units::Seconds held) const {
    const double months = held.value / 3600.0 / hours_per_month;
    return units::usd(stored.value / 1e9 * usd_per_gb_month * months);
}

units::UsdPerSecond Ownership::fixed_rate() const {
    const double per_hour = purchase_usd / (depreciation_years * hours_per_year) + operations_usd_per_year / hours_per_year;
    return units::usd_per_hour(per_hour);
}

units::UsdPerSecond Ownership::running_rate() const { return units::usd_per_hour(power_kw * pue * usd_per_kwh); }

units::Usd Ownership::cost(units::Seconds calendar, units::Seconds running) const {
    return fixed_rate() * calendar + running_rate() * running;
}

double breakeven_hours_per_month(units::UsdPerSecond on_demand, units::Usd fixed_per_month,
                                 units::UsdPerSecond variable) {
    const double margin_per_hour = (on_demand - variable).value * 3600.0;
    if (margin_per_hour <= 0) return std::numeric_limits<double>::infinity();
    return fixed_per_month.value / margin_per_hour;
}

}  // namespace rentsim::price
