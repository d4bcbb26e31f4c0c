#include "sim/resource.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "sim/engine.hpp"

using namespace rentsim::sim;

TEST_CASE("a free unit is granted at once and queued requests are granted in order") {
    Engine e;
    FifoResource r(e, 2);
    std::vector<int> granted;
    for (int i = 0; i < 5; ++i) r.request([&granted, i] { granted.push_back(i); });
    CHECK(granted == std::vector<int>{0, 1});
    CHECK(r.in_use() == 2);
    CHECK(r.queue_length() == 3);
    CHECK(r.max_queue() == 3);
    r.release();
    CHECK(granted == std::vector<int>{0, 1, 2});
    CHECK(r.in_use() == 2);
    r.release();
    r.release();
    r.release();
    CHECK(granted == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(r.in_use() == 1);
    CHECK(r.queue_length() == 0);
    CHECK(r.grants() == 5);
    r.release();
    CHECK_THROWS_AS(r.release(), std::logic_error);
}

TEST_CASE("busy time integrates the units in use over simulated time") {
    Engine e;
    FifoResource r(e, 3);
    e.schedule_at(10, [&r] { r.request([] {}); });           // 1 unit from 10
    e.schedule_at(20, [&r] { r.request([] {}); });           // 2 units from 20
    e.schedule_at(50, [&r] { r.release(); });                // 1 unit from 50
    e.schedule_at(70, [&r] { r.release(); });                // 0 from 70
    e.run_until(100);
    // 1 x 10 + 2 x 30 + 1 x 20 = 90 unit-ns
    CHECK(r.busy_time() == 90.0);
    e.schedule_at(100, [&r] { r.request([] {}); });
    e.run_until(110);
    CHECK(r.busy_time() == 100.0);  // counts the unit still held up to now()
}

TEST_CASE("a cancelled request is never granted") {
    Engine e;
    FifoResource r(e, 1);
    std::vector<int> granted;
    r.request([&granted] { granted.push_back(0); });
    const auto t1 = r.request([&granted] { granted.push_back(1); });
    r.request([&granted] { granted.push_back(2); });
    CHECK(r.cancel_request(t1));
    CHECK_FALSE(r.cancel_request(t1));
    CHECK(r.queue_length() == 1);
    r.release();
    CHECK(granted == std::vector<int>{0, 2});
    CHECK(r.grants() == 2);
}

TEST_CASE("the request queue grows past its initial size and keeps its order") {
    Engine e;
    FifoResource r(e, 1);
    std::vector<int> granted;
    r.request([] {});
    for (int i = 0; i < 100; ++i) r.request([&granted, i] { granted.push_back(i); });
    for (int i = 0; i < 100; ++i) r.release();
    REQUIRE(granted.size() == 100);
    for (int i = 0; i < 100; ++i) CHECK(granted[static_cast<std::size_t>(i)] == i);
    CHECK(r.max_queue() == 100);
}

TEST_CASE("a resource needs at least one unit") {
    Engine e;
    CHECK_THROWS_AS(FifoResource(e, 0), std::invalid_argument);
}
