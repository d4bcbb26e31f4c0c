#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "analysis/studies/calibrate.hpp"
#include "analysis/scenario/calibration_io.hpp"
#include "analysis/scenario/input_error.hpp"

using namespace rentsim;

namespace {
const std::string measured = std::string(RENTSIM_SOURCE_DIR) + "/models/compute/measurements/measured.csv";
// SimuMax's GEMM and FlashAttention timings on B200 (models/compute/measurements/README.md), in the measurement
// script's layout; the shipped calibrations are fitted to both files.
const std::string b200_gemm = std::string(RENTSIM_SOURCE_DIR) + "/models/compute/measurements/b200-simumax.csv";
}

TEST_CASE("every shipped calibration is what the fitting code produces from the shipped measurements") {
    // A family's parts share one fit (each row predicted on its own part): fit each family
    // once and compare every shipped file of the family with it.
    std::map<std::string, compute::Calibration> fits;
    for (auto gpu : analysis::shipped_calibration_gpus()) {
        CAPTURE(gpu);
        const auto shipped = analysis::shipped_calibration(gpu);
        const std::string family(compute::find_gpu(gpu).family);
        if (!fits.contains(family)) fits[family] = analysis::fit_calibration(std::string(gpu), {measured, b200_gemm}, shipped.date).calibration;
        const auto& fit = fits[family];
        CHECK(fit.attention_eff == doctest::Approx(shipped.attention_eff).epsilon(1e-9));
        for (std::size_t p = 0; p < compute::precision_count; ++p)
            CHECK(fit.matmul_eff[p] == doctest::Approx(shipped.matmul_eff[p]).epsilon(1e-9));
        CHECK(fit.conv_eff == doctest::Approx(shipped.conv_eff).epsilon(1e-9));
        CHECK(fit.conv_eff_tf32 == doctest::Approx(shipped.conv_eff_tf32).epsilon(1e-9));
        CHECK(fit.mem_eff == doctest::Approx(shipped.mem_eff).epsilon(1e-9));
        CHECK(fit.k_fill == doctest::Approx(shipped.k_fill).epsilon(1e-9));
        CHECK(fit.kernel_overhead_s == doctest::Approx(shipped.kernel_overhead_s).epsilon(1e-9));
        CHECK(fit.step_overhead_s == doctest::Approx(shipped.step_overhead_s).epsilon(1e-9));
        CHECK(fit.tensor_energy_pj == doctest::Approx(shipped.tensor_energy_pj).epsilon(1e-9));
    }
}

TEST_CASE("the fit uses only calibrate rows and stays physical") {
    std::vector<std::string> skipped;
    const auto rows = analysis::read_calibration_rows({measured}, "a100-sxm4-80gb", skipped);
    for (const auto& r : rows) CHECK(r.id.rfind("MLP", 0) != 0);  // MLPerf rows are check rows
    const auto rep = analysis::fit_calibration("a100-sxm4-80gb", {measured}, "2026-11-29");
    for (double e : rep.calibration.matmul_eff) CHECK((e >= 0.0 && e <= 1.0));
    CHECK(rep.calibration.conv_eff <= 1.0);
    CHECK(rep.calibration.conv_eff_tf32 <= 1.0);
    CHECK(rep.calibration.mem_eff <= 1.0);
    // Best-shape GEMM rows are reproduced within 19%: one fp16 efficiency serves them and the
    // end-to-end rows, whose smaller GEMMs run below it (the worst best-shape row, GEM-010, is 18.3% slow).
    for (std::size_t i = 0; i < rep.rows.size(); ++i)
        if (rep.rows[i].kind == analysis::RowKind::gemm) CHECK(std::abs(rep.predicted_s[i] / rep.rows[i].measured_s - 1.0) < 0.19);
}

TEST_CASE("a calibration survives a round trip through its JSON file") {
    const auto c = analysis::shipped_calibration("a100-sxm4-80gb");
    const auto back = analysis::parse_calibration(analysis::calibration_to_json(c), "x.json");
    CHECK(back.mem_eff == doctest::Approx(c.mem_eff));
    CHECK(back.matmul_eff[2] == doctest::Approx(c.matmul_eff[2]));
    CHECK(back.tensor_energy_pj > 0);
    CHECK(back.conv_eff_tf32 > 0);
    CHECK(back.conv_eff_tf32 == doctest::Approx(c.conv_eff_tf32));
    // A part without TF32 writes null and reads it back as none.
    const auto v100 = analysis::shipped_calibration("v100-sxm2-16gb");
    CHECK(v100.conv_eff_tf32 == 0.0);
    CHECK(analysis::calibration_to_json(v100).find(R"("conv_eff_tf32": null)") != std::string::npos);
    CHECK(analysis::parse_calibration(analysis::calibration_to_json(v100), "v.json").conv_eff_tf32 == 0.0);
    CHECK(back.tensor_energy_pj == doctest::Approx(c.tensor_energy_pj));
    CHECK(back.fitted_from == c.fitted_from);
}

