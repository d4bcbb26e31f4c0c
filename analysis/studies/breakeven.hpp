// Break-even of committing against paying on demand, for one instance of the price catalog:
// the hours of use per month (of 730) above which each reserved or committed plan, billed
// every hour of the month, or owning the hardware costs less than on-demand. Money in USD,
// rates per instance-hour.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/pricing/billing.hpp"
#include "models/pricing/catalog.hpp"

namespace rentsim::analysis {

struct BreakevenQuery {
    std::string provider, instance;
    std::string plan;             // one committed plan; empty: every one of the instance
    std::string region;           // empty: the region of the first trusted on-demand row
    bool allow_flagged = false;   // use catalog rows flagged as doubtful
    std::optional<price::Ownership> ownership;  // adds a "self-owned" row
};

struct BreakevenRow {
    std::string plan;                 // catalog plan, or "self-owned"
    std::string skipped;              // the flag of a doubtful row left out (then no figures)
    bool owned = false;               // self-owned: electricity comes on top of usd_per_hour
    double usd_per_hour = 0;          // fixed rate per hour of calendar time
    double fixed_usd_per_month = 0;   // usd_per_hour x 730
    double breakeven_hours = 0;       // per month; infinity when on-demand is never dearer
};

struct Breakeven {
    price::CatalogRow on_demand;      // the row every plan is compared with
    std::vector<BreakevenRow> rows;   // catalog order, then self-owned
    std::string note;                 // what the self-owned row leaves out (electricity,
                                      // operations); empty when it counts both or is absent
};

// Accepted figures of owning, each finite: purchase_usd > 0, 0 < depreciation_years <= 30,
// 0 <= power_kw <= 1000, 1 <= pue <= 3, 0 <= usd_per_kwh <= 10, operations_usd_per_year >= 0.
// Throws InputError naming the option of the figure at fault (--purchase-usd, ...).
void check_ownership(const price::Ownership& ownership);

// Spot and preemptible plans are not commitments and get no row. Throws InputError naming
// the `rentsim breakeven` option at fault (--provider, --instance, --plan) for an unknown
// name, a missing on-demand price, or a flagged one without allow_flagged, and as
// check_ownership for the figures of owning.
Breakeven breakeven(const BreakevenQuery& query,
                    std::span<const price::CatalogRow> catalog = price::shipped_catalog());
// The on-demand line, then one line per row: plan, $/h, $/month fixed, break-even h/month;
// then the note, when there is one.
std::string format_breakeven(const Breakeven& b);

}  // namespace rentsim::analysis
