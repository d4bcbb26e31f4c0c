#include "models/fit/levenberg_marquardt.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace rentsim;

TEST_CASE("fitting y = a exp(b x) to exact data recovers a and b") {
    // y = 2 exp(0.5 x) at x = 0..5.
    const fit::Vector xs{0, 1, 2, 3, 4, 5};
    fit::Vector ys;
    for (double x : xs) ys.push_back(2.0 * std::exp(0.5 * x));
    const fit::Residuals r = [&](const fit::Vector& p) {
        fit::Vector out;
        for (std::size_t i = 0; i < xs.size(); ++i) out.push_back(p[0] * std::exp(p[1] * xs[i]) - ys[i]);
        return out;
    };
    for (const bool central : {true, false}) {
        CAPTURE(central);
        fit::Options o;
        o.differences = {.central = central, .step = 1e-7, .relative = true};
        const fit::Result res = fit::levenberg_marquardt(r, {1.0, 0.1}, o);
        CHECK(res.x[0] == doctest::Approx(2.0).epsilon(1e-6));
        CHECK(res.x[1] == doctest::Approx(0.5).epsilon(1e-6));
        CHECK(res.cost < 1e-12);
        CHECK(res.converged);
        CHECK(res.iterations > 0);
    }
}

TEST_CASE("a linear problem gives the normal-equations solution") {
    // Line through (0, 1), (1, 2), (2, 2), (3, 4): A = [1 x], A'A = [[4, 6], [6, 14]],
    // A'y = [9, 18], det 20, so intercept = (14*9 - 6*18) / 20 = 0.9 and slope = (4*18 - 6*9) / 20 = 0.9.
    const fit::Vector xs{0, 1, 2, 3}, ys{1, 2, 2, 4};
    const fit::Residuals r = [&](const fit::Vector& p) {
        fit::Vector out;
        for (std::size_t i = 0; i < xs.size(); ++i) out.push_back(p[0] + p[1] * xs[i] - ys[i]);
        return out;
    };
    const fit::Result res = fit::levenberg_marquardt(r, {0.0, 0.0});
    CHECK(res.x[0] == doctest::Approx(0.9).epsilon(1e-8));
    CHECK(res.x[1] == doctest::Approx(0.9).epsilon(1e-8));
    // Residuals -0.1, -0.2, 0.7, -0.4: cost 0.01 + 0.04 + 0.49 + 0.16 = 0.70.
    CHECK(res.cost == doctest::Approx(0.70).epsilon(1e-10));
    CHECK(res.converged);
}

TEST_CASE("priors as extra residuals pull an unconstrained parameter to its prior") {
    // Only p0 is measured (p0 = 3); p1 appears only in its prior term 0.1 (p1 - 7).
    const fit::Residuals r = [](const fit::Vector& p) { return fit::Vector{p[0] - 3.0, 0.1 * (p[1] - 7.0)}; };
    const fit::Result res = fit::levenberg_marquardt(r, {0.0, 0.0});
    CHECK(res.x[0] == doctest::Approx(3.0).epsilon(1e-8));
    CHECK(res.x[1] == doctest::Approx(7.0).epsilon(1e-8));
}

TEST_CASE("the start is kept when no step lowers the cost") {
    // Already at the minimum of (p - 1)^2.
    const fit::Residuals r = [](const fit::Vector& p) { return fit::Vector{p[0] - 1.0}; };
    const fit::Result res = fit::levenberg_marquardt(r, {1.0});
    CHECK(res.x[0] == 1.0);
    CHECK(res.cost == 0.0);
    CHECK(res.iterations == 0);
    CHECK_FALSE(res.converged);
}

TEST_CASE("max_iterations bounds the steps taken") {
    // Rosenbrock's valley as residuals 10 (y - x^2) and 1 - x, minimum at (1, 1).
    const fit::Residuals r = [](const fit::Vector& p) { return fit::Vector{10.0 * (p[1] - p[0] * p[0]), 1.0 - p[0]}; };
    fit::Options o;
    o.max_iterations = 2;
    const fit::Result few = fit::levenberg_marquardt(r, {-1.2, 1.0}, o);
    CHECK(few.iterations <= 2);
    CHECK_FALSE(few.converged);
    o.max_iterations = 500;
    const fit::Result all = fit::levenberg_marquardt(r, {-1.2, 1.0}, o);
    CHECK(all.x[0] == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(all.x[1] == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(all.converged);
}

TEST_CASE("the finite-difference Jacobian matches the analytic one") {
    // r = (x0 x1, x0^2, 3 x1): J = [[x1, x0], [2 x0, 0], [0, 3]] at (2, 5).
    const fit::Residuals r = [](const fit::Vector& p) { return fit::Vector{p[0] * p[1], p[0] * p[0], 3.0 * p[1]}; };
    const fit::Matrix central = fit::jacobian(r, {2.0, 5.0});
    const fit::Matrix forward = fit::jacobian(r, {2.0, 5.0}, {.central = false, .step = 1e-7, .relative = false});
    for (const fit::Matrix* j : {&central, &forward}) {
        REQUIRE(j->rows == 3);
        REQUIRE(j->cols == 2);
        CHECK((*j)(0, 0) == doctest::Approx(5.0).epsilon(1e-6));
        CHECK((*j)(0, 1) == doctest::Approx(2.0).epsilon(1e-6));
        CHECK((*j)(1, 0) == doctest::Approx(4.0).epsilon(1e-6));
        CHECK((*j)(1, 1) == doctest::Approx(0.0));
        CHECK((*j)(2, 0) == doctest::Approx(0.0));
        CHECK((*j)(2, 1) == doctest::Approx(3.0).epsilon(1e-6));
    }
}

TEST_CASE("a residual function that changes its length is an error") {
    const fit::Residuals r = [](const fit::Vector& p) { return p[0] > 0.5 ? fit::Vector{p[0]} : fit::Vector{p[0], 1.0}; };
    CHECK_THROWS_AS(fit::levenberg_marquardt(r, {1.0}), std::invalid_argument);
}