TEST_CASE("a calibration file's TF32 convolution efficiency is optional, checked against its range and spelled right") {
    const std::string head = R"({"schema": 1, "gpu": "h100-sxm5-80gb", "matmul_eff": {"fp32": 0.5, "tf32": 0.6, "fp16": 0.7,
      "bf16": 0.7, "fp8": 0.6}, "conv_eff": 0.8, "k_fill": 128, "mem_eff": 0.8, "kernel_overhead_us": 5,
      "step_overhead_us": 1000, "fitted_from": "f", "date": "2026-12-07")";
    // Absent (a file fitted before it): TF32 convolutions run at conv_eff.
    CHECK(analysis::parse_calibration(head + "}", "c.json").conv_eff_tf32 == 0.8);
    CHECK(analysis::parse_calibration(head + R"(, "conv_eff_tf32": 0.7})", "c.json").conv_eff_tf32 == 0.7);
    const auto error = [&](const std::string& tail) {
        try {
            (void)analysis::parse_calibration(head + tail, "c.json");
        } catch (const analysis::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(error(R"(, "conv_eff_tf32": -1})") == "c.json: /conv_eff_tf32: expected a positive number, got -1");
    CHECK(error(R"(, "conv_eff_tf32": 9})") == "c.json: /conv_eff_tf32: expected at most 4, got 9");
    CHECK(error(R"(, "conv_eff_tf23": 0.7})").starts_with(
        "c.json: /conv_eff_tf23: unknown key 'conv_eff_tf23'; did you mean 'conv_eff_tf32'?"));
}

TEST_CASE("a row on a part whose TF32 peak equals its FP32 peak is predicted with the TF32 efficiency") {
    // The RTX 4090 lists 82.6 TFLOP/s for both: its TF32 GEMMs still run on tensor cores at
    // the fitted TF32 efficiency, as the simulator runs them, not at the FP32 one.
    analysis::CalibrationRow row;
    row.gpu = "rtx4090";
    row.kind = analysis::RowKind::gemm;
    row.precision = compute::Precision::tf32;
    row.m = row.n = row.k = 8192;
    row.batch = 1;
    auto cal = analysis::shipped_calibration("rtx4090");
    cal.matmul_eff[static_cast<std::size_t>(compute::Precision::fp32)] = 0.9;
    cal.matmul_eff[static_cast<std::size_t>(compute::Precision::tf32)] = 0.45;
    const compute::GpuModel gpu(compute::find_gpu("rtx4090"), cal);
    const double t = gpu.gemm_time(row.m, row.n, row.k, row.batch, row.precision).value;
    CHECK(analysis::predict_row(row, cal) == doctest::Approx(t));
    // By hand: 2 x 8192^3 FLOPs at 0.45 x 82.6 TFLOP/s (and the power clock) is about 30 ms.
    CHECK(t > 2.0 * 8192.0 * 8192.0 * 8192.0 / (0.45 * 82.6e12) * 0.99);
}

TEST_CASE("an attention row is predicted as one FlashAttention kernel of its FLOPs, blocks and traffic") {
    analysis::CalibrationRow row;
    row.gpu = "b200";
    row.kind = analysis::RowKind::attention;
    row.precision = compute::Precision::bf16;
    row.flops = 274877906944.0;
    row.bytes = 150994944.0;
    row.query_blocks = 64.0 * 32;
    const auto cal = analysis::shipped_calibration("b200");
    const compute::GpuModel gpu(compute::find_gpu("b200"), cal);
    CHECK(analysis::predict_row(row, cal) ==
          doctest::Approx(gpu.attention_time(row.flops, row.query_blocks, row.bytes, row.precision).value));
    // More FLOPs never take less time.
    analysis::CalibrationRow twice = row;
    twice.flops *= 2;
    CHECK(analysis::predict_row(twice, cal) > analysis::predict_row(row, cal));
}
