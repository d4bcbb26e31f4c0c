// Billing: what a provider charges for holding instances, storing bytes and moving them out,
// and what owning the same hardware costs. Pure values; times in seconds, money in USD.
#pragma once

#include "models/units.hpp"

namespace rentsim::price {

// Hours in a billing month, as providers convert monthly commitments (GCP committed-use
// `month_1y / 730 h` in models/pricing/data/catalog.csv; AWS uses 730 h as well).
inline constexpr double hours_per_month = 730.0;
inline constexpr double hours_per_year = 8760.0;

// Pay-as-you-go billing of instances: a price per GPU-hour, a billing increment and a
// minimum billed time per lease, as cloud providers bill instances (AWS: per second with a
// 60 s minimum). Instances are billed whole: 12 GPUs on 8-GPU instances bill 16 GPUs.
struct OnDemand {
    units::UsdPerSecond per_gpu;   // price of one GPU for one second
    units::Seconds increment{1.0}; // billing granularity, > 0
    units::Seconds minimum{60.0};  // shortest billed duration of one lease, >= 0
    int gpus_per_instance = 1;     // GPUs rented together as one instance, >= 1

    // Billed duration for `used` seconds of one instance lease: rounded up to the increment,
    // at least the minimum. A duration within 1 ns of an increment boundary is not rounded up.
    units::Seconds billed(units::Seconds used) const;
    // Instances needed for `gpus` GPUs (rounded up).
    int instances(int gpus) const;
    // GPUs billed for `gpus` GPUs: whole instances.
    int billed_gpus(int gpus) const { return instances(gpus) * gpus_per_instance; }
    // Price of one whole instance for one second.
    units::UsdPerSecond per_instance() const { return per_gpu * static_cast<double>(gpus_per_instance); }
    // Cost of `gpus` GPUs (on whole instances) held for `used` seconds as one lease each.
    units::Usd cost(units::Seconds used, int gpus) const;
};

// Object storage for datasets and checkpoints, billed per GB-month (1 GB = 10^9 bytes).
struct Storage {
    double usd_per_gb_month = 0;
    units::Usd cost(units::Bytes stored, units::Seconds held) const;
};

// Data transfer out of the provider, per GB (10^9 bytes).
struct Egress {
    double usd_per_gb = 0;
    units::Usd cost(units::Bytes moved) const { return units::usd(moved.value / 1e9 * usd_per_gb); }
};

// Owning the hardware of one instance: purchase price spread linearly over the depreciation
// period, electricity (power x PUE x price, only while running) and operations per year.
struct Ownership {
    double purchase_usd = 0;         // per instance (server with its GPUs)
    double depreciation_years = 4;   // > 0
    double power_kw = 0;             // per instance at training load
    double pue = 1.0;                // data-centre power usage effectiveness, >= 1
    double usd_per_kwh = 0;
    double operations_usd_per_year = 0;  // per instance: staff, space, support contracts

    // Fixed cost per hour of calendar time (depreciation + operations).
    units::UsdPerSecond fixed_rate() const;
    // Variable cost per hour of running (electricity).
    units::UsdPerSecond running_rate() const;
    // Cost of one instance over `calendar` seconds of ownership of which `running` are busy.
    units::Usd cost(units::Seconds calendar, units::Seconds running) const;
};

// Hours of use per month above which a fixed monthly cost beats paying `on_demand` per hour
// of use: fixed / (on_demand - variable). Infinity when on-demand is never dearer.
double breakeven_hours_per_month(units::UsdPerSecond on_demand, units::Usd fixed_per_month,
                                 units::UsdPerSecond variable = units::UsdPerSecond{0});

}  // namespace rentsim::price
