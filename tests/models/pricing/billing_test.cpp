#include <doctest/doctest.h>

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
