// On-demand billing: a price per GPU-hour, a billing increment and a minimum billed time,
// as cloud providers bill instances (AWS: per second with a 60 s minimum).
#pragma once

#include "models/units.hpp"

namespace rentsim::price {

struct OnDemand {
    units::UsdPerSecond per_gpu;   // price of one GPU for one second
    units::Seconds increment{1.0}; // billing granularity, > 0
    units::Seconds minimum{60.0};  // shortest billed duration, >= 0

    // Billed duration for `used` seconds of one instance: rounded up to the increment, at
    // least the minimum. A duration within 1 ns of an increment boundary is not rounded up.
    units::Seconds billed(units::Seconds used) const;
    // Cost of `gpus` GPUs held for `used` seconds.
    units::Usd cost(units::Seconds used, int gpus) const;
};

}  // namespace rentsim::price
