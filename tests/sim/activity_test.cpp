#include "sim/activity.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/link.hpp"
#include "sim/resource.hpp"

using namespace rentsim::sim;
using Handle = ActivityGraph::Handle;

TEST_CASE("a diamond graph finishes when its longest branch does") {
    //        +-> b (3) --+
    //  a (2) |           +-> d (1)      d finishes at 2 + max(3, 5) + 1 = 8
    //        +-> c (5) --+
    Engine e;
    ActivityGraph g(e);
    const Handle a = g.add_delay("a", 2);
    const Handle b = g.add_delay("b", 3);
    const Handle c = g.add_delay("c", 5);
    const Handle d = g.add_delay("d", 1);
    g.precede(a, b);
    g.precede(a, c);
    g.precede(b, d);
    g.precede(c, d);
    Time all = -1;
    g.start([&all](Time t) { all = t; });
    CHECK(g.running());
    CHECK(g.state(a) == ActivityState::started);
    CHECK(g.state(d) == ActivityState::inited);
    e.run();
    CHECK(all == 8);
    CHECK_FALSE(g.running());
    CHECK(g.started_at(b) == 2);
    CHECK(g.finished_at(b) == 5);
    CHECK(g.finished_at(c) == 7);
    CHECK(g.started_at(d) == 7);
    CHECK(g.finished_at(d) == 8);
    for (Handle h = 0; h < g.size(); ++h) CHECK(g.state(h) == ActivityState::finished);
    CHECK(g.name(c) == "c");
}

TEST_CASE("contention for a single unit serialises resource uses") {
    Engine e;
    FifoResource gpu(e, 1);
    ActivityGraph g(e);
    const Handle first = g.add_resource_use("first", gpu, 5);
    const Handle second = g.add_resource_use("second", gpu, 5);
    g.start([](Time) {});
    e.run();
    CHECK(g.finished_at(first) == 5);
    CHECK(g.finished_at(second) == 10);
    CHECK(g.started_at(second) == 0);  // it was waiting from the start
    CHECK(gpu.busy_time() == 10.0);
    CHECK(gpu.grants() == 2);
    CHECK(gpu.max_queue() == 1);
    CHECK(gpu.in_use() == 0);
}

TEST_CASE("a transfer activity is a flow on its link") {
    // Two 100 B transfers share 100 B/s after 1 s of latency: both end at 3 s, then the
    // 1 s delay that follows them ends at 4 s.
    Engine e;
    SharedLink link(e, 100.0, ns_per_s);
    ActivityGraph g(e);
    const Handle x = g.add_transfer("x", link, 100.0);
    const Handle y = g.add_transfer("y", link, 100.0);
    const Handle z = g.add_delay("z", ns_per_s);
    g.precede(x, z);
    g.precede(y, z);
    Time all = -1;
    g.start([&all](Time t) { all = t; });
    e.run();
    CHECK(g.finished_at(x) == 3 * ns_per_s);
    CHECK(g.finished_at(y) == 3 * ns_per_s);
    CHECK(all == 4 * ns_per_s);
}

TEST_CASE("a dependency cycle is reported with the names of its activities") {
    Engine e;
    ActivityGraph g(e);
    const Handle load = g.add_delay("load", 1);
    const Handle fwd = g.add_delay("forward", 1);
    const Handle bwd = g.add_delay("backward", 1);
    const Handle opt = g.add_delay("optimizer", 1);
    g.precede(load, fwd);
    g.precede(fwd, bwd);
    g.precede(bwd, opt);
    g.precede(opt, fwd);
    std::string message;
    try {
        g.start([](Time) {});
    } catch (const std::logic_error& err) {
        message = err.what();
    }
    CHECK(message.find("cycle") != std::string::npos);
    CHECK(message.find("'forward' -> 'backward' -> 'optimizer' -> 'forward'") != std::string::npos);
    CHECK(message.find("load") == std::string::npos);
    CHECK_FALSE(g.running());
    CHECK(e.pending() == 0);

    SUBCASE("a self-loop is a cycle too") {
        ActivityGraph h(e);
        const Handle only = h.add_delay("only", 1);
        h.precede(only, only);
        CHECK_THROWS_WITH_AS(h.start([](Time) {}), doctest::Contains("'only' -> 'only'"), std::logic_error);
    }
}

