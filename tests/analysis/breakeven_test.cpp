// Break-even hours against on-demand, on a small catalog with round prices (hand-computed
// figures in the comments) and on the shipped one.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "analysis/scenario/input_error.hpp"
#include "analysis/studies/breakeven.hpp"

using namespace rentsim;

namespace {

const std::string header =
    "provider,instance,gpu,gpu_label,gpus_per_instance,vcpus,ram_gb,network_gbps,plan,price_per_hour,currency,"
    "usd_per_unit,region,as_of,source,notes,flag\n";

std::vector<price::CatalogRow> small_catalog() {
    return price::parse_catalog(header +
                                "x,box,,G-80GB,8,,,,on-demand,10,USD,1,r1,2026,src,,\n"
                                "x,box,,G-80GB,8,,,,spot,3,USD,1,r1,2026,src,,\n"
                                "x,box,,G-80GB,8,,,,reserved_1y,6,USD,1,r1,2026,src,,\n"
                                "x,box,,G-80GB,8,,,,reserved_3y,12,USD,1,r1,2026,src,,\n"
                                "x,box,,G-80GB,8,,,,committed_1y,5,USD,1,r1,2026,src,,stale quote\n");
}

analysis::BreakevenQuery box() {
    analysis::BreakevenQuery q;
    q.provider = "x";
    q.instance = "box";
    return q;
}

}  // namespace

TEST_CASE("break-even hours of a reservation: fixed monthly cost over the on-demand rate") {
    const auto cat = small_catalog();
    const auto b = analysis::breakeven(box(), cat);
    CHECK(b.on_demand.plan == "on-demand");
    CHECK(b.on_demand.usd_per_instance_hour() == 10.0);
    // Spot is no commitment; the flagged row is kept as skipped.
    REQUIRE(b.rows.size() == 3);
    // reserved_1y: $6/h x 730 h = $4380 a month; at $10/h on demand that buys 438 h.
    CHECK(b.rows[0].plan == "reserved_1y");
    CHECK(b.rows[0].skipped.empty());
    CHECK(b.rows[0].usd_per_hour == doctest::Approx(6.0));
    CHECK(b.rows[0].fixed_usd_per_month == doctest::Approx(4380.0));
    CHECK(b.rows[0].breakeven_hours == doctest::Approx(438.0));
    // reserved_3y: $12/h x 730 = $8760 a month, 876 h of on-demand: more than a month holds.
    CHECK(b.rows[1].breakeven_hours == doctest::Approx(876.0));
    CHECK(b.rows[2].plan == "committed_1y");
    CHECK(b.rows[2].skipped == "stale quote");
}

TEST_CASE("owning: depreciation and operations are fixed, electricity is paid per hour of use") {
    const auto cat = small_catalog();
    auto q = box();
    q.plan = "reserved_1y";
    // $87,600 over 4 years = $2.50/h, plus $8,760 a year of operations = $1/h: $3.50/h, $2,555 a
    // month. Electricity: 5 kW x PUE 1.2 x $0.10/kWh = $0.60 per hour of use, so each hour of use
    // saves $9.40 against on-demand: 2555 / 9.4 = 271.8 h.
    q.ownership = price::Ownership{87600, 4, 5, 1.2, 0.1, 8760};
    const auto b = analysis::breakeven(q, cat);
    REQUIRE(b.rows.size() == 2);
    CHECK(b.rows[0].plan == "reserved_1y");
    const auto& own = b.rows[1];
    CHECK(own.plan == "self-owned");
    CHECK(own.owned);
    CHECK(own.usd_per_hour == doctest::Approx(3.5));
    CHECK(own.fixed_usd_per_month == doctest::Approx(2555.0));
    CHECK(own.breakeven_hours == doctest::Approx(2555.0 / 9.4));
    CHECK(analysis::format_breakeven(b) ==
          "x box (8 x G-80GB), r1: on-demand $10.0000/h per instance (src)\n"
          "plan                                                  $/h  $/month fixed      breakeven h/month\n"
          "reserved_1y                                        6.0000           4380              438 (60%)\n"
          "self-owned                                     3.5000+pwr           2555              272 (37%)\n");

    // Electricity dearer than on-demand: owning never pays.
    q.ownership->usd_per_kwh = 10.0;
    CHECK(std::isinf(analysis::breakeven(q, cat).rows[1].breakeven_hours));
}

TEST_CASE("the text marks break-evens past a month and skipped rows") {
    const auto cat = small_catalog();
    const std::string text = analysis::format_breakeven(analysis::breakeven(box(), cat));
    CHECK(text.find("reserved_3y                                       12.0000           8760     876 (> 730: never)\n") !=
          std::string::npos);
    CHECK(text.find("committed_1y                                 skipped: stale quote\n") != std::string::npos);
    auto q = box();
    q.allow_flagged = true;
    const auto b = analysis::breakeven(q, cat);
    CHECK(b.rows[2].skipped.empty());
    CHECK(b.rows[2].breakeven_hours == doctest::Approx(365.0));  // $5 x 730 / $10
}

TEST_CASE("unknown names and missing prices name the option at fault") {
    const auto cat = small_catalog();
    auto q = box();
    q.provider = "y";
    CHECK_THROWS_WITH_AS(analysis::breakeven(q, cat), "--provider: unknown provider 'y'; did you mean 'x'? valid: x",
                         analysis::InputError);
    q = box();
    q.instance = "bx";
    CHECK_THROWS_WITH_AS(analysis::breakeven(q, cat), "--instance: unknown x instance 'bx'; did you mean 'box'? valid: box",
                         analysis::InputError);
    q = box();
    q.plan = "reserved_2y";
    CHECK_THROWS_WITH_AS(analysis::breakeven(q, cat), doctest::Contains("--plan: unknown box plan 'reserved_2y'"),
                         analysis::InputError);
    q = box();
    q.region = "r2";
    CHECK_THROWS_WITH_AS(analysis::breakeven(q, cat), "--instance: no on-demand price for x box in r2",
                         analysis::InputError);
}

