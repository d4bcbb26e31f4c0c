// Reruns the fit from the shipped data and checks that the constants in params.cpp, fitted.csv
// and VALIDATION.md are what the fit produces. RENTSIM_UPDATE_GOLDEN=1 rewrites the two files.
#include "models/network/calibrate_network.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace rentsim::net;

namespace {
const std::string kDir = std::string(RENTSIM_SOURCE_DIR) + "/models/network/";

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read " << path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

bool update_mode() {
    const char* v = std::getenv("RENTSIM_UPDATE_GOLDEN");
    return v != nullptr && std::string(v) == "1";
}

const CalibrationData& data() {
    static const CalibrationData d =
        parse_calibration_data(read(std::string(RENTSIM_SOURCE_DIR) + "/models/compute/measurements/measured.csv"),
                               read(kDir + "data/nccl_rows.csv"));
    return d;
}

const CalibrationResult& fit() {
    static const CalibrationResult r = calibrate_network(data());
    return r;
}

// The date a fit was stored with: kept from the committed file so reruns compare equal.
std::string stored_date() {
    const std::string text = read(kDir + "data/fitted.csv");
    const auto line_end = text.find('\n');
    const auto second = text.substr(line_end + 1, text.find('\n', line_end + 1) - line_end - 1);
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : second) {
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted) {
            fields.push_back(field);
            field.clear();
        } else {
            field += c;
        }
    }
    return fields.size() > 5 ? fields[5] : "";
}
}  // namespace

TEST_CASE("the nccl data copy keeps the header of measured.csv and only calibrate rows") {
    for (const MeasuredRow& r : data().rows) {
        CHECK(r.role == "calibrate");
        CHECK((r.category == "nccl_busbw" || r.category == "p2p_bw"));
    }
    CHECK(data().rows.size() == data().interpretations.size());
}

TEST_CASE("rerunning the fit reproduces the constants the model ships with") {
    const NetworkParams shipped = default_network_params();
    const CalibrationResult& r = fit();
    auto same = [](double a, double b) { return std::abs(a - b) <= 1e-4 * std::max(std::abs(a), std::abs(b)); };
    for (const FittedParameter& p : r.parameters) {
        CAPTURE(p.name);
        CAPTURE(p.value);
        if (p.fitted) CHECK(!p.rows.empty());
    }
    CHECK(same(shipped.nvlink2_efficiency, r.params.nvlink2_efficiency));
    CHECK(same(shipped.nvlink3_efficiency, r.params.nvlink3_efficiency));
    CHECK(same(shipped.nvlink4_efficiency, r.params.nvlink4_efficiency));
    CHECK(same(shipped.nvls_efficiency, r.params.nvls_efficiency));
    CHECK(same(shipped.nvlink5_efficiency, r.params.nvlink5_efficiency));
    CHECK(same(shipped.nvls5_efficiency, r.params.nvls5_efficiency));
    CHECK(same(shipped.nvlink_copy_efficiency, r.params.nvlink_copy_efficiency));
    CHECK(same(shipped.tree_efficiency, r.params.tree_efficiency));
    CHECK(same(shipped.infiniband_efficiency, r.params.infiniband_efficiency));
    CHECK(same(shipped.roce_efficiency, r.params.roce_efficiency));
    CHECK(same(shipped.efa_efficiency, r.params.efa_efficiency));
    CHECK(same(shipped.nvlink_step_us.ll, r.params.nvlink_step_us.ll));
    CHECK(same(shipped.nvlink_step_us.ll128, r.params.nvlink_step_us.ll128));
    CHECK(same(shipped.nvlink_step_us.simple, r.params.nvlink_step_us.simple));
    CHECK(same(shipped.net_step_us.simple, r.params.net_step_us.simple));
    CHECK(same(shipped.nvls_latency_us, r.params.nvls_latency_us));

    const std::string path = kDir + "data/fitted.csv";
    const std::string date = update_mode() ? std::string(std::getenv("RENTSIM_FIT_DATE") ? std::getenv("RENTSIM_FIT_DATE") : "") : stored_date();
    const std::string text = fitted_csv(r, date);
    if (update_mode()) write(path, text);
    CHECK_MESSAGE(read(path) == text, "data/fitted.csv is out of date; rerun with RENTSIM_UPDATE_GOLDEN=1");
}

TEST_CASE("validation: rows of 64 MB and more are within 15 percent") {
    const std::vector<ValidationRow> rows = validate_network(data(), default_network_params());
    std::string table = fmt::format("\n{:<8} {:>14} {:>5} {:<18} {:>9} {:>9} {:>7}\n", "id", "bytes", "gpus", "algorithm",
                                    "measured", "predicted", "error%");
    for (const ValidationRow& v : rows) {
        if (v.modelled)
            table += fmt::format("{:<8} {:>14.0f} {:>5} {:<18} {:>9.2f} {:>9.2f} {:>+7.1f}{}\n", v.id, v.bytes, v.gpus,
                                 v.algorithm, v.measured, v.predicted, v.error_pct, v.size_stated ? "" : "  (size assumed)");
        else
            table += fmt::format("{:<8} not modelled: {}\n", v.id, v.note);
    }
    MESSAGE(table);
    for (const ValidationRow& v : rows) {
        if (!v.modelled || v.bytes < 64e6) continue;
        CAPTURE(v.id);
        CHECK(std::abs(v.error_pct) <= 15.0);
    }
    const std::string path = kDir + "VALIDATION.md";
    const std::string text = validation_markdown(rows, fit());
    if (update_mode()) write(path, text);
    CHECK_MESSAGE(read(path) == text, "VALIDATION.md is out of date; rerun with RENTSIM_UPDATE_GOLDEN=1");
}
