#include <doctest/doctest.h>

#include <set>
#include <string>

#include "analysis/scenario/csv.hpp"
#include "analysis/studies/validate.hpp"

using namespace rentsim;

namespace {
const std::string measured = std::string(RENTSIM_SOURCE_DIR) + "/models/compute/measurements/measured.csv";
}

TEST_CASE("validation keeps every row of the file: predicted, or skipped with a reason") {
    const auto rep = analysis::validate_file(measured);
    const auto table = analysis::read_csv(measured);
    REQUIRE(rep.rows.size() == table.rows.size());
    for (const auto& r : rep.rows) {
        INFO(r.id);
        if (r.skipped.empty()) CHECK(r.predicted > 0);
        else CHECK(r.skipped.size() > 5);
    }
}

TEST_CASE("the median absolute error over the check rows of measured.csv is at most 10%") {
    const auto rep = analysis::validate_file(measured);
    const auto& check = rep.summary.at("all").at("check");
    INFO("check rows: " << check.n << ", median " << check.median_abs_error << ", mean " << check.mean_abs_error);
    CHECK(check.n >= 100);
    CHECK(check.median_abs_error <= 0.10);
    // The Megatron A100 rows, which Calculon reports at 3.65% mean error.
    CHECK(rep.summary.at("megatron_scaling").at("check").mean_abs_error <= 0.10);
}

TEST_CASE("error statistics: mean, median of an even count and maximum") {
    const auto s = analysis::error_stats({0.3, 0.1, 0.2, 0.4});
    CHECK(s.n == 4);
    CHECK(s.mean_abs_error == doctest::Approx(0.25));
    CHECK(s.median_abs_error == doctest::Approx(0.25));
    CHECK(s.max_abs_error == doctest::Approx(0.4));
}
