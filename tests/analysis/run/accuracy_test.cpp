// The shipped accuracy table (models/compute/accuracy.csv) against the validation it is
// computed from. With RENTSIM_UPDATE_README=1 the test rewrites the file instead (then
// rebuild, so that the program compiles the new table in, and review the diff).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/run/accuracy.hpp"
#include "analysis/scenario/measurements.hpp"
#include "analysis/studies/validate.hpp"
#include "models/compute/gpu.hpp"

using namespace rentsim;

namespace {

const std::string table_path = RENTSIM_SOURCE_DIR "/models/compute/accuracy.csv";

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The table from the validation's check rows of trust high and medium that were predicted,
// one row per family of the catalog and workload kind, in their declared orders.
std::vector<analysis::AccuracyRow> table_from_validation() {
    const auto report = analysis::validate_file(RENTSIM_SOURCE_DIR "/models/compute/measurements/measured.csv");
    std::map<std::pair<std::string, std::string>, std::vector<double>> errors;
    for (const auto& v : report.rows) {
        if (v.role != "check" || v.trust == "low" || !v.skipped.empty() || v.gpu.empty()) continue;
        const std::string_view kind = analysis::workload_kind(v.kind);
        if (!kind.empty()) errors[{analysis::gpu_family(v.gpu), std::string(kind)}].push_back(std::abs(v.error));
    }
    std::vector<analysis::AccuracyRow> rows;
    for (const auto family : compute::gpu_families)
        for (const auto kind : analysis::workload_kinds) {
            const auto it = errors.find({std::string(family), std::string(kind)});
            const auto stats = analysis::error_stats(it == errors.end() ? std::vector<double>{} : it->second);
            rows.push_back({std::string(family), std::string(kind), stats.n, stats.median_abs_error, stats.p90_abs_error});
        }
    return rows;
}

}  // namespace

TEST_CASE("the shipped accuracy table is the validation's check rows by GPU family and workload kind") {
    const std::string expected = analysis::accuracy_csv(table_from_validation());
    const std::string actual = file_text(table_path);
    if (actual == expected) return;
    if (const char* update = std::getenv("RENTSIM_UPDATE_README"); update && std::string(update) == "1") {
        std::ofstream(table_path, std::ios::binary) << expected;
        MESSAGE("updated " << table_path << "; rebuild to compile it in");
        return;
    }
    FAIL("models/compute/accuracy.csv differs from the validation of measured.csv. Regenerate it with\n"
         "  RENTSIM_UPDATE_README=1 build/ci/tests/analysis/run/accuracy_tests\nthen rebuild; expected:\n"
         << expected);
}

TEST_CASE("the program's compiled-in accuracy table is the shipped file") {
    const auto file = analysis::parse_accuracy_csv(file_text(table_path));
    const auto& built = analysis::accuracy_table();
    REQUIRE(built.size() == file.size());
    for (std::size_t i = 0; i < file.size(); ++i) {
        CAPTURE(file[i].family);
        CAPTURE(file[i].kind);
        CHECK(built[i].family == file[i].family);
        CHECK(built[i].kind == file[i].kind);
        CHECK(built[i].check_rows == file[i].check_rows);
        CHECK(built[i].median_error == file[i].median_error);
        CHECK(built[i].p90_error == file[i].p90_error);
    }
}

TEST_CASE("a table's text reads back to the same rows, and a malformed one is refused with its line") {
    const std::vector<analysis::AccuracyRow> rows{{"hopper", "llm", 12, 0.0612, 0.24}, {"cdna3", "cnn", 0, 0, 0}};
    const std::string text = analysis::accuracy_csv(rows);
    CHECK(text.find("cdna3,cnn,0,,," + std::string(analysis::outside_validation) + "\n") != std::string::npos);
    const auto back = analysis::parse_accuracy_csv(text);
    REQUIRE(back.size() == 2);
    CHECK(back[0].check_rows == 12);
    CHECK(back[0].median_error == 0.0612);
    CHECK(back[0].p90_error == 0.24);
    CHECK(back[1].check_rows == 0);
    CHECK_THROWS_WITH_AS(analysis::parse_accuracy_csv("family,kind,check_rows,median_error,p90_error,note\nhopper,llm,x,,,\n"),
                         doctest::Contains("line 2"), std::invalid_argument);
}

TEST_CASE("workload kinds and the family calibration flag follow the model and the shipped calibration") {
    CHECK(analysis::workload_kind("resnet50") == "cnn");
    CHECK(analysis::workload_kind("bert-large") == "bert");
    CHECK(analysis::workload_kind("transformer-xl") == "transformer-xl");
    CHECK(analysis::workload_kind("gpt") == "llm");
    CHECK(analysis::workload_kind("llama3-70b") == "llm");
    CHECK(analysis::workload_kind("transformer-big").empty());
    CHECK(analysis::family_calibrated("h100-sxm5-80gb"));
    CHECK_FALSE(analysis::family_calibrated("t4"));      // borrowed from the volta family
    CHECK_FALSE(analysis::family_calibrated("mi300x"));  // borrowed from the hopper family
    const auto a = analysis::accuracy_of("h100-sxm5-80gb", "transformer-big");
    CHECK(a.family_calibrated);
    CHECK(a.check_rows == 0);
}
