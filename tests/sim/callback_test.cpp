#include "sim/callback.hpp"

#include <doctest/doctest.h>

#include <array>
#include <memory>
#include <utility>

using rentsim::sim::Callback;

TEST_CASE("a callback runs the callable it was given") {
    int calls = 0;
    Callback cb = [&calls] { ++calls; };
    REQUIRE(static_cast<bool>(cb));
    cb();
    cb();
    CHECK(calls == 2);
}

TEST_CASE("a default callback is empty") {
    Callback cb;
    CHECK_FALSE(static_cast<bool>(cb));
}

TEST_CASE("moving a callback moves its captures and empties the source") {
    auto counter = std::make_shared<int>(0);
    Callback a = [counter] { ++*counter; };
    CHECK(counter.use_count() == 2);
    Callback b = std::move(a);
    CHECK_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): the contract under test
    CHECK(counter.use_count() == 2);
    b();
    CHECK(*counter == 1);
    Callback c;
    c = std::move(b);
    c();
    CHECK(*counter == 2);
    c.reset();
    CHECK(counter.use_count() == 1);
}

TEST_CASE("a move-only capture is accepted") {
    auto p = std::make_unique<int>(7);
    int seen = 0;
    Callback cb = [p = std::move(p), &seen] { seen = *p; };
    cb();
    CHECK(seen == 7);
}

TEST_CASE("captures of up to 48 bytes fit and larger ones are rejected at compile time") {
    std::array<char, 40> forty{};
    auto fits48 = [forty, p = &forty] { (void)forty, (void)p; };
    static_assert(sizeof(fits48) == 48);
    static_assert(Callback::fits<decltype(fits48)>);
    std::array<char, 49> big{};
    auto too_big = [big] { (void)big; };
    static_assert(!Callback::fits<decltype(too_big)>);
    Callback cb = fits48;
    cb();
    CHECK(Callback::capacity >= 48);
}

TEST_CASE("a plain function pointer is a callback") {
    static_assert(Callback::fits<void (*)()>);
    Callback cb = +[] {};
    CHECK(static_cast<bool>(cb));
    cb();
}
