#include "analysis/studies/breakeven.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "analysis/scenario/input_error.hpp"
#include "models/names.hpp"

namespace rentsim::analysis {

namespace {

void check_name(const std::string& option, const std::string& what, const std::string& name,
                const std::vector<std::string>& valid) {
    if (std::find(valid.begin(), valid.end(), name) != valid.end()) return;
    const std::vector<std::string_view> views(valid.begin(), valid.end());
    throw InputError(option, "", unknown_name_message(what, name, views));
}

bool is_commitment(std::string_view plan) { return price::plan_kind(plan) == price::PlanKind::committed; }

// A finite `value` in [low, high] (or (low, high] when `low_open`); else InputError naming `option`.
void check_range(const char* option, double value, double low, bool low_open, double high, std::string_view what) {
    const bool ok = std::isfinite(value) && (low_open ? value > low : value >= low) && value <= high;
    if (ok) return;
    const std::string range = std::isinf(high) ? (low_open ? fmt::format("above {:g}", low) : fmt::format("of {:g} or more", low))
                              : low_open         ? fmt::format("above {:g} and at most {:g}", low, high)
                                                 : fmt::format("from {:g} to {:g}", low, high);
    throw InputError(option, "", fmt::format("expected {} {}, got {}", what, range, value));
}

// One line on what the self-owned row leaves out, or nothing.
std::string ownership_note(const price::Ownership& o) {
    std::vector<std::string> missing;
    if (o.power_kw == 0 || o.usd_per_kwh == 0) missing.push_back("no electricity (--power-kw, --usd-per-kwh)");
    if (o.operations_usd_per_year == 0) missing.push_back("no operations (--ops-usd-per-year)");
    if (missing.empty()) return "";
    std::string note = "note: self-owned counts " + missing.front();
    if (missing.size() > 1) note += " and " + missing.back();
    return note;
}

}  // namespace

void check_ownership(const price::Ownership& o) {
    constexpr double kNoLimit = std::numeric_limits<double>::infinity();
    check_range("--purchase-usd", o.purchase_usd, 0, true, kNoLimit, "a price in USD");
    check_range("--depreciation-years", o.depreciation_years, 0, true, 30, "a number of years");
    check_range("--power-kw", o.power_kw, 0, false, 1000, "a power in kW");
    check_range("--pue", o.pue, 1, false, 3, "a PUE");
    check_range("--usd-per-kwh", o.usd_per_kwh, 0, false, 10, "a price in USD per kWh");
    check_range("--ops-usd-per-year", o.operations_usd_per_year, 0, false, kNoLimit, "a cost in USD per year");
}

Breakeven breakeven(const BreakevenQuery& q, std::span<const price::CatalogRow> catalog) {
    if (q.ownership) check_ownership(*q.ownership);
    check_name("--provider", "provider", q.provider, price::catalog_providers(catalog));
    check_name("--instance", q.provider + " instance", q.instance, price::catalog_instances(catalog, q.provider));
    const auto plans = price::catalog_plans(catalog, q.provider, q.instance);
    if (!q.plan.empty()) check_name("--plan", q.instance + " plan", q.plan, plans);
    const auto* od = price::find_price(catalog, q.provider, q.instance, "on-demand", q.region);
    if (!od)
        throw InputError("--instance", "", "no on-demand price for " + q.provider + " " + q.instance +
                                               (q.region.empty() ? "" : " in " + q.region));
    if (!od->flag.empty() && !q.allow_flagged)
        throw InputError("--instance", "",
                         "the on-demand price is flagged: " + od->flag + "; pass --allow-flagged to use it");

    Breakeven b{*od, {}, {}};
    const auto on_demand = units::usd_per_hour(od->usd_per_instance_hour());
    for (const auto& plan : plans) {
        if (!is_commitment(plan) || (!q.plan.empty() && plan != q.plan)) continue;
        const auto* r = price::find_price(catalog, q.provider, q.instance, plan, od->region);
        if (!r) continue;
        BreakevenRow row;
        row.plan = plan;
        if (!r->flag.empty() && !q.allow_flagged) {
            row.skipped = r->flag;
        } else {
            row.usd_per_hour = r->usd_per_instance_hour();
            row.fixed_usd_per_month = row.usd_per_hour * price::hours_per_month;
            row.breakeven_hours = price::breakeven_hours_per_month(on_demand, units::usd(row.fixed_usd_per_month));
        }
        b.rows.push_back(std::move(row));
    }
    if (q.ownership) {
        BreakevenRow row;
        row.plan = "self-owned";
        row.owned = true;
        row.usd_per_hour = q.ownership->fixed_rate().value * 3600.0;
        row.fixed_usd_per_month = row.usd_per_hour * price::hours_per_month;
        row.breakeven_hours = price::breakeven_hours_per_month(on_demand, units::usd(row.fixed_usd_per_month),
                                                               q.ownership->running_rate());
        b.rows.push_back(std::move(row));
        b.note = ownership_note(*q.ownership);
    }
    return b;
}

std::string format_breakeven(const Breakeven& b) {
    const auto& od = b.on_demand;
    std::string out = fmt::format("{} {} ({} x {}), {}: on-demand ${:.4f}/h per instance ({})\n", od.provider,
                                  od.instance, od.gpus_per_instance, od.gpu_label, od.region,
                                  od.usd_per_instance_hour(), od.source);
    out += fmt::format("{:<44} {:>12} {:>14} {:>22}\n", "plan", "$/h", "$/month fixed", "breakeven h/month");
    for (const auto& r : b.rows) {
        if (!r.skipped.empty()) {
            out += fmt::format("{:<44} skipped: {}\n", r.plan, r.skipped);
            continue;
        }
        const double h = r.breakeven_hours;
        const std::string hours = std::isinf(h)                    ? std::string("never")
                                  : h > price::hours_per_month ? fmt::format("{:.0f} (> 730: never)", h)
                                                               : fmt::format("{:.0f} ({:.0f}%)", h, 100 * h / price::hours_per_month);
        const std::string rate = fmt::format("{:.4f}", r.usd_per_hour) + (r.owned ? "+pwr" : "");
        out += fmt::format("{:<44} {:>12} {:>14.0f} {:>22}\n", r.plan, rate, r.fixed_usd_per_month, hours);
    }
    if (!b.note.empty()) out += b.note + "\n";
    return out;
}

}  // namespace rentsim::analysis