TEST_CASE("the shipped catalog: a 1-year AWS reservation of p4de.24xlarge pays above 463 hours a month") {
    auto q = analysis::BreakevenQuery{};
    q.provider = "aws";
    q.instance = "p4de.24xlarge";
    const auto b = analysis::breakeven(q);
    REQUIRE(b.rows.size() == 1);
    CHECK(b.rows[0].plan == "reserved_1y_standard_no_upfront");
    // $17.401365/h x 730 h = $12,703.00 a month, over $27.44705/h on demand = 462.8 h.
    CHECK(b.rows[0].breakeven_hours == doctest::Approx(17.401365 * 730 / 27.44705));
    CHECK(b.rows[0].breakeven_hours == doctest::Approx(462.82).epsilon(1e-4));
}

TEST_CASE("the figures of owning must be finite and within their ranges, and errors name the option") {
    const auto cat = small_catalog();
    const price::Ownership good{87600, 4, 5, 1.2, 0.1, 8760};
    auto q = box();
    q.ownership = good;
    CHECK_NOTHROW(analysis::breakeven(q, cat));
    const double nan = std::nan("");
    const double inf = HUGE_VAL;
    struct Case {
        double price::Ownership::*field;
        double value;
        const char* message;
    };
    const Case cases[] = {
        {&price::Ownership::purchase_usd, 0, "--purchase-usd: expected a price in USD above 0, got 0"},
        {&price::Ownership::purchase_usd, -5, "--purchase-usd: expected a price in USD above 0, got -5"},
        {&price::Ownership::purchase_usd, inf, "--purchase-usd: expected a price in USD above 0, got inf"},
        {&price::Ownership::depreciation_years, -4,
         "--depreciation-years: expected a number of years above 0 and at most 30, got -4"},
        {&price::Ownership::depreciation_years, 0,
         "--depreciation-years: expected a number of years above 0 and at most 30, got 0"},
        {&price::Ownership::depreciation_years, 31,
         "--depreciation-years: expected a number of years above 0 and at most 30, got 31"},
        {&price::Ownership::power_kw, nan, "--power-kw: expected a power in kW from 0 to 1000, got nan"},
        {&price::Ownership::power_kw, -1, "--power-kw: expected a power in kW from 0 to 1000, got -1"},
        {&price::Ownership::power_kw, 1001, "--power-kw: expected a power in kW from 0 to 1000, got 1001"},
        {&price::Ownership::pue, 0.9, "--pue: expected a PUE from 1 to 3, got 0.9"},
        {&price::Ownership::pue, 3.5, "--pue: expected a PUE from 1 to 3, got 3.5"},
        {&price::Ownership::usd_per_kwh, -0.1, "--usd-per-kwh: expected a price in USD per kWh from 0 to 10, got -0.1"},
        {&price::Ownership::usd_per_kwh, 11, "--usd-per-kwh: expected a price in USD per kWh from 0 to 10, got 11"},
        {&price::Ownership::operations_usd_per_year, -1,
         "--ops-usd-per-year: expected a cost in USD per year of 0 or more, got -1"},
        {&price::Ownership::operations_usd_per_year, nan,
         "--ops-usd-per-year: expected a cost in USD per year of 0 or more, got nan"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.message);
        price::Ownership o = good;
        o.*c.field = c.value;
        q.ownership = o;
        CHECK_THROWS_WITH_AS(analysis::breakeven(q, cat), c.message, analysis::InputError);
        CHECK_THROWS_WITH_AS(analysis::check_ownership(o), c.message, analysis::InputError);
    }
    // The ends of each range are accepted.
    price::Ownership edge{1, 30, 1000, 3, 10, 0};
    CHECK_NOTHROW(analysis::check_ownership(edge));
    edge = price::Ownership{1, 0.5, 0, 1, 0, 0};
    CHECK_NOTHROW(analysis::check_ownership(edge));
}

TEST_CASE("owning without electricity or operations says so in one line") {
    const auto cat = small_catalog();
    auto q = box();
    q.plan = "reserved_1y";
    q.ownership = price::Ownership{87600, 4, 5, 1.2, 0.1, 8760};
    CHECK(analysis::breakeven(q, cat).note.empty());
    CHECK(analysis::format_breakeven(analysis::breakeven(q, cat)).find("note:") == std::string::npos);

    q.ownership = price::Ownership{87600, 4, 0, 1.0, 0, 8760};
    auto b = analysis::breakeven(q, cat);
    CHECK(b.note == "note: self-owned counts no electricity (--power-kw, --usd-per-kwh)");
    // $87,600 over 4 years = $2.50/h, plus $1/h of operations; no electricity: 2555 / 10 h.
    CHECK(b.rows[1].breakeven_hours == doctest::Approx(255.5));
    const std::string text = analysis::format_breakeven(b);
    CHECK(text.substr(text.size() - b.note.size() - 1) == b.note + "\n");

    q.ownership = price::Ownership{87600, 4, 5, 1.2, 0.1, 0};
    CHECK(analysis::breakeven(q, cat).note == "note: self-owned counts no operations (--ops-usd-per-year)");
    q.ownership = price::Ownership{87600, 4, 5, 1.2, 0, 0};
    CHECK(analysis::breakeven(q, cat).note ==
          "note: self-owned counts no electricity (--power-kw, --usd-per-kwh) and no operations (--ops-usd-per-year)");
    // Without owning there is nothing to note.
    q.ownership.reset();
    CHECK(analysis::breakeven(q, cat).note.empty());
}
