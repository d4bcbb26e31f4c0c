#include <doctest/doctest.h>

#include <cmath>

#include "models/pricing/billing.hpp"

using namespace rentsim;

TEST_CASE("per-second billing rounds up to the next second and honours the 60 s minimum") {
    const price::OnDemand p{units::usd_per_hour(3.6), units::seconds(1), units::seconds(60)};
    CHECK(p.billed(units::seconds(10)).value == 60.0);
    CHECK(p.billed(units::seconds(60)).value == 60.0);
    CHECK(p.billed(units::seconds(60.2)).value == 61.0);
    CHECK(p.billed(units::seconds(3600)).value == 3600.0);
}

TEST_CASE("hourly billing charges a started hour in full") {
    const price::OnDemand p{units::usd_per_hour(2.0), units::seconds(3600), units::seconds(0)};
    CHECK(p.billed(units::seconds(1)).value == 3600.0);
    CHECK(p.billed(units::seconds(3600.5)).value == 7200.0);
    // A nanosecond of float noise past an exact hour is not a new hour.
    CHECK(p.billed(units::seconds(3600.0 + 1e-10)).value == 3600.0);
}

TEST_CASE("cost equals billed time times the price times the GPUs") {
    const price::OnDemand p{units::usd_per_hour(4.10), units::seconds(1), units::seconds(60)};
    const auto used = units::seconds(5000.3);
    CHECK(p.cost(used, 16).value == doctest::Approx(5001.0 / 3600.0 * 4.10 * 16));
}

TEST_CASE("instances are billed whole: 12 GPUs on 8-GPU instances bill 16") {
    const price::OnDemand p{units::usd_per_hour(4.0), units::seconds(1), units::seconds(60), 8};
    CHECK(p.instances(12) == 2);
    CHECK(p.billed_gpus(12) == 16);
    CHECK(p.billed_gpus(16) == 16);
    CHECK(p.billed_gpus(1) == 8);
    // One hour of 12 GPUs: 16 GPU-hours at 4 USD.
    CHECK(p.cost(units::seconds(3600), 12).value == doctest::Approx(64.0));
    CHECK(p.per_instance().value * 3600.0 == doctest::Approx(32.0));
}

TEST_CASE("minute billing rounds to the minute and bills the minimum for short leases") {
    const price::OnDemand p{units::usd_per_hour(6.0), units::seconds(60), units::seconds(600)};
    CHECK(p.billed(units::seconds(30)).value == 600.0);
    CHECK(p.billed(units::seconds(601)).value == 660.0);
    CHECK(p.billed(units::seconds(720)).value == 720.0);
    CHECK(p.cost(units::seconds(601), 2).value == doctest::Approx(660.0 / 3600.0 * 6.0 * 2));
}

TEST_CASE("storage is billed per GB-month of 730 hours and egress per GB") {
    const price::Storage s{0.023};
    CHECK(s.cost(units::bytes(100e9), units::hours(730)).value == doctest::Approx(2.3));
    CHECK(s.cost(units::bytes(100e9), units::hours(365)).value == doctest::Approx(1.15));
    const price::Egress e{0.09};
    CHECK(e.cost(units::bytes(10e9)).value == doctest::Approx(0.9));
}

TEST_CASE("ownership spreads the purchase over its years and adds power while running") {
    // 87 600 USD over 5 years is 2 USD per hour; 5 kW x PUE 1.5 x 0.10 USD/kWh = 0.75 USD/h.
    const price::Ownership o{87600.0, 5.0, 5.0, 1.5, 0.10, 0.0};
    CHECK(o.fixed_rate().value * 3600 == doctest::Approx(2.0));
    CHECK(o.running_rate().value * 3600 == doctest::Approx(0.75));
    CHECK(o.cost(units::hours(10), units::hours(4)).value == doctest::Approx(23.0));
}

TEST_CASE("a commitment breaks even at its monthly cost over the on-demand rate") {
    // 730 h x 17.4 USD/h reserved, 27.45 USD/h on demand: 462.7 h/month.
    const double h = price::breakeven_hours_per_month(units::usd_per_hour(27.45), units::usd(730 * 17.4));
    CHECK(h == doctest::Approx(730 * 17.4 / 27.45));
    // Owning: fixed 1000 USD/month, 1 USD/h of power against 3 USD/h on demand: 500 h.
    CHECK(price::breakeven_hours_per_month(units::usd_per_hour(3), units::usd(1000), units::usd_per_hour(1)) ==
          doctest::Approx(500));
    CHECK(std::isinf(price::breakeven_hours_per_month(units::usd_per_hour(1), units::usd(10), units::usd_per_hour(2))));
}
