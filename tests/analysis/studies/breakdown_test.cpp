#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "analysis/scenario/input_error.hpp"
#include "analysis/studies/breakdown.hpp"
#include "tests/readme_section.hpp"

using namespace rentsim;

namespace {
const std::string source = RENTSIM_SOURCE_DIR;
const std::string measured = source + "/models/compute/measurements/measured.csv";
const std::string trace = source + "/scenarios/traces/kineto/resnet_1xV100";
}  // namespace

TEST_CASE("the README's breakdown tables are what the model and the shipped trace give") {
    const std::string md = analysis::breakdown_markdown(measured, trace);
    // The trace's step and its kernel count, as `rentsim replay` reports them.
    CHECK(md.find("ProfilerStep#105 (870 kernels") != std::string::npos);
    test::check_readme_section("breakdown", md, "build/ci/tests/analysis/studies/studies_tests");
}

TEST_CASE("the breakdown comparison names a missing row and a missing trace") {
    const std::string empty = (std::filesystem::temp_directory_path() / "rentsim_breakdown_empty.csv").string();
    {
        std::FILE* f = std::fopen(empty.c_str(), "w");
        REQUIRE(f != nullptr);
        std::fputs("id,role,category,metric,value\n", f);
        std::fclose(f);
    }
    CHECK_THROWS_WITH_AS(analysis::breakdown_markdown(measured, source + "/scenarios/traces/kineto/none"),
                         doctest::Contains("kineto/none"), analysis::InputError);
    CHECK_THROWS_WITH_AS(analysis::breakdown_markdown(empty, trace),
                         doctest::Contains("no row with id 'DLE-009'"), analysis::InputError);
    std::filesystem::remove(empty);
}