TEST_CASE("re-running a graph repeats the same times, shifted to its start") {
    Engine e;
    FifoResource gpu(e, 1);
    SharedLink link(e, 1000.0, 10);
    ActivityGraph g(e);
    const Handle load = g.add_delay("load", 7);
    const Handle compute = g.add_resource_use("compute", gpu, 20);
    const Handle sync = g.add_transfer("sync", link, 1.0);
    g.precede(load, compute);
    g.precede(compute, sync);
    std::vector<Time> ends;
    int iterations = 0;
    std::function<void(Time)> next = [&](Time t) {
        ends.push_back(t);
        if (++iterations < 3) g.start(next);  // start the next iteration from the hook
    };
    g.start(next);
    e.run();
    // One iteration: 7 + 20 + (10 ns latency + 1 ms for 1 B at 1000 B/s).
    const Time one = 7 + 20 + 10 + 1'000'000;
    CHECK(ends == std::vector<Time>{one, 2 * one, 3 * one});
    CHECK(g.started_at(compute) == 2 * one + 7);

    SUBCASE("and set_duration and set_bytes change the next run") {
        g.set_duration(compute, 30);
        g.set_bytes(sync, 2.0);
        CHECK_THROWS_AS(g.set_bytes(load, 1.0), std::invalid_argument);
        CHECK_THROWS_AS(g.set_duration(sync, 1), std::invalid_argument);
        Time end = -1;
        const Time begin = e.now();
        g.start([&end](Time t) { end = t; });
        e.run();
        CHECK(end - begin == 7 + 30 + 10 + 2'000'000);
    }
}

TEST_CASE("cancelling a graph stops the started activities and releases their units") {
    Engine e;
    FifoResource gpu(e, 1);
    SharedLink link(e, 10.0, 0);
    ActivityGraph g(e);
    const Handle hold = g.add_resource_use("hold", gpu, 100);
    const Handle wait = g.add_resource_use("wait", gpu, 100);
    const Handle move = g.add_transfer("move", link, 1000.0);
    const Handle after = g.add_delay("after", 1);
    g.precede(hold, after);
    bool all = false;
    std::vector<Handle> finished;
    g.on_finished(after, [&](Time) { finished.push_back(after); });
    g.start([&all](Time) { all = true; });
    e.schedule_at(50, [&g] { g.cancel(); });
    e.run();
    CHECK_FALSE(all);
    CHECK(finished.empty());
    CHECK(g.state(hold) == ActivityState::canceled);
    CHECK(g.state(wait) == ActivityState::canceled);
    CHECK(g.state(move) == ActivityState::canceled);
    CHECK(g.state(after) == ActivityState::inited);
    CHECK(gpu.in_use() == 0);
    CHECK(gpu.queue_length() == 0);
    CHECK(gpu.grants() == 1);  // "wait" never got the unit
    CHECK(link.active_flows() == 0);
    CHECK(e.now() == 50);  // nothing of the graph ran after the cancel
    CHECK(gpu.busy_time() == 50.0);
}

TEST_CASE("a failed activity stops the run and the others are cancelled") {
    Engine e;
    ActivityGraph g(e);
    const Handle a = g.add_delay("a", 10);
    const Handle b = g.add_delay("b", 10);
    const Handle c = g.add_delay("c", 10);
    g.precede(a, c);
    bool all = false;
    g.start([&all](Time) { all = true; });
    e.schedule_at(5, [&] { g.fail(a); });
    e.run();
    CHECK_FALSE(all);
    CHECK(g.state(a) == ActivityState::failed);
    CHECK(g.state(b) == ActivityState::canceled);
    CHECK(g.state(c) == ActivityState::inited);
    CHECK_THROWS_AS(g.fail(b), std::logic_error);
}

TEST_CASE("the structure cannot change while a run is in progress") {
    Engine e;
    ActivityGraph g(e);
    const Handle a = g.add_delay("a", 1);
    g.start([](Time) {});
    CHECK_THROWS_AS(g.add_delay("b", 1), std::logic_error);
    CHECK_THROWS_AS(g.precede(a, a), std::logic_error);
    CHECK_THROWS_AS(g.start([](Time) {}), std::logic_error);
    e.run();
    CHECK_THROWS_AS(g.state(5), std::out_of_range);
}

TEST_CASE("an empty graph finishes at once") {
    Engine e;
    ActivityGraph g(e);
    Time all = -1;
    g.start([&all](Time t) { all = t; });
    CHECK(all == 0);
    CHECK_FALSE(g.running());
}

TEST_CASE("activity events carry the activity's kind and handle") {
    Engine e;
    ActivityGraph g(e);
    struct Seen final : Observer {
        std::vector<EventInfo> events;
        void on_event(const EventInfo& i) override { events.push_back(i); }
    } seen;
    e.add_observer(seen);
    g.add_delay("a", 1, 4);
    const Handle b = g.add_delay("b", 2, 9);
    g.start([](Time) {});
    e.run();
    REQUIRE(seen.events.size() == 2);
    CHECK(seen.events[1].kind == 9);
    CHECK(seen.events[1].entity == b);
}
